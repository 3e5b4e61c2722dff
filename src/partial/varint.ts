/**
 * Columns of whole numbers as unsigned LEB128, a byte for each 7 bits: numbers mostly small (a gold item's
 * qid length, its place predicted from the item before it) take a byte or two each, where Float64 took eight
 * and deflate made a merge inflate 6 MB of them. A reader reads them one at a time, so that a column need
 * not become an array: fresh memory costs this machine about 4 ms a megabyte.
 */

/** `values`, each a safe integer ≥ 0, as varints. */
export function encodeVarints(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    let v = values[i]!;
    if (!Number.isSafeInteger(v) || v < 0)
      throw new Error(`varint: ${v} is not a whole number from 0 to 2^53`);
    while (v >= 128) {
      out[at++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    out[at++] = v;
  }
  return out.slice(0, at);
}

/** Varints read one at a time from `bytes`, from byte `pos`. */
export class VarintReader {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
  ) {}

  /** The next value; -1 when the bytes end first, or hold one past Number.MAX_SAFE_INTEGER. */
  next(): number {
    const bytes = this.bytes;
    if (this.pos >= bytes.length) return -1;
    let b = bytes[this.pos++]!;
    if (b < 128) return b;
    let v = b - 128;
    let scale = 128;
    do {
      // 8 bytes hold 56 bits: no safe integer needs a ninth.
      if (this.pos >= bytes.length || scale > 2 ** 49) return -1;
      b = bytes[this.pos++]!;
      v += (b & 127) * scale;
      scale *= 128;
    } while (b >= 128);
    return v > Number.MAX_SAFE_INTEGER ? -1 : v;
  }

  /** Every byte read. */
  get done(): boolean {
    return this.pos === this.bytes.length;
  }
}

/** A signed number as an unsigned one, small either side of 0: 0, -1, 1, -2 … as 0, 1, 2, 3 … */
export const zigzag = (v: number): number => (v >= 0 ? 2 * v : -2 * v - 1);

export const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
