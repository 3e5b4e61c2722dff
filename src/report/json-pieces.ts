/**
 * JSON.stringify(value, null, 2), the same bytes, handed to `emit` in pieces of about `pieceSize`
 * characters: a report with a 200k-item map is written without ever being one 20 MB string (and without
 * the stringifier's working copies of it, which grew the heap by over 100 MB at the end of a large run).
 * For plain data, as reports are, and ObjectMembers: no other toJSON, no BigInt. Primitives and keys go
 * through JSON.stringify itself, so escaping and number formatting are its own.
 */
export function stringifyInPieces(value: unknown, emit: (piece: string) => void, pieceSize = 1 << 16): void {
  let out = '';
  const put = (s: string) => {
    out += s;
    if (out.length >= pieceSize) {
      emit(out);
      out = '';
    }
  };
  const write = (v: unknown, indent: string): void => {
    if (v === null || typeof v !== 'object') {
      put(JSON.stringify(v) ?? 'null');
      return;
    }
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return put('[]');
      for (let i = 0; i < v.length; i++) {
        put(i === 0 ? `[\n${inner}` : `,\n${inner}`);
        // As JSON.stringify does: what has no JSON form is null in an array, left out of an object.
        if (omitted(v[i])) put('null');
        else write(v[i], inner);
      }
      return put(`\n${indent}]`);
    }
    if (isObjectMembers(v) && v.writeJson) return v.writeJson(indent, put);
    let first = true;
    const members = isObjectMembers(v) ? v.members() : Object.entries(v as Record<string, unknown>).values();
    for (const [key, member] of members) {
      if (omitted(member)) continue;
      put(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      write(member, inner);
    }
    put(first ? '{}' : `\n${indent}}`);
  };
  write(value, '');
  if (out) emit(out);
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
  writeJson?(indent: string, put: (text: string) => void): void;
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
