import { compareCodeUnits } from '../io/files.js';
import type { JsonBytes } from './json-bytes.js';
import type { ObjectMembers } from './json-pieces.js';

/**
 * One item's verdict in report.json, a 64-bit prefix of its gold digest when the suite has gold, and its value
 * of each per-item metric the suite reports (`ndcg@10`): what a later run's paired statistics compare with.
 */
export interface ItemVerdict {
  pass: boolean;
  gold?: string;
  values?: Record<string, number>;
}

/** Item k's value of metric `name` is `columns[name][k]`; NaN when it has none. */
export type ValueColumns = Readonly<Record<string, Float64Array>>;

/**
 * Items' gold digests as bytes: item k's at byte `offset(k)` of `bytes` (undefined: it has none), of which a
 * report shows the first 8 in hex. Kept as bytes, and written as such: 200k hex strings made to write a
 * report took a merge 45 ms.
 */
export interface GoldPrefixes {
  bytes: Uint8Array;
  offset(k: number): number | undefined;
}

const GOLD_BYTES = 8;

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
    private readonly gold: { record: Readonly<Record<string, ItemVerdict>> } | GoldPrefixes,
    /** A run's per-item values: item k's of metric `name` at `row(k)` of its column. */
    private readonly columns?: { names: readonly string[]; values: ValueColumns; row: (k: number) => number },
  ) {}

  /**
   * Items `ids[k]`, `pass[k]`, their gold digests (none without `gold`) and their values (`values[name][k]`,
   * NaN for none), in any order.
   */
  static fromColumns(
    ids: readonly string[],
    pass: ArrayLike<number>,
    gold?: GoldPrefixes,
    values?: ValueColumns,
  ): ItemRecord {
    const order = keyOrder(ids);
    const bytes = gold?.bytes ?? new Uint8Array(0);
    const offset = gold ? (k: number) => gold.offset(k) : () => undefined;
    const row = order ? (j: number) => order[j]! : (k: number) => k;
    const names = values ? Object.keys(values) : [];
    const columns = names.length ? { names, values: values!, row } : undefined;
    return order
      ? new ItemRecord(
          order.map((k) => ids[k]!),
          (j) => pass[order[j]!] === 1,
          { bytes, offset: (j) => offset(order[j]!) },
          columns,
        )
      : new ItemRecord(ids, (k) => pass[k] === 1, { bytes, offset }, columns);
  }

  static fromRecord(record: Record<string, ItemVerdict>): ItemRecord {
    const ids = Object.keys(record);
    return new ItemRecord(ids, (k) => record[ids[k]!]!.pass, { record });
  }

  private goldAt(k: number): string | undefined {
    if ('record' in this.gold) return this.gold.record[this.ids[k]!]!.gold;
    const at = this.gold.offset(k);
    return at === undefined
      ? undefined
      : Buffer.from(this.gold.bytes.subarray(at, at + GOLD_BYTES)).toString('hex');
  }

  private valuesAt(k: number): Record<string, number> | undefined {
    if ('record' in this.gold) return this.gold.record[this.ids[k]!]!.values;
    if (!this.columns) return undefined;
    const { names, values, row } = this.columns;
    let out: Record<string, number> | undefined;
    for (const name of names) {
      const v = values[name]![row(k)]!;
      if (!Number.isNaN(v)) (out ??= {})[name] = v;
    }
    return out;
  }

  private at(k: number): ItemVerdict {
    const gold = this.goldAt(k);
    const values = this.valuesAt(k);
    return {
      pass: this.passAt(k),
      ...(gold === undefined ? {} : { gold }),
      ...(values === undefined ? {} : { values }),
    };
  }

  /** Item `id`'s value of metric `name`; undefined when the item or its value is not in the record. */
  value(id: string, name: string): number | undefined {
    if ('record' in this.gold) {
      const { record } = this.gold;
      return Object.hasOwn(record, id) ? record[id]!.values?.[name] : undefined;
    }
    const k = this.indexOf(id);
    const column = this.columns?.values[name];
    if (k === undefined || !column) return undefined;
    const v = column[this.columns!.row(k)]!;
    return Number.isNaN(v) ? undefined : v;
  }

  get size(): number {
    return this.ids.length;
  }

  get(id: string): ItemVerdict | undefined {
    if ('record' in this.gold) {
      const { record } = this.gold;
      return Object.hasOwn(record, id) ? record[id] : undefined;
    }
    const k = this.indexOf(id);
    return k === undefined ? undefined : this.at(k);
  }

  has(id: string): boolean {
    return 'record' in this.gold ? Object.hasOwn(this.gold.record, id) : this.indexOf(id) !== undefined;
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

  /** The record as JSON.stringify(…, null, 2) writes it at `indent`, from bytes made once for every item. */
  writeJson(indent: string, out: JsonBytes): void {
    const n = this.ids.length;
    if (n === 0) return out.text('{}');
    const inner = `${indent}  `;
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    const first = bytes(`{\n${inner}`);
    const next = bytes(`,\n${inner}`);
    const pass = bytes(`: {\n${inner}  "pass": `);
    const yes = bytes('true');
    const no = bytes('false');
    const gold = bytes(`,\n${inner}  "gold": `);
    const close = bytes(`\n${inner}}`);
    const columns = 'record' in this.gold ? undefined : this.gold;
    const valuesOpen = bytes(`,\n${inner}  "values": {`);
    for (let k = 0; k < n; k++) {
      out.raw(k ? next : first);
      out.string(this.ids[k]!);
      out.raw(pass);
      out.raw(this.passAt(k) ? yes : no);
      if (columns) {
        const at = columns.offset(k);
        if (at !== undefined) {
          out.raw(gold);
          out.hex(columns.bytes, at, GOLD_BYTES);
        }
      } else {
        const g = this.goldAt(k);
        if (g !== undefined) {
          out.raw(gold);
          out.string(g);
        }
      }
      const values = this.valuesAt(k);
      if (values) {
        out.raw(valuesOpen);
        let first = true;
        for (const [name, v] of Object.entries(values)) {
          out.text(`${first ? '' : ','}\n${inner}    `);
          out.string(name);
          out.text(`: ${JSON.stringify(v)}`);
          first = false;
        }
        out.text(`\n${inner}  }`);
      }
      out.raw(close);
    }
    out.text(`\n${indent}}`);
  }

  /** The record itself, for JSON.stringify: what report.json holds. */
  toJSON(): Record<string, ItemVerdict> {
    if ('record' in this.gold) return this.gold.record;
    // No prototype: an item "__proto__" is a member like any other, as members() writes it.
    const out = Object.create(null) as Record<string, ItemVerdict>;
    for (let k = 0; k < this.ids.length; k++) out[this.ids[k]!] = this.at(k);
    return out;
  }
}

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
