import { JsonBytes } from './json-bytes.js';

/**
 * JSON.stringify(value, null, 2) as UTF-8, the same bytes, handed to `emit` in pieces of at most `pieceSize`
 * bytes (a longer string in one of its own), each valid during the call only: a report with a 200k-item map is written without
 * ever being one 20 MB string (and without the stringifier's working copies of it, which grew the heap by
 * over 100 MB at the end of a large run). For plain data, as reports are, and ObjectMembers: no other
 * toJSON, no BigInt. Primitives and keys go through JSON.stringify itself, so escaping and number
 * formatting are its own.
 */
export function stringifyInPieces(
  value: unknown,
  emit: (piece: Uint8Array) => void,
  pieceSize = 1 << 16,
): void {
  const out = new JsonBytes(emit, pieceSize);
  const write = (v: unknown, indent: string): void => {
    if (v === null || typeof v !== 'object') {
      out.text(JSON.stringify(v) ?? 'null');
      return;
    }
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return out.text('[]');
      for (let i = 0; i < v.length; i++) {
        out.text(i === 0 ? `[\n${inner}` : `,\n${inner}`);
        // As JSON.stringify does: what has no JSON form is null in an array, left out of an object.
        if (omitted(v[i])) out.text('null');
        else write(v[i], inner);
      }
      return out.text(`\n${indent}]`);
    }
    if (isObjectMembers(v) && v.writeJson) return v.writeJson(indent, out);
    let first = true;
    const members = isObjectMembers(v) ? v.members() : Object.entries(v as Record<string, unknown>).values();
    for (const [key, member] of members) {
      if (omitted(member)) continue;
      out.text(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      write(member, inner);
    }
    out.text(first ? '{}' : `\n${indent}}`);
  };
  write(value, '');
  out.flush();
}

/**
 * An object too large to hold built, as ItemRecord: JSON.stringify writes its toJSON(), stringifyInPieces
 * its members() (and holdsMoreThan counts them), the same [key, value] pairs in the same order, built one
 * at a time.
 */
export interface ObjectMembers {
  toJSON(): object;
  members(): Iterable<[string, unknown]>;
  /** Its text at `indent`, as JSON.stringify(…, null, 2) writes it, by a writer that knows its shape. */
  writeJson?(indent: string, out: JsonBytes): void;
  /** How many members it has, if known: holdsMoreThan need not make them to count past a large one. */
  readonly size?: number;
}

const isObjectMembers = (v: object): v is ObjectMembers =>
  typeof (v as Partial<ObjectMembers>).members === 'function' &&
  typeof (v as Partial<ObjectMembers>).toJSON === 'function';

const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * Whether `value` holds more than `limit` values (itself, members, elements, at any depth). It stops
 * counting once past the limit, so asking costs at most `limit` steps.
 */
export function holdsMoreThan(value: unknown, limit: number): boolean {
  let count = 0;
  const visit = (v: unknown): boolean => {
    if (++count > limit) return true;
    if (v === null || typeof v !== 'object') return false;
    if (isObjectMembers(v)) {
      // Each member is a value at least.
      if (v.size !== undefined && count + v.size > limit) return true;
      for (const [, member] of v.members()) if (visit(member)) return true;
      return false;
    }
    for (const member of Array.isArray(v) ? v : Object.values(v)) if (visit(member)) return true;
    return false;
  };
  return visit(value);
}
