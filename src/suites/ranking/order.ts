/**
 * Byte order of the UTF-8 encodings, which is what trec_eval's strcmp compares, without encoding. UTF-16
 * code-unit order agrees with it except that surrogates (code points ≥ U+10000) sort below U+E000–U+FFFF;
 * moving them above fixes that.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The ranking trec_eval scores: score descending, then docid descending in byte order (its comp_sim_docno).
 * Returns indices into the inputs, best first.
 */
export function rankByScore(docids: readonly string[], scores: readonly number[]): number[] {
  const order = docids.map((_, i) => i);
  return order.sort((i, j) => {
    const a = scores[i]!;
    const b = scores[j]!;
    if (a !== b) return a > b ? -1 : 1;
    return compareUtf8(docids[j]!, docids[i]!);
  });
}
