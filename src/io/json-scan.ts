// JSON syntax checked on UTF-8 bytes, building only the values asked for: a loader that needs two fields
// of a million lines checks each line here and builds those two, at about four times the speed of decoding
// and JSON.parse-ing it, and without JSON.parse interning every short string it meets. Every function takes
// the bytes `b` and an end `e` it never reads at or past, and returns the position after what it matched,
// or -1 where the text is not JSON. It is never more lenient than JSON.parse; the callers hand any line it
// refuses to JSON.parse, which says what is wrong (and the few lines refused only for being unusual, such
// as very deep nesting, then load the slow way).

/** Deeper values are refused here (JSON.parse takes them). */
export const MAX_DEPTH = 64;

export function skipSpace(b: Uint8Array, i: number, e: number): number {
  while (i < e) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** A string starting at b[i] (which must be `"`). */
export function skipString(b: Uint8Array, i: number, e: number): number {
  if (i >= e || b[i] !== 0x22) return -1;
  i++;
  while (i < e) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      if (i + 1 >= e) return -1;
      const d = b[i + 1]!;
      if (d === 0x75) {
        if (i + 5 >= e) return -1;
        for (let k = i + 2; k < i + 6; k++) if (!isHex(b[k]!)) return -1;
        i += 6;
      } else if (
        d === 0x22 ||
        d === 0x5c ||
        d === 0x2f ||
        d === 0x62 ||
        d === 0x66 ||
        d === 0x6e ||
        d === 0x72 ||
        d === 0x74
      ) {
        i += 2;
      } else {
        return -1;
      }
    } else if (c < 0x20) {
      return -1;
    } else {
      i++;
    }
  }
  return -1;
}

/** A string of at least one character, as ids must be: `""` gets -1. */
export function skipNonEmptyString(b: Uint8Array, i: number, e: number): number {
  const end = skipString(b, i, e);
  return end - i > 2 ? end : -1;
}

/** `true` or `false` at b[i], as a boolean field must be (`null` gets -1). */
export function skipBoolean(b: Uint8Array, i: number, e: number): number {
  return b[i] === 0x74 || b[i] === 0x66 ? skipLiteral(b, i, e) : -1;
}

