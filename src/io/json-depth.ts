/**
 * How deep JSON values may nest. JSON.parse reads any depth, but what then walks a value recursively
 * (canonicalJson for a gold digest, JSON.stringify for a report, structured clone to a thread) runs out of
 * stack at a few thousand levels: a line of 100,000 `[` was an internal error. RFC 8259 lets a parser limit
 * nesting; no record groundgate reads needs more than a few levels (serde_json's default is 128).
 */
export const MAX_JSON_DEPTH = 512;

/**
 * The depth `text` nests to, if more than MAX_JSON_DEPTH; else undefined. Counted on the text (brackets
 * outside strings), before JSON.parse builds a value no recursive walk could finish: a text shorter than
 * the limit cannot reach it and is not looked at.
 */
export function excessDepth(text: string): number | undefined {
  if (text.length <= 2 * MAX_JSON_DEPTH) return undefined;
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: a backslash escapes the character after it.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest > MAX_JSON_DEPTH ? deepest : undefined;
}

/** The error's words, for every loader alike. */
export function tooDeep(depth: number): string {
  return `JSON nested ${depth} levels deep; expected at most ${MAX_JSON_DEPTH}`;
}
