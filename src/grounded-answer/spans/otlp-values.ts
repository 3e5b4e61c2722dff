import { keyIs, scanMembers, skipString, skipValue, stringValue } from '../../io/json-scan.js';
import { doubleValueOf, intValueOf } from './span-values.js';

// OTLP's JSON values read on their bytes, for the scanner of spans (otlp-scan.ts): an attribute
// `{"key":…,"value":…}`, its AnyValue, and the digits of indexes and nanoseconds. Each reads only what an
// exporter writes plainly and refuses the rest, which the caller then parses.

export const ascii = (s: string) => Buffer.from(s, 'latin1');
export const STRING_VALUE = ascii('stringValue');
export const BOOL_VALUE = ascii('boolValue');
export const INT_VALUE = ascii('intValue');
export const DOUBLE_VALUE = ascii('doubleValue');
export const REFUSED = Symbol('refused');
export const ANY_VALUE_KEYS = [
  STRING_VALUE,
  BOOL_VALUE,
  INT_VALUE,
  DOUBLE_VALUE,
  ascii('arrayValue'),
  ascii('kvlistValue'),
];
export const STRING_VALUE_OPEN = ascii('{"stringValue":');
/** State.stringEnd before it is known. */
export const UNKNOWN = -2;
export const KEY_OPEN = ascii('{"key":');
export const VALUE_NEXT = ascii(',"value":');

/** Where an attribute's key and value are, as plainAttribute and the scanner find them. */
export interface AttributeAt {
  keyAt: number;
  keyEnd: number;
  valueAt: number;
  valueEnd: number;
  /** Where the string of a `{"stringValue":"…"}` value at valueAt ends; -1 for another value, or UNKNOWN. */
  stringEnd: number;
}

/** b[at, at + name.length) is `name`, within e. (A loop: Buffer.compare's native call cost more on short keys.) */
export function bytesAre(b: Buffer, at: number, e: number, name: Uint8Array): boolean {
  if (at < 0 || at + name.length > e) return false;
  for (let j = 0; j < name.length; j++) if (b[at + j] !== name[j]) return false;
  return true;
}

/** The number the ASCII digits b[i, e) spell, or -1 when there are none or something else is among them. */
export function digitsValue(b: Buffer, i: number, e: number): number {
  if (i >= e) return -1;
  let n = 0;
  for (; i < e; i++) {
    const c = b[i]! - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * nanosToMs of the string of digits b[i, e) without making it: the same sum of the same two exact parts,
 * when the part above the last six digits is exact as a number (undefined otherwise: the caller then decodes).
 */
export function nanosToMsAt(b: Buffer, i: number, e: number): number | undefined {
  const cut = Math.max(i, e - 6);
  if (cut - i > 15) return undefined;
  const high = cut > i ? digitsValue(b, i, cut) : 0;
  const low = digitsValue(b, cut, e);
  return high < 0 || low < 0 ? undefined : high + low / 1e6;
}

/** A JSON number's value, or a JSON string's, at b[x, end). */
export const numberOrText = (b: Buffer, x: number, end: number): unknown =>
  b[x] === 0x22 ? stringValue(b, x, end) : Number(b.toString('latin1', x, end));

/**
 * An AnyValue of one member, {"stringValue": "…"}, {"intValue": "42"}, {"boolValue": true} or
 * {"doubleValue": 1.5}, as openinference.ts reads it (undefined for a member it does not know; an intValue
 * as its digits `asText`); REFUSED for any other, and for a number that is none (the line is then parsed,
 * and the error worded there).
 */
export function anyValue(b: Buffer, v: number, e: number, asText: boolean): unknown {
  let out: unknown = REFUSED;
  let members = 0;
  const close = scanMembers(b, v, e, null, (b, k, x, e) => {
    members++;
    const c = b[x]!;
    const end = skipValue(b, x, e, 4);
    if (end < 0) return -1;
    if (keyIs(b, k, STRING_VALUE) && c === 0x22) out = stringValue(b, x, end);
    else if (keyIs(b, k, BOOL_VALUE) && (c === 0x74 || c === 0x66)) out = c === 0x74;
    else if (keyIs(b, k, INT_VALUE) || keyIs(b, k, DOUBLE_VALUE)) {
      const found = c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39) ? numberOrText(b, x, end) : null;
      out = keyIs(b, k, INT_VALUE) ? intValueOf(found, asText) : doubleValueOf(found);
      if (out === undefined) return -1;
    } else if (!ANY_VALUE_KEYS.some((name) => keyIs(b, k, name))) out = undefined; // no value it knows
    return end;
  });
  return close < 0 || members !== 1 ? REFUSED : out;
}

/** Where the string of `{"stringValue":"…"}` at b[v, e) ends, as exporters write it; -1 for any other value. */
export function plainString(b: Buffer, v: number, e: number): number {
  if (!bytesAre(b, v, e, STRING_VALUE_OPEN)) return -1;
  const end = skipString(b, v + STRING_VALUE_OPEN.length, e);
  return end > 0 && end + 1 === e && b[end] === 0x7d ? end : -1;
}

/**
 * `{"key":"…","value":{…}}` with nothing else, no space and no escape in the key, as exporters write it:
 * its end, or -1. A `{"stringValue":"…"}` value's string is found on the way.
 */
export function plainAttribute(b: Buffer, i: number, e: number, s: AttributeAt): number {
  if (!bytesAre(b, i, e, KEY_OPEN)) return -1;
  const keyAt = i + KEY_OPEN.length;
  if (b[keyAt] !== 0x22) return -1;
  let keyEnd = keyAt + 1;
  for (; keyEnd < e; keyEnd++) {
    const c = b[keyEnd]!;
    if (c === 0x22) break;
    if (c === 0x5c || c < 0x20) return -1;
  }
  keyEnd++;
  if (keyEnd > e || !bytesAre(b, keyEnd, e, VALUE_NEXT)) return -1;
  const valueAt = keyEnd + VALUE_NEXT.length;
  let valueEnd: number;
  if (bytesAre(b, valueAt, e, STRING_VALUE_OPEN)) {
    const end = skipString(b, valueAt + STRING_VALUE_OPEN.length, e);
    if (end < 0 || b[end] !== 0x7d) return -1;
    s.stringEnd = end;
    valueEnd = end + 1;
  } else {
    s.stringEnd = -1;
    valueEnd = skipValue(b, valueAt, e, 3);
    if (valueEnd < 0) return -1;
  }
  if (b[valueEnd] !== 0x7d) return -1;
  s.keyAt = keyAt;
  s.keyEnd = keyEnd;
  s.valueAt = valueAt;
  s.valueEnd = valueEnd;
  return valueEnd + 1;
}
