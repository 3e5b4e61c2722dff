import type { LineRef } from '../../io/jsonl.js';
import type { GoldItem } from './contract.js';

/**
 * A gold item held compactly: its three lists of strings in one string, each entry led by its length in
 * two UTF-16 units, and its line reference as plain numbers. 200k items as objects with three arrays and a
 * line reference each held 93 MB; the lists are rebuilt when asked for, which judging does once per item.
 */
export class PackedGoldItem implements GoldItem {
  private readonly packed: string;
  // Three fields rather than an array: an array is another object per item.
  private readonly substringCount: number;
  private readonly citationCount: number;
  private readonly constraintCount: number;

  constructor(
    readonly qid: string,
    readonly answerable: boolean,
    claimSubstrings: readonly string[],
    citations: readonly string[],
    constraints: readonly string[],
    private readonly file: string,
    private readonly line: number,
    private readonly offset: number,
    private readonly length: number,
  ) {
    const parts: string[] = [];
    for (const list of [claimSubstrings, citations, constraints])
      for (const s of list) parts.push(String.fromCharCode(s.length >>> 16, s.length & 0xffff), s);
    // join() makes one flat string: the entries' own strings can then be collected.
    this.packed = parts.join('');
    this.substringCount = claimSubstrings.length;
    this.citationCount = citations.length;
    this.constraintCount = constraints.length;
  }

  get claimSubstrings(): string[] {
    return this.list(0);
  }

  get citations(): string[] {
    return this.list(1);
  }

  get constraints(): string[] {
    return this.list(2);
  }

  get source(): LineRef {
    return { file: this.file, line: this.line, offset: this.offset, length: this.length };
  }

  private list(which: 0 | 1 | 2): string[] {
    const counts = [this.substringCount, this.citationCount, this.constraintCount];
    const out: string[] = [];
    let at = 0;
    for (let k = 0; k <= which; k++) {
      for (let n = 0; n < counts[k]!; n++) {
        const len = this.packed.charCodeAt(at) * 0x10000 + this.packed.charCodeAt(at + 1);
        if (k === which) out.push(this.packed.slice(at + 2, at + 2 + len));
        at += 2 + len;
      }
    }
    return out;
  }
}
