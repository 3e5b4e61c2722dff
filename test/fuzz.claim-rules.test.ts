import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsChecked, containsNormalized, normalizeClaim, normalizeFact } from '../src/claims/match.js';
import { negatesAt, NEGATION_WINDOW } from '../src/claims/negation.js';
import { normalize, prepare, tokensAt } from '../src/claims/normalize.js';
import { containment, containsWord } from '../src/grounded-answer/containment.js';

/**
 * Property-based fuzzing of normalized claim matching (`claims: {match: normalized}`, docs/metrics.md
 * "Claims"): random claims and facts, adversarial ones included (repeated tokens, numbers, negations,
 * confusables, 20 kB claims against 200-token facts). Properties: it never throws; on small inputs it agrees
 * with REFERENCE, the documented rule written out as plainly as it reads, searching every chain; and large
 * inputs finish (the harness's hang guard is the only clock). FUZZ_RUNS sets the inputs per property: a sample
 * in CI, 10,000 in the nightly run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
// fast-check takes a 32-bit seed; a workflow run id is larger.
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;

const MAX_BETWEEN = 2;

/** A claim token stands for a fact token when equal, or when the fact's is a bare number and the claim's that number with a unit. */
function stands(claim: string, fact: string): boolean {
  return claim === fact || (/^-?\d[^ ]*$/.test(fact) && claim.startsWith(`${fact} `));
}

/**
 * The rule as docs/metrics.md states it, searched exhaustively (exponential: small inputs only). At least
 * ⌈r·n⌉ of the fact's n tokens found in order; at most 2 claim tokens, plus one per fact token missed in
 * between, between two found ones; no negation among the 3 claim tokens before the first found one nor
 * strictly between two found ones.
 */
function REFERENCE(claim: readonly string[], fact: readonly string[], recall: number): boolean {
  if (claim.length === 0 || fact.length === 0) return false;
  const need = Math.max(1, Math.ceil(recall * fact.length - 1e-9));
  const negated = (from: number, to: number) => {
    for (let i = Math.max(0, from); i < to; i++) if (negatesAt(claim, i)) return true;
    return false;
  };
  const grow = (k: number, at: number, found: number): boolean => {
    if (found >= need) return true;
    for (let k2 = k + 1; k2 < fact.length; k2++)
      for (let at2 = at + 1; at2 < claim.length; at2++) {
        const between = at2 - at - 1;
        if (between > MAX_BETWEEN + (k2 - k - 1) || negated(at + 1, at2)) break;
        if (stands(claim[at2]!, fact[k2]!) && grow(k2, at2, found + 1)) return true;
      }
    return false;
  };
  for (let k = 0; k < fact.length; k++)
    for (let at = 0; at < claim.length; at++)
      if (stands(claim[at]!, fact[k]!) && !negated(at - NEGATION_WINDOW, at) && grow(k, at, 1)) return true;
  return false;
}

/**
 * The substring rule's checks under `match: normalized` as docs/metrics.md states them, place by place: every
 * occurrence of the fact in the claim (as the substring rule finds it) is tried; it passes when no number
 * token of the claim has a character on both sides of either edge (a place may end between a number and its
 * unit), the numbers at the place are the fact's, and no negation is among the 3 tokens wholly before it.
 */
function CHECKED_REFERENCE(claim: string, fact: string): boolean {
  const rule = { nfkc: false };
  const text = prepare(claim, rule);
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return false;
  const { tokens, spans } = tokensAt(text);
  const part = containment([fact]);
  const wanted = normalize(fact, rule).filter((t) => /^-?\d/.test(t));
  const places: number[] = [];
  for (let at = 0; at <= lower.length; at++) {
    const word = part.words[0];
    if (
      word !== undefined
        ? containsWord(lower, word, (p) => p === at)
        : lower.startsWith(part.substrings[0]!, at)
    )
      places.push(at);
  }
  const length = (part.words[0] ?? part.substrings[0]!).length;
  return places.some((start) => {
    const end = start + length;
    const found: string[] = [];
    const before: number[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const [from, numeral, to] = [spans[3 * i]!, spans[3 * i + 1]!, spans[3 * i + 2]!];
      if (to <= start) before.push(i);
      if (!/^-?\d/.test(tokens[i]!) || to <= start || from >= end) continue;
      if (from < start) return false;
      if (to <= end) found.push(tokens[i]!);
      else if (end === numeral) found.push(tokens[i]!.split(' ')[0]!);
      else return false;
    }
    if (before.slice(-NEGATION_WINDOW).some((i) => negatesAt(tokens, i))) return false;
    return JSON.stringify(found) === JSON.stringify(wanted);
  });
}

