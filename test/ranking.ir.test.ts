import { describe, expect, it } from 'vitest';
import {
  averagePrecision,
  IR_MEASURES,
  judge,
  ndcg,
  precisionAt,
  printf4,
  recallAt,
  reciprocalRank,
  rPrecision,
  successAt,
} from '../src/metrics/ir.js';
import { compareUtf8, rankByScore } from '../src/suites/ranking/order.js';

const qrels = (grades: Record<string, number>) => new Map(Object.entries(grades));

/** Every measure of one judged ranking, by groundgate name, at cutoffs 1, 2, 3, 5 and 10. */
function all(ranking: string[], grades: Record<string, number>, level = 1): Record<string, number> {
  const j = judge(ranking, qrels(grades), level);
  const out: Record<string, number> = {};
  for (const m of IR_MEASURES) {
    if (!m.name.includes('{k}')) out[m.name] = m.compute(j, 0);
    else for (const k of [1, 2, 3, 5, 10]) out[m.name.replace('{k}', String(k))] = m.compute(j, k);
  }
  return out;
}

describe('IR core (trec_eval definitions, hand-computed)', () => {
  it('scores graded qrels with linear gains (trec_eval case 03)', () => {
    // qrels A=2 B=1 C=0 D=2 E=1; ranking B, A, X (unjudged), C.
    const v = all(['B', 'A', 'X', 'C'], { A: 2, B: 1, C: 0, D: 2, E: 1 });
    // DCG: gains 1, 2, 0, 0 → 1/log2(2) + 2/log2(3) = 2.26186.
    const dcg = 1 / Math.log2(2) + 2 / Math.log2(3);
    // Ideal: every grade > 0 sorted, 2 2 1 1, retrieved or not. IDCG@1 = 2; @2 = 2 + 2/log2(3) = 3.26186;
    // @3 adds 1/log2(4) = 0.5 → 3.76186; @5 (and the whole list) adds 1/log2(5) → 4.19254.
    const ideal2 = 2 + 2 / Math.log2(3);
    const ideal3 = ideal2 + 1 / Math.log2(4);
    const ideal = ideal3 + 1 / Math.log2(5);
    expect(v['ndcg@1']).toBe(1 / 2); // B's gain 1 over A's 2
    expect(v['ndcg@2']).toBe(dcg / ideal2);
    expect(v['ndcg@3']).toBe(dcg / ideal3);
    expect(v['ndcg@5']).toBe(dcg / ideal);
    expect(v.ndcg).toBe(dcg / ideal);
    expect(['ndcg@2', 'ndcg@3', 'ndcg@5', 'ndcg'].map((m) => printf4(v[m]!))).toEqual([
      '0.6934',
      '0.6013',
      '0.5395',
      '0.5395',
    ]);
    // Binary measures at relevance level 1: A B D E relevant (R = 4); B and A at ranks 1 and 2.
    expect(v.map).toBe((1 / 1 + 2 / 2) / 4); // 0.5: D and E never retrieved count as 0
    expect(v['map@1']).toBe(1 / 4); // still ÷ R, not ÷ min(R, k)
    expect(v.mrr).toBe(1);
    expect(v['P@2']).toBe(1);
    expect(v['P@5']).toBe(2 / 5); // 4 retrieved, denominator stays 5
    expect(v['recall@5']).toBe(2 / 4);
    expect(v['r-prec']).toBe(2 / 4); // top R = 4: B A X C
    expect(v['success@1']).toBe(1);
  });

  it('applies relevance_level to binary measures only (2, then 0)', () => {
    const grades = { A: 2, B: 1, C: 0, D: 2, E: 1 };
    const two = all(['B', 'A', 'X', 'C'], grades, 2);
    // Relevant: A and D (R = 2); A at rank 2.
    expect(two.map).toBe(1 / 2 / 2); // 0.25
    expect(two.mrr).toBe(1 / 2);
    expect(two['P@5']).toBe(1 / 5);
    expect(two['r-prec']).toBe(1 / 2); // top 2: B A
    // nDCG ignores the level (trec_eval's ndcg ignores -l): B still gains 1.
    expect(two.ndcg).toBe(all(['B', 'A', 'X', 'C'], grades, 1).ndcg);

    const zero = all(['B', 'A', 'X', 'C'], grades, 0);
    // Grade 0 counts: A B C D E relevant (R = 5) at ranks 1, 2, 4; X is unjudged, never relevant.
    expect(zero.map).toBe((1 / 1 + 2 / 2 + 3 / 4) / 5); // 0.55
    expect(zero['P@3']).toBe(2 / 3);
  });

  it('scores 0 on every measure when nothing is judged relevant (only rel 0)', () => {
    const v = all(['a', 'b'], { a: 0, b: 0 });
    expect(Object.values(v).every((x) => x === 0)).toBe(true);
    expect(Object.keys(v)).toHaveLength(4 + 5 * 5); // 4 plain measures, 5 families at 5 cutoffs
  });

  it('keeps k as the precision denominator for a run shorter than k (trec_eval case 05)', () => {
    // One doc retrieved, relevant; R = 2.
    const v = all(['a'], { a: 1, b: 1 });
    expect(v['P@5']).toBe(0.2);
    expect(v['P@10']).toBe(0.1);
    expect(v['recall@10']).toBe(1 / 2);
    expect(v['r-prec']).toBe(1 / 2); // padded with non-relevant docs up to R
    expect(v['ndcg@10']).toBe(1 / (1 + 1 / Math.log2(3))); // ideal has both docs
    expect(v['success@10']).toBe(1);
  });

  it('treats negative grades as unjudged: never relevant, no gain, not in R', () => {
    const v = all(['a', 'b', 'c'], { a: -1, b: 1, c: 2 });
    // Relevant b (rank 2) and c (rank 3); R = 2.
    expect(v.map).toBe((1 / 2 + 2 / 3) / 2); // 7/12 = 0.5833
    expect(v.mrr).toBe(1 / 2);
    // Gains 0, 1, 2 → 1/log2(3) + 2/log2(4); ideal 2, 1 (a's −1 left out) → 2 + 1/log2(3).
    expect(v.ndcg).toBe((1 / Math.log2(3) + 2 / Math.log2(4)) / (2 + 1 / Math.log2(3)));
    expect(printf4(v.ndcg!)).toBe('0.6199');

    const onlyNegative = all(['a'], { a: -2 });
    expect(Object.values(onlyNegative).every((x) => x === 0)).toBe(true);
  });

  it('gives 0 for an empty ranking, as trec_eval -c does for a query missing from the run', () => {
    const j = judge([], qrels({ a: 1, b: 3 }));
    expect([
      averagePrecision(j),
      averagePrecision(j, 10),
      precisionAt(j, 5),
      recallAt(j, 5),
      successAt(j, 5),
      ndcg(j),
      ndcg(j, 10),
      reciprocalRank(j),
      rPrecision(j),
    ]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('takes binary qrels for binary gains (the agent-retrieval use)', () => {
    // Ground truth {x, y}, retrieved y, z, x: DCG = 1 + 1/log2(4) = 1.5, IDCG@3 over min(3, 2) = 2 ranks.
    const j = judge(['y', 'z', 'x'], qrels({ x: 1, y: 1 }));
    expect(ndcg(j, 3)).toBe((1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)));
    expect(averagePrecision(j)).toBe((1 + 2 / 3) / 2);
    expect(precisionAt(j, 3)).toBe(2 / 3);
  });
});

describe('trec_eval ordering', () => {
  it('sorts by score descending, then docid descending in byte order (trec_eval case 02)', () => {
    const docids = ['d1', 'd2', 'd10', 'd3'];
    const scores = [1.0, 1.0, 1.0, 2.0];
    // "d2" > "d10" > "d1" byte-wise: '2' > '1', and "d1" is a prefix of "d10".
    const ranking = rankByScore(docids, scores).map((i) => docids[i]!);
    expect(ranking).toEqual(['d3', 'd2', 'd10', 'd1']);
    // The one relevant doc, d1, is fourth: RR 1/4 whatever the run's rank column said.
    expect(reciprocalRank(judge(ranking, qrels({ d1: 1 })))).toBe(0.25);
  });

  it('compares docids as UTF-8 bytes, not UTF-16 code units', () => {
    // UTF-8: é = C3 A9, U+FFE0 = EF BF A0, 😀 = F0 9F 98 80. In UTF-16 the emoji's surrogate D83D sorts
    // below U+FFE0, so JavaScript's < disagrees with strcmp on those two.
    const ids = ['d😀', 'dz', 'd\uffe0', 'dé', 'd'];
    expect([...ids].sort(compareUtf8)).toEqual(['d', 'dz', 'dé', 'd\uffe0', 'd😀']);
    expect('d\uffe0' > 'd😀').toBe(true);
    expect(compareUtf8('d\uffe0', 'd😀')).toBeLessThan(0);
    const ranking = rankByScore(ids, [1, 1, 1, 1, 1]).map((i) => ids[i]!);
    expect(ranking).toEqual(['d😀', 'd\uffe0', 'dé', 'dz', 'd']);
  });

  it('treats -0 and 0 as a tie, like C comparisons', () => {
    expect(rankByScore(['a', 'b'], [0, -0])).toEqual([1, 0]);
  });
});

describe('printf4 (C printf "%.4f" with glibc rounding)', () => {
  it('rounds exact ties at the fifth decimal half to even, unlike toFixed', () => {
    // Odd multiples of 1/32 are the only exact ties at four decimals (trec_eval case 11).
    expect(printf4(1 / 32)).toBe('0.0312');
    expect((1 / 32).toFixed(4)).toBe('0.0313');
    expect(printf4(3 / 32)).toBe('0.0938');
    expect(printf4(5 / 32)).toBe('0.1562');
    expect(printf4(7 / 32)).toBe('0.2188');
    expect(printf4(33 / 32)).toBe('1.0312');
  });

  it('rounds everything else by the exact binary value, as toFixed does', () => {
    // 0.00005 is stored as 5.000000000000000240e-5, just above the tie.
    expect(printf4(0.00005)).toBe('0.0001');
    expect(printf4(2 / 3)).toBe('0.6667');
    expect(printf4(0)).toBe('0.0000');
    expect(printf4(1)).toBe('1.0000');
    expect(printf4(1 / 16)).toBe('0.0625'); // exact, 4 decimals
  });
});
