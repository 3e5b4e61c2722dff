import { judgmentKey, type JudgeQuestion } from './judgment-key.js';
import type { Verdict } from './judge-prompt.js';

/** An answered, answerable item the judge is asked about: a claim miss, or a hit sampled to measure agreement. */
export interface Candidate {
  row: number;
  qid: string;
  question: string;
  claim: string;
  facts: readonly string[];
}

export interface Ask {
  key: string;
  question: JudgeQuestion;
}

/** What the judge said of an item: SUPPORTED when it supported any of its facts, UNJUDGED when it could not say. */
export type ItemVerdict = 'SUPPORTED' | 'NOT_SUPPORTED' | 'UNJUDGED';

/**
 * One ask per (question, claim, gold fact): each candidate's keys in fact order, and every ask once, in key
 * order (two items with one question, claim and fact share an ask and its verdict).
 */
export function asksOf(
  candidates: readonly Candidate[],
  model: string,
  prompt: { id: string; sha256: string },
): { keys: string[][]; asks: Ask[] } {
  const asks = new Map<string, Ask>();
  const keys = candidates.map((c) =>
    c.facts.map((fact) => {
      const question = { question: c.question, claim: c.claim, fact };
      const key = judgmentKey(question, model, prompt);
      asks.set(key, { key, question });
      return key;
    }),
  );
  return { keys, asks: [...asks.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
}

/**
 * An item's verdict from its asks': the claim holds the item's gold when it states any one fact (as C asks
 * for any one substring). NOT_SUPPORTED and UNCLEAR are misses; an ask without a verdict leaves the item
 * unjudged unless another fact was supported.
 */
export function itemVerdict(
  keys: readonly string[],
  verdictOf: (key: string) => Verdict | undefined,
): ItemVerdict {
  let unjudged = false;
  for (const key of keys) {
    const v = verdictOf(key);
    if (v === 'SUPPORTED') return 'SUPPORTED';
    if (v === undefined) unjudged = true;
  }
  return unjudged ? 'UNJUDGED' : 'NOT_SUPPORTED';
}

/**
 * `n` of the hits, chosen by their first ask's key (a sha256): the same items while their claims stay, an
 * even spread over the suite, no seed to keep.
 */
export function sampleHits(keys: readonly (readonly string[])[], n: number): number[] {
  return keys
    .map((k, i) => [k[0] ?? '', i] as const)
    .sort(([a, i], [b, j]) => (a < b ? -1 : a > b ? 1 : i - j))
    .slice(0, n)
    .map(([, i]) => i);
}