// Words that make the rule's cases: repeats, numbers with and without units, negations, bounds, spellings.
const WORDS = [
  'x',
  'x',
  'y',
  'z',
  'encrypted',
  'at',
  'rest',
  '2',
  '2',
  'GB',
  'G',
  'Mb',
  '2GB',
  '2 GB',
  'two',
  'twenty',
  'five',
  '12',
  '-2',
  '.2',
  '1/2',
  '2k',
  'v3',
  'v3.1',
  '1.2',
  '1.2.3',
  '$20',
  'C$20',
  'not',
  'no',
  'never',
  'more',
  'than',
  'exceed',
  "isn't",
  'isn‘t',
  'does',
  "doesn't",
  'n\u200bot',
  'nоt',
  'no.',
  'per',
  'cent',
];
const word = fc.constantFrom(...WORDS);
const separator = fc.constantFrom(' ', ' ', ', ', '-', '. ');
const text = (max: number) =>
  fc
    .array(fc.tuple(word, separator), { maxLength: max })
    .map((parts) => parts.map(([w, s]) => w + s).join(''));
/**
 * A fact and a claim made from it, so that most pairs come near the rule's edges: each fact word kept or
 * dropped, with 0 to 4 other words before it (negations among them), and words before and after.
 */
const pair = fc
  .array(fc.tuple(word, fc.boolean(), fc.array(fc.tuple(word, separator), { maxLength: 4 })), {
    minLength: 1,
    maxLength: 5,
  })
  .chain((parts) =>
    fc.tuple(fc.constant(parts.map(([w]) => w).join(' ')), text(4), text(3)).map(([fact, head, tail]) => {
      const body = parts.map(
        ([w, keep, filler]) => filler.map(([f, s]) => f + s).join('') + (keep ? `${w} ` : ''),
      );
      return [head + body.join('') + tail, fact] as const;
    }),
  );
const recall = fc.constantFrom(1, 0.9, 0.75, 0.66, 0.5, 0.34, 0.2);

describe('normalized containment against the documented rule (fuzz)', () => {
  it('agrees with the exhaustive reference on small claims and facts', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text(14), text(5))), recall, ([claimText, factText], r) => {
        const rule = { nfkc: false, minTokenRecall: r };
        const claim = normalizeClaim(claimText, rule);
        const fact = normalizeFact(factText, rule);
        expect(containsNormalized(claim, fact, rule)).toBe(REFERENCE(claim, fact, r));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('checks substring hits as the documented checks do, place by place', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text(10), text(3))), ([claimText, factText]) => {
        const fact = factText.trim();
        if (fact === '') return;
        expect(containsChecked(claimText, [fact], { nfkc: false })).toBe(CHECKED_REFERENCE(claimText, fact));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.string({ maxLength: 30 }),
        recall,
        (c, f, r) => {
          const rule = { nfkc: r < 0.5, minTokenRecall: r };
          expect(typeof containsNormalized(normalizeClaim(c, rule), normalizeFact(f, rule), rule)).toBe(
            'boolean',
          );
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('finishes on 20 kB claims against 200-token facts', () => {
    // Each input is some 4,000 tokens: a fiftieth of the runs keeps the nightly run to minutes.
    const big = (tokens: number) =>
      fc
        .tuple(
          fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 0, max: 2 ** 30 }),
        )
        .map(([pool, seed]) => {
          let s = seed;
          return Array.from({ length: tokens }, () => {
            s = (s * 1103515245 + 12345) % 2 ** 31;
            return pool[s % pool.length]!;
          }).join(' ');
        });
    fc.assert(
      fc.property(big(4000), big(200), recall, (claimText, factText, r) => {
        const rule = { nfkc: false, minTokenRecall: r };
        const claim = normalizeClaim(claimText.slice(0, 20_000), rule);
        expect(typeof containsNormalized(claim, normalizeFact(factText, rule), rule)).toBe('boolean');
      }),
      { numRuns: Math.max(2, Math.ceil(RUNS / 50)), seed: SEED },
    );
  });
});
