import { isUtf8 } from 'node:buffer';
import { MAX_DEPTH, scanMembers, skipArray, skipLiteral, skipNumber, skipSpace } from '../io/json-scan.js';

// The canonical JSON of a gold line (see canonical.ts) as bytes, written straight from the line's own: a
// string without escapes is its canonical form already, as is a short integer and a literal, so most of a
// line is copied and only its objects' members are put in order. Digesting 100k gold lines took a helper
// 1.0-1.7 s of an OpenInference run while the main thread waited for it; building each line's canonical text
// (every string decoded, then stringified again) took 460-560 ms of that alone, these bytes 200-210 ms.

/** Integers of at most this many digits are exact as numbers, so written as they are. */
const EXACT_DIGITS = 15;

/**
 * Writes the canonical JSON of the JSON text at b[start, end) as UTF-8, the bytes of
 * canonicalJson(JSON.parse(text)), and gives them, valid until the next call; undefined where it is not
 * sure to (escapes in a string, keys beyond ASCII or given twice, invalid UTF-8, very deep nesting, text
 * that is not JSON): the caller then takes the longer way.
 */
export function canonicalBytesWriter(): (b: Buffer, start: number, end: number) => Buffer | undefined {
  let out = Buffer.allocUnsafe(1 << 16);
  let used = 0;
  /** An object's members as they are read, moved here to be written again in order. */
  let moved = Buffer.allocUnsafe(1 << 16);
  /** Per member of the objects being read: its key's place in the line, then its own in `out`. */
  const members: number[] = [];
  const order: number[] = [];
  let high = false;

  const room = (n: number) => {
    if (used + n <= out.length) return;
    const wider = Buffer.allocUnsafe(Math.max(2 * out.length, used + n));
    out.copy(wider, 0, 0, used);
    out = wider;
  };
  // A loop, not Buffer#copy: a native call cost more than the few bytes of a key or a value it moved.
  const copy = (from: Buffer, i: number, e: number) => {
    room(e - i);
    const o = out;
    let u = used;
    for (; i < e; i++) o[u++] = from[i]!;
    used = u;
  };
  const byte = (c: number) => {
    room(1);
    out[used++] = c;
  };

  /** A string with no escape and no control character: where it ends, or -1. */
  const plainString = (b: Buffer, i: number, e: number): number => {
    for (let k = i + 1; k < e; k++) {
      const c = b[k]!;
      if (c === 0x22) return k + 1;
      if (c === 0x5c || c < 0x20) return -1;
      if (c >= 0x80) high = true;
    }
    return -1;
  };

  const number = (b: Buffer, i: number, e: number): number => {
    const end = skipNumber(b, i, e);
    if (end < 0) return -1;
    const digits = b[i] === 0x2d ? end - i - 1 : end - i;
    let plain = digits <= EXACT_DIGITS && !(b[i] === 0x2d && b[i + 1] === 0x30);
    for (let k = end - digits; plain && k < end; k++) plain = b[k]! >= 0x30 && b[k]! <= 0x39;
    if (plain) copy(b, i, end);
    else {
      // JSON.parse reads a number as Number does; its canonical form is JSON.stringify's (1e999 is null).
      const text = JSON.stringify(Number(b.toString('latin1', i, end)));
      room(text.length);
      used += out.write(text, used, 'latin1');
    }
    return end;
  };

  const element = (b: Buffer, k: number, e: number, depth: number): number => {
    if (out[used - 1] !== 0x5b) byte(0x2c);
    return value(b, k, e, depth);
  };

  const value = (b: Buffer, i: number, e: number, depth: number): number => {
    if (i >= e) return -1;
    const c = b[i]!;
    if (c === 0x22) {
      const end = plainString(b, i, e);
      if (end > 0) copy(b, i, end);
      return end;
    }
    if (c === 0x7b) return object(b, i, e, depth);
    if (c === 0x5b) {
      byte(0x5b);
      const end = skipArray(b, i, e, depth, element);
      byte(0x5d);
      return end;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number(b, i, e);
    const end = skipLiteral(b, i, e);
    if (end > 0) copy(b, i, end);
    return end;
  };

  /** Keys to compare as bytes: ASCII without escapes, whose byte order is their code units'. */
  const asciiKey = (b: Buffer, k: number, e: number): number => {
    for (let j = k + 1; j < e; j++) {
      const c = b[j]!;
      if (c === 0x22) return j + 1;
      if (c === 0x5c || c < 0x20 || c >= 0x80) return -1;
    }
    return -1;
  };

  /** The order of members x and y (indexes into `members`) by key. */
  const keyOrder = (b: Buffer, x: number, y: number): number => {
    const a0 = members[x]!;
    const b0 = members[y]!;
    const an = members[x + 1]! - a0;
    const bn = members[y + 1]! - b0;
    const n = Math.min(an, bn);
    for (let j = 0; j < n; j++) if (b[a0 + j] !== b[b0 + j]) return b[a0 + j]! - b[b0 + j]!;
    return an - bn;
  };

  /** Reads the object at b[i] member by member as it is, then writes its members again by key if need be. */
  const object = (b: Buffer, i: number, e: number, depth: number): number => {
    if (depth >= MAX_DEPTH) return -1;
    const first = members.length;
    let sorted = true;
    byte(0x7b);
    const end = scanMembers(b, i, e, null, (b, k, v, e) => {
      const keyEnd = asciiKey(b, k, e);
      if (keyEnd < 0) return -1;
      const n = members.length;
      if (n > first) byte(0x2c);
      const at = used;
      copy(b, k, keyEnd);
      byte(0x3a);
      const valueEnd = value(b, v, e, depth + 1);
      if (valueEnd < 0) return -1;
      members.push(k, keyEnd, at, used);
      if (n > first) {
        const o = keyOrder(b, n - 4, n);
        if (o === 0) return -1; // a key given twice: JSON.parse keeps the last
        if (o > 0) sorted = false;
      }
      return valueEnd;
    });
    if (end < 0) return -1;
    if (!sorted && !reorder(b, first)) return -1;
    members.length = first;
    byte(0x7d);
    return end;
  };

  /** Writes the members of the object being read (from `first` in `members`) again, by key. */
  const reorder = (b: Buffer, first: number): boolean => {
    order.length = 0;
    // Insertion sort: an object has few members.
    for (let m = first; m < members.length; m += 4) {
      let j = order.length;
      order.push(m);
      for (; j > 0 && keyOrder(b, order[j - 1]!, m) > 0; j--) order[j] = order[j - 1]!;
      order[j] = m;
    }
    for (let j = 1; j < order.length; j++) if (keyOrder(b, order[j - 1]!, order[j]!) === 0) return false;
    const from = members[first + 2]!;
    const n = used - from;
    if (moved.length < n) moved = Buffer.allocUnsafe(2 * n);
    out.copy(moved, 0, from, used);
    used = from;
    for (let j = 0; j < order.length; j++) {
      if (j > 0) byte(0x2c);
      const m = order[j]!;
      copy(moved, members[m + 2]! - from, members[m + 3]! - from);
    }
    return true;
  };

  return (b, start, end) => {
    used = 0;
    high = false;
    members.length = 0;
    const at = value(b, skipSpace(b, start, end), end, 0);
    if (at < 0 || skipSpace(b, at, end) !== end) return undefined;
    // Bytes that are not UTF-8 decode to U+FFFD, which a copy would not have.
    if (high && !isUtf8(b.subarray(start, end))) return undefined;
    return out.subarray(0, used);
  };
}
