import {
  MAX_DEPTH,
  scanMembers,
  skipArray,
  skipLiteral,
  skipNumber,
  skipSpace,
  skipString,
  stringValue,
} from '../io/json-scan.js';

/**
 * Canonical JSON: object keys sorted by code unit at every depth, no insignificant whitespace. Two gold
 * lines that mean the same (reordered keys, other spacing) get the same bytes and so the same digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    // Arrays of plain values (ids, substrings) are already canonical: let the native stringifier do them.
    if (value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value);
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  // Default sort compares UTF-16 code units: the same order on every machine.
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out += `${i ? ',' : ''}${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}

/**
 * canonicalJson(JSON.parse(text)) for the JSON text at b[start, end), built from its bytes: JSON.parse
 * interns every string of ten characters or fewer, and a worker digesting 200k gold lines kept some 30 MB
 * of them while the engine judged. Undefined where the text is not JSON or is unusual (a key written with
 * escapes, very deep nesting): the caller parses it instead.
 */
export function canonicalJsonOfBytes(b: Buffer, start: number, end: number): string | undefined {
  const r: Reader = { text: '', at: 0 };
  const ok = canonicalValue(b, skipSpace(b, start, end), end, 0, r);
  return ok && skipSpace(b, r.at, end) === end ? r.text : undefined;
}

/** The canonical text of the last value read, and where it ended. */
interface Reader {
  text: string;
  at: number;
}

function canonicalValue(b: Buffer, i: number, end: number, depth: number, r: Reader): boolean {
  if (i >= end) return false;
  const c = b[i]!;
  let e: number;
  if (c === 0x22) {
    e = skipString(b, i, end);
    if (e >= 0) r.text = JSON.stringify(stringValue(b, i, e));
  } else if (c === 0x7b) {
    return canonicalObject(b, i, end, depth, r);
  } else if (c === 0x5b) {
    let out = '';
    e = skipArray(b, i, end, depth, (b, k, end, depth) => {
      if (!canonicalValue(b, k, end, depth, r)) return -1;
      out += out ? `,${r.text}` : r.text;
      return r.at;
    });
    r.text = `[${out}]`;
  } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    e = skipNumber(b, i, end);
    // JSON.parse reads a number as Number does; the canonical form is JSON.stringify's (1e999 is null).
    if (e >= 0) r.text = JSON.stringify(Number(b.toString('latin1', i, e)));
  } else {
    e = skipLiteral(b, i, end);
    if (e >= 0) r.text = b.toString('latin1', i, e);
  }
  r.at = e;
  return e >= 0;
}

function canonicalObject(b: Buffer, i: number, end: number, depth: number, r: Reader): boolean {
  if (depth >= MAX_DEPTH) return false;
  // A key given twice keeps its last value, as with JSON.parse.
  const members = new Map<string, string>();
  const e = scanMembers(b, i, end, r, (b, k, v, end, r) => {
    if (!canonicalValue(b, v, end, depth + 1, r)) return -1;
    members.set(stringValue(b, k, skipString(b, k, end)), r.text);
    return r.at;
  });
  let out = '';
  for (const key of [...members.keys()].sort()) out += `${out ? ',' : ''}${JSON.stringify(key)}:${members.get(key)}`;
  r.text = `{${out}}`;
  r.at = e;
  return e >= 0;
}
