import { isNumberToken } from './numbers.js';
import { NEGATION_WINDOW, negatesAt } from './negation.js';
import { normalize, prepare, tokensAt, type NormalizeOptions } from './normalize.js';
import { containsWhere, containsWord, isShort } from '../grounded-answer/containment.js';

/**
 * Normalized matching (`claims: {match: normalized}`, docs/metrics.md "Claims"): a gold fact is contained in a
 * claim when its tokens (see normalize.ts) appear in the claim in order, at most MAX_GAP claim tokens between
 * two of them, with no negation between them or in the NEGATION_WINDOW tokens before the first.
 * `min_token_recall` below 1 lets some of the fact's tokens be missing (each may stand in for one claim token).
 */
export interface NormalizedRule extends NormalizeOptions {
  /** The share of a fact's tokens that must be found, in (0, 1]. */
  minTokenRecall: number;
}

/** Claim tokens allowed between two matched ones ("encrypted at rest" in "encrypted fully at rest"). */
export const MAX_GAP = 2;

/** A gold fact's tokens as its claims are matched against them: plain data, made once per item. */
export const normalizeFact = (fact: string, rule: NormalizeOptions): string[] => normalize(fact, rule);

/** A claim's tokens, made once per run, then matched against each fact. */
export const normalizeClaim = (claim: string, rule: NormalizeOptions): string[] => normalize(claim, rule);

/** A claim token stands for a fact token when equal, or a quantity of the fact's bare number (`2` in `2 gb`). */
function same(claim: string, fact: string): boolean {
  if (claim === fact) return true;
  return (
    isNumberToken(fact) &&
    claim.length > fact.length &&
    claim.charCodeAt(fact.length) === 0x20 &&
    claim.startsWith(fact) &&
    !fact.includes(' ')
  );
}

/**
 * The substring rule (C, containment.ts) as normalized matching applies it: a gold substring found in the
 * claim counts only at a place that passes the normalized rule's checks, so that `12 GB per export` does not
 * contain `2 GB per export` nor `it is not 2 GB` contain `2 GB`. The place must start and end outside every
 * number of the claim (a number with its sign, fraction, magnitude and unit: `-2GB`, `1/2 GB`, `C$20`; it may
 * end between a number and its unit, as a bare number stands for a quantity), read the same numbers and units
 * as the substring (`100 Mb` is not `100 MB`), and follow no negation among the NEGATION_WINDOW claim tokens
 * before it. Read on the claim as normalize.ts prepares it; a claim whose lowercase is not as long (`İ`) has
 * no such place.
 */
export function containsChecked(claim: string, facts: readonly string[], rule: NormalizeOptions): boolean {
  const text = prepare(claim, rule);
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return false;
  let read: { tokens: string[]; spans: number[] } | undefined;
  for (const fact of facts) {
    // As the substring rule reads it (containment.ts): a short one trimmed and as a whole word.
    const short = isShort(fact);
    const part = (short ? fact.trim() : fact).toLowerCase();
    let numbers: string[] | undefined;
    const passes = (at: number) => {
      read ??= tokensAt(text);
      // The fact's numbers as written: `100 Mb` is bits and `C$20` Canadian, whatever the claim's case.
      numbers ??= normalize(fact, rule).filter(isNumberToken);
      const found = numbersAt(read.tokens, read.spans, at, at + part.length);
      return (
        found !== undefined && found.length === numbers.length && found.every((t, k) => t === numbers![k])
      );
    };
    if (short ? containsWord(lower, part, passes) : containsWhere(lower, part, passes)) return true;
  }
  return false;
}

/**
 * The numbers (with their units) a claim reads at [start, end), a number cut off from its unit at the end
 * bare; undefined when the place cuts a number or follows a negation (see containsChecked).
 */
function numbersAt(tokens: readonly string[], spans: readonly number[], start: number, end: number) {
  const numbers: string[] = [];
  let first = 0;
  for (let i = 0; i < tokens.length; i++) {
    const from = spans[3 * i]!;
    const numeralEnd = spans[3 * i + 1]!;
    const to = spans[3 * i + 2]!;
    if (to <= start) first = i + 1;
    const token = tokens[i]!;
    if (!isNumberToken(token) || to <= start || from >= end) continue;
    if (from < start) return undefined;
    if (to <= end) numbers.push(token);
    else if (end === numeralEnd) numbers.push(token.slice(0, token.indexOf(' ')));
    else return undefined;
  }
  for (let i = Math.max(0, first - NEGATION_WINDOW); i < first; i++)
    if (negatesAt(tokens, i)) return undefined;
  return numbers;
}

