import { compareCodeUnits } from '../io/files.js';
import type { ObjectMembers } from './json-pieces.js';

/** One item's verdict in report.json, and a 64-bit prefix of its gold digest when the suite has gold. */
export interface ItemVerdict {
  pass: boolean;
  gold?: string;
}

/**
 * A suite's `items` (every item's verdict), in report.json's order. A run's own are kept as columns and
 * built one at a time as they are written: as 200k objects in one record they grew the heap by 30 MB at
 * the end of a large run, where its peak is. A baseline's, parsed from JSON, are its record as it is.
 */
export class ItemRecord implements ObjectMembers {
  private index: Map<string, number> | undefined;

  private constructor(
    private readonly ids: readonly string[],
    private readonly passAt: (k: number) => boolean,
    private readonly goldAt: (k: number) => string | undefined,
    private readonly record?: Readonly<Record<string, ItemVerdict>>,
  ) {}

  /** Items `ids[k]`, `pass[k]` and `gold(k)`, in any order. */
  static fromColumns(
    ids: readonly string[],
    pass: ArrayLike<number>,
    gold: (k: number) => string | undefined,
  ): ItemRecord {
    const order = keyOrder(ids);
    return order
      ? new ItemRecord(
          order.map((k) => ids[k]!),
          (j) => pass[order[j]!] === 1,
          (j) => gold(order[j]!),
        )
      : new ItemRecord(ids, (k) => pass[k] === 1, gold);
  }

  static fromRecord(record: Record<string, ItemVerdict>): ItemRecord {
    const ids = Object.keys(record);
    return new ItemRecord(
      ids,
      (k) => record[ids[k]!]!.pass,
      (k) => record[ids[k]!]!.gold,
      record,
    );
  }

  private at(k: number): ItemVerdict {
    const gold = this.goldAt(k);
    return gold === undefined ? { pass: this.passAt(k) } : { pass: this.passAt(k), gold };
  }

  get size(): number {
    return this.ids.length;
  }

  get(id: string): ItemVerdict | undefined {
    if (this.record) return Object.hasOwn(this.record, id) ? this.record[id] : undefined;
    const k = this.indexOf(id);
    return k === undefined ? undefined : this.at(k);
  }

  has(id: string): boolean {
    return this.record ? Object.hasOwn(this.record, id) : this.indexOf(id) !== undefined;
  }

  private indexOf(id: string): number | undefined {
    this.index ??= new Map(this.ids.map((x, k) => [x, k]));
    return this.index.get(id);
  }

  keys(): readonly string[] {
    return this.ids;
  }

  *members(): Generator<[string, ItemVerdict]> {
    for (let k = 0; k < this.ids.length; k++) yield [this.ids[k]!, this.at(k)];
  }

  /**
   * The record as JSON.stringify(…, null, 2) writes it at `indent`, each item's text made at once: through
   * members() 200k items took 145 ms to write, this way 35 ms (a micro-benchmark).
   */
  writeJson(indent: string, put: (text: string) => void): void {
    const n = this.ids.length;
    if (n === 0) return put('{}');
    const inner = `${indent}  `;
    const pass = `: {\n${inner}  "pass": `;
    const gold = `,\n${inner}  "gold": `;
    const close = `\n${inner}}`;
    let text = '{';
    for (let k = 0; k < n; k++) {
      const g = this.goldAt(k);
      text += `${k ? ',' : ''}\n${inner}${quote(this.ids[k]!)}${pass}${this.passAt(k)}${g === undefined ? '' : gold + quote(g)}${close}`;
      if (text.length >= 1 << 14) {
        put(text);
        text = '';
      }
    }
    put(`${text}\n${indent}}`);
  }

  /** The record itself, for JSON.stringify: what report.json holds. */
  toJSON(): Record<string, ItemVerdict> {
    if (this.record) return this.record;
    // No prototype: an item "__proto__" is a member like any other, as members() writes it.
    const out = Object.create(null) as Record<string, ItemVerdict>;
    for (let k = 0; k < this.ids.length; k++) out[this.ids[k]!] = this.at(k);
    return out;
  }
}

/** Printable ASCII but `"` and `\`: a JSON string as it is, between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** JSON.stringify(s), for most ids and digests without calling it: 400k calls were a third of the items' cost. */
const quote = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/**
 * The order JavaScript enumerates an object whose keys went in sorted by code unit, which is the order
 * report.json has always listed items in: array-index keys ("0" to "4294967294") first, by value.
 * Undefined when `ids` are in that order already, as most gold sets in id order are (not numeric ids in
 * code-unit order, "1", "10", "2", which are sorted again).
 */
function keyOrder(ids: readonly string[]): number[] | undefined {
  let sorted = true;
  for (let k = 1; k < ids.length && sorted; k++) sorted = compareKeys(ids[k - 1]!, ids[k]!) < 0;
  return sorted ? undefined : ids.map((_, k) => k).sort((a, b) => compareKeys(ids[a]!, ids[b]!));
}

function compareKeys(a: string, b: string): number {
  const ia = isArrayIndex(a);
  const ib = isArrayIndex(b);
  if (ia && ib) return Number(a) - Number(b);
  if (ia !== ib) return ia ? -1 : 1;
  return compareCodeUnits(a, b);
}

function isArrayIndex(s: string): boolean {
  const c = s.charCodeAt(0);
  return c >= 0x30 && c <= 0x39 && /^(?:0|[1-9]\d{0,9})$/.test(s) && Number(s) < 4294967295;
}