/** A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
export function skipNumber(b: Uint8Array, i: number, e: number): number {
  if (i < e && b[i] === 0x2d) i++;
  if (i >= e) return -1;
  if (b[i] === 0x30) i++;
  else if (isDigit(b[i]!)) i = skipDigits(b, i, e);
  else return -1;
  if (i < e && b[i] === 0x2e) {
    if (i + 1 >= e || !isDigit(b[i + 1]!)) return -1;
    i = skipDigits(b, i + 1, e);
  }
  if (i < e && (b[i]! | 0x20) === 0x65) {
    i++;
    if (i < e && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= e || !isDigit(b[i]!)) return -1;
    i = skipDigits(b, i, e);
  }
  return i;
}

/** `true`, `false` or `null` at b[i]. */
export function skipLiteral(b: Uint8Array, i: number, e: number): number {
  const word = b[i] === 0x74 ? TRUE : b[i] === 0x66 ? FALSE : b[i] === 0x6e ? NULL : undefined;
  if (!word || i + word.length > e) return -1;
  for (let k = 1; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
  return i + word.length;
}

/** Any value at b[i] (no leading space). */
export function skipValue(b: Uint8Array, i: number, e: number, depth = 0): number {
  if (i >= e) return -1;
  const c = b[i]!;
  if (c === 0x22) return skipString(b, i, e);
  if (c === 0x7b) return skipObject(b, i, e, depth);
  if (c === 0x5b) return skipArray(b, i, e, depth, skipValue);
  if (c === 0x2d || isDigit(c)) return skipNumber(b, i, e);
  return skipLiteral(b, i, e);
}

function skipObject(b: Uint8Array, i: number, e: number, depth: number): number {
  return depth >= MAX_DEPTH ? -1 : scanMembers(b, i, e, depth + 1, skipMember);
}

const skipMember = (b: Uint8Array, _k: number, v: number, e: number, depth: number) =>
  skipValue(b, v, e, depth);

/**
 * The members of the object at b[i] (which must be `{`): `member(b, k, v, e, state)` is called with where
 * each key and its value start, and returns where the value ends, or -1 to refuse it. Returns the position
 * after the closing `}`, or -1 where the text is not JSON or a member was refused.
 */
export function scanMembers<B extends Uint8Array, S>(
  b: B,
  i: number,
  e: number,
  state: S,
  member: (b: B, k: number, v: number, e: number, state: S) => number,
): number {
  if (i >= e || b[i] !== 0x7b) return -1;
  i = skipSpace(b, i + 1, e);
  if (i < e && b[i] === 0x7d) return i + 1;
  for (;;) {
    const v = memberValue(b, i, e);
    if (v < 0 || v >= e) return -1;
    i = member(b, i, v, e, state);
    if (i < 0) return -1;
    i = skipSpace(b, i, e);
    if (i >= e) return -1;
    if (b[i] === 0x7d) return i + 1;
    if (b[i] !== 0x2c) return -1;
    i = skipSpace(b, i + 1, e);
  }
}

/**
 * The object at b[start, end) when it is all there is (space aside), walked as scanMembers does: true when
 * it is one JSON object and no member was refused. A JSON Lines line is read this way.
 */
export function scanLineObject<B extends Uint8Array, S>(
  b: B,
  start: number,
  end: number,
  state: S,
  member: (b: B, k: number, v: number, e: number, state: S) => number,
): boolean {
  const close = scanMembers(b, skipSpace(b, start, end), end, state, member);
  return close > 0 && skipSpace(b, close, end) === end;
}

/** An array at b[i] (which must be `[`) whose elements `element` skips (or reads), each at depth + 1. */
export function skipArray<B extends Uint8Array>(
  b: B,
  i: number,
  e: number,
  depth: number,
  element: (b: B, i: number, e: number, depth: number) => number,
): number {
  if (depth >= MAX_DEPTH) return -1;
  i = skipSpace(b, i + 1, e);
  if (i < e && b[i] === 0x5d) return i + 1;
  for (;;) {
    i = element(b, i, e, depth + 1);
    if (i < 0) return -1;
    i = skipSpace(b, i, e);
    if (i >= e) return -1;
    if (b[i] === 0x5d) return i + 1;
    if (b[i] !== 0x2c) return -1;
    i = skipSpace(b, i + 1, e);
  }
}

/**
 * Where the value of the object member whose key starts at b[k] starts: after the key, a colon and space.
 * A key written with escapes gets -1, as if it were not JSON: the name it means could be one a caller
 * looks for (see keyIs), so such a line is left to JSON.parse.
 */
export function memberValue(b: Uint8Array, k: number, e: number): number {
  const ke = skipString(b, k, e);
  if (ke < 0 || hasEscape(b, k + 1, ke - 1)) return -1;
  const i = skipSpace(b, ke, e);
  if (i >= e || b[i] !== 0x3a) return -1;
  return skipSpace(b, i + 1, e);
}

/** An array of strings at b[i]; -1 also when it is JSON of another shape (the schema then words the error). */
export function skipStringArray(b: Uint8Array, i: number, e: number): number {
  return i < e && b[i] === 0x5b ? skipArray(b, i, e, 0, skipString) : -1;
}

/** Any `\\` in the bytes [i, e). */
export function hasEscape(b: Uint8Array, i: number, e: number): boolean {
  for (; i < e; i++) if (b[i] === 0x5c) return true;
  return false;
}

/** The value of the string whose quotes are at b[i] and b[e - 1], as JSON.parse gives it. */
export function stringValue(b: Buffer, i: number, e: number): string {
  if (hasEscape(b, i + 1, e - 1)) return JSON.parse(b.toString('utf8', i, e)) as string;
  for (let k = i + 1; k < e - 1; k++) if (b[k]! >= 0x80) return b.toString('utf8', i + 1, e - 1);
  return b.toString('latin1', i + 1, e - 1);
}

/**
 * The strings of the array at b[i] that skipStringArray accepted; or the one string there, which a list that a
 * `fields:` mapping names may be (a list of it; "" is the empty list, as field-map.ts reads it).
 */
export function stringArrayValue(b: Buffer, i: number, e: number): string[] {
  if (b[i] === 0x22) {
    const one = stringValue(b, i, skipString(b, i, e));
    return one === '' ? [] : [one];
  }
  const out: string[] = [];
  skipArray(b, i, e, 0, (b, k, e) => {
    const end = skipString(b, k, e);
    out.push(stringValue(b, k, end));
    return end;
  });
  return out;
}

/** The key starting at b[k] (memberValue accepted it, so it has no escapes) is `name` (ASCII). */
export function keyIs(b: Uint8Array, k: number, name: Uint8Array): boolean {
  for (let j = 0; j < name.length; j++) if (b[k + 1 + j] !== name[j]) return false;
  return b[k + 1 + name.length] === 0x22;
}

export const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

const TRUE = ascii('true');
const FALSE = ascii('false');
const NULL = ascii('null');

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

function skipDigits(b: Uint8Array, i: number, e: number): number {
  while (i < e && isDigit(b[i]!)) i++;
  return i;
}

const ESCAPED: Record<number, number> = {
  0x22: 0x22,
  0x5c: 0x5c,
  0x2f: 0x2f,
  0x62: 8,
  0x66: 12,
  0x6e: 10,
  0x72: 13,
  0x74: 9,
};

/**
 * The UTF-8 bytes of the string whose quotes are at b[i] and b[e - 1] (skipString accepted it), decoded into
 * `out`: their length, or -1 when they do not fit or the string holds a lone surrogate (which has no UTF-8).
 * A JSON document kept in a string (an OTLP attribute's value) is then checked on these bytes, not parsed.
 */
export function unescapeInto(b: Uint8Array, i: number, e: number, out: Uint8Array): number {
  let n = 0;
  const last = e - 1;
  for (let k = i + 1; k < last;) {
    const c = b[k]!;
    if (c !== 0x5c) {
      if (n >= out.length) return -1;
      out[n++] = c;
      k++;
      continue;
    }
    const d = b[k + 1]!;
    if (d !== 0x75) {
      if (n >= out.length) return -1;
      out[n++] = ESCAPED[d]!;
      k += 2;
      continue;
    }
    let cp = hexValue(b, k + 2);
    k += 6;
    if (cp >= 0xdc00 && cp <= 0xdfff) return -1;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      const low = b[k] === 0x5c && b[k + 1] === 0x75 ? hexValue(b, k + 2) : -1;
      if (low < 0xdc00 || low > 0xdfff) return -1;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      k += 6;
    }
    if (n + 4 > out.length) return -1;
    if (cp < 0x80) out[n++] = cp;
    else if (cp < 0x800) {
      out[n++] = 0xc0 | (cp >> 6);
      out[n++] = 0x80 | (cp & 0x3f);
    } else if (cp < 0x10000) {
      out[n++] = 0xe0 | (cp >> 12);
      out[n++] = 0x80 | ((cp >> 6) & 0x3f);
      out[n++] = 0x80 | (cp & 0x3f);
    } else {
      out[n++] = 0xf0 | (cp >> 18);
      out[n++] = 0x80 | ((cp >> 12) & 0x3f);
      out[n++] = 0x80 | ((cp >> 6) & 0x3f);
      out[n++] = 0x80 | (cp & 0x3f);
    }
  }
  return n;
}

function hexValue(b: Uint8Array, i: number): number {
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    const c = b[k]! | 0x20;
    v = v * 16 + (c <= 0x39 ? c - 0x30 : c - 0x57);
  }
  return v;
}