/** Whether a claim (tokens) contains a gold fact (tokens) by the normalized rule. */
export function containsNormalized(
  claim: readonly string[],
  fact: readonly string[],
  rule: Pick<NormalizedRule, 'minTokenRecall'>,
): boolean {
  if (fact.length === 0 || claim.length === 0) return false;
  // A tolerance of 1e-9 keeps 0.75 of 4 tokens at 3 despite binary fractions.
  const need = Math.max(1, Math.ceil(rule.minTokenRecall * fact.length - 1e-9));
  return chainReaches(claim, fact, need);
}

/**
 * Whether some chain of matches reaches `need` found tokens. A chain is fact token k found at claim token `at`,
 * then k' > k at `at'` > `at` with at most MAX_GAP + (k' - k - 1) claim tokens and no negation between them.
 * Tokens skipped before, between and after need no counting: a chain of `need` found tokens skips at most
 * n - need. So the longest chain ending at each (k, at) is all that is kept, swept over the claim once.
 *
 * The gap bound is (at' - k') - (at - k) <= MAX_GAP: a chain may step down its diagonal (at - k) freely and up
 * by MAX_GAP at most. A step from a claim token more than MAX_GAP back implies k < k', so those are one
 * "longest chain on a diagonal >= d" query (a Fenwick tree of maxima over diagonals); a step from the MAX_GAP
 * tokens just before is any k < k' (a running maximum down the column). A negation cuts every chain across
 * it: the tree is emptied. Time O(n·m + found·log(n + m)) for n fact and m claim tokens, memory O(n + m).
 */
function chainReaches(claim: readonly string[], fact: readonly string[], need: number): boolean {
  const n = fact.length;
  const m = claim.length;
  const far = new Diagonals(m + n - 1);
  // The longest chains ending in the last MAX_GAP + 1 claim tokens, by fact token: column `at` is at % length.
  const columns = Array.from({ length: MAX_GAP + 1 }, () => new Int32Array(n));
  // The last negation before `at`: no chain crosses it, and none starts within NEGATION_WINDOW after it.
  let cut = -NEGATION_WINDOW - 1;
  for (let at = 0; at < m; at++) {
    if (at > 0 && negatesAt(claim, at - 1)) {
      cut = at - 1;
      far.clear();
    }
    // The column MAX_GAP + 1 back leaves the near ones for the tree (and is overwritten below).
    const leaving = at - MAX_GAP - 1;
    const column = columns[(at + MAX_GAP + 1) % columns.length]!;
    if (leaving >= cut && leaving >= 0)
      for (let k = 0; k < n; k++) if (column[k]! > 0) far.raise(m - 1 - (leaving - k), column[k]!);
    const starts = cut < at - NEGATION_WINDOW;
    let near = 0;
    for (let k = 0; k < n; k++) {
      if (k > 0)
        for (let back = 1; back <= MAX_GAP && at - back >= cut && at - back >= 0; back++)
          near = Math.max(near, columns[(at - back) % columns.length]![k - 1]!);
      let longest = 0;
      if (same(claim[at]!, fact[k]!)) {
        // Diagonals from at - k - MAX_GAP up: tree index m - 1 - d, so d >= at - k - MAX_GAP is a prefix.
        const before = Math.max(near, far.upTo(m - 1 - (at - k - MAX_GAP)));
        longest = before > 0 ? before + 1 : starts ? 1 : 0;
        if (longest >= need) return true;
      }
      column[k] = longest;
    }
  }
  return false;
}

/** A Fenwick tree of maxima over positions 0..size-1 that only rise, until cleared. */
class Diagonals {
  private readonly tree: Int32Array;
  private empty = true;

  constructor(size: number) {
    this.tree = new Int32Array(size + 1);
  }

  raise(position: number, value: number): void {
    this.empty = false;
    for (let i = position + 1; i < this.tree.length; i += i & -i)
      if (this.tree[i]! < value) this.tree[i] = value;
  }

  /** The largest value at positions 0..position (clamped to the tree). */
  upTo(position: number): number {
    let best = 0;
    for (let i = Math.min(position + 1, this.tree.length - 1); i > 0; i -= i & -i)
      if (this.tree[i]! > best) best = this.tree[i]!;
    return best;
  }

  clear(): void {
    if (!this.empty) this.tree.fill(0);
    this.empty = true;
  }
}
