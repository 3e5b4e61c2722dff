import { describe, expect, it } from 'vitest';
import type { GoldItem, TraceLine } from '../src/grounded-answer/contract.js';
import { judgeInto, judgeItem, judgeOptions } from '../src/grounded-answer/pipeline/judge.js';
import { isVerdict, labelsOf } from '../src/grounded-answer/verdict-flags.js';
import { newRunTable } from '../src/grounded-answer/pipeline/runs.js';
import { DEFAULT_SCU_RULES, echoMatches } from '../src/grounded-answer/scu.js';
import {
  aggregate,
  answerableOf,
  isRefusal,
  offendingRows,
  type ScoreOptions,
} from '../src/grounded-answer/score.js';
import { FAILURE_LABELS, PASS_LABELS, severity, type Label } from '../src/grounded-answer/labels.js';
import { seeded } from './helpers/random.js';

let line = 0;
function gold(
  qid: string,
  answerable: boolean,
  substr: string[],
  cites: string[],
  constraints: string[] = [],
): GoldItem {
  return {
    qid,
    answerable,
    claimSubstrings: substr,
    citations: cites,
    constraints,
    source: { file: 'g', line: ++line, offset: 0, length: 0 },
  };
}
function run(
  qid: string,
  claim: string,
  citations: string[],
  retrieved: string[],
  echo?: string[],
): TraceLine {
  return { qid, retrieved_ids: retrieved, answer_json: { claim, citations, constraints_echo: echo } };
}

/** Judges each item's run into a table, as the loader does line by line, and aggregates it. */
function scoreGroundedQa(gold: GoldItem[], runs: ReadonlyMap<string, TraceLine>, options: ScoreOptions) {
  const table = newRunTable(gold.length, options.cutoffs.length);
  const judging = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs);
  gold.forEach((g, row) => {
    const r = runs.get(g.qid);
    if (!r) return;
    table.present[row] = 1;
    judgeInto(judgeItem(g, options.scuRules), r, judging, table, row);
  });
  const items = gold.map((g, row) => ({
    gold: g,
    qid: g.qid,
    labels: table.present[row] ? labelsOf(table.flags[row]!) : (['missing_trace'] as Label[]),
    brokenRule: table.rule[row]! >= 0 ? options.scuRules![table.rule[row]!] : undefined,
  }));
  return { ...aggregate(answerableOf(gold), table, options), items };
}
const off: ScoreOptions = { refusalToken: 'not in context', scuRules: null, cutoffs: [1, 5] };
const on: ScoreOptions = { ...off, scuRules: DEFAULT_SCU_RULES };

/*
 * One item per label. A = G1 G2 G3 G6 G7 G8 G9 (7), U = G4 G5 (2).
 * Traced: all but G8 (8). Shipped S = G1 G2 G3 G5 G7 G9 (6); refused R = G4 G6 (2).
 *   G1 ok                     contained (case-insensitive), cites gold d1, d1 retrieved
 *   G2 citation_miss          cites d9, gold is d2+d3
 *   G3 ok / scu_violation     "optional" contradicts the "must" lock when scu is on
 *   G4 refusal_ok             refusal token with odd case and whitespace
 *   G5 under_refusal          answered an unanswerable question
 *   G6 over_refusal           refused an answerable one (gold d6 was retrieved at rank 2)
 *   G7 claim_miss             cites right, says nothing of the gold substring
 *   G8 missing_trace          no trace at all
 *   G9 citation_out_of_scope  cites gold d9, but d9 was never retrieved
 */
const items = [
  gold('G1', true, ['alpha beta'], ['d1']),
  gold('G2', true, ['gamma delta'], ['d2', 'd3']),
  gold('G3', true, ['epsilon'], ['d4'], ['Keys must be signed.']),
  gold('G4', false, [], []),
  gold('G5', false, [], []),
  gold('G6', true, ['zeta eta'], ['d6']),
  gold('G7', true, ['theta iota'], ['d7']),
  gold('G8', true, ['kappa iota'], ['d8']),
  gold('G9', true, ['kappa lambda'], ['d9']),
];
const runs = new Map(
  [
    run('G1', 'It is Alpha Beta.', ['d1'], ['d1', 'd0']),
    run('G2', 'gamma delta', ['d9'], ['d2', 'd3', 'd9']),
    run('G3', 'epsilon; signing is optional', ['d4'], ['d4'], ['Keys must be signed.']),
    run('G4', '  NOT IN CONTEXT \n', [], ['d1']),
    run('G5', 'made up', ['d1'], ['d1']),
    run('G6', 'not in context', [], ['x', 'd6']),
    run('G7', 'nothing relevant', ['d7'], ['d7']),
    run('G9', 'kappa lambda', ['d9'], ['d1']),
  ].map((r) => [r.qid, r]),
);

describe('scoreGroundedQa on the hand-computed set', () => {
  it('computes every metric with scu off', () => {
    const s = scoreGroundedQa(items, runs, off);
    expect(s.counts).toEqual({
      gold: 9,
      answerable: 7,
      unanswerable: 2,
      traced: 8,
      answered: 6,
      refused: 2,
      missing: 1,
    });
    // precision: G1 and G3 are contained, cited and (scu off) constraint-safe; S = 6.
    expect(s.metrics.precision).toEqual({ value: 2 / 6, numerator: 2, denominator: 6 });
    // chr: G1, G3, G7 hit; G2 misses, G5 has no gold citation, G9 cites outside retrieved.
    expect(s.metrics.chr).toEqual({ value: 0.5, numerator: 3, denominator: 6 });
    expect(s.metrics.under_refusal).toEqual({ value: 0.5, numerator: 1, denominator: 2 });
    expect(s.metrics.over_refusal).toEqual({ value: 1 / 7, numerator: 1, denominator: 7 });
    // recall@5: G1 G2 G3 G6 G7 have all gold ids in the top 5; G8 has no trace, G9 retrieved d1 only.
    expect(s.metrics['recall@5']).toEqual({ value: 5 / 7, numerator: 5, denominator: 7 });
    // recall@1: G2 needs d3 too, G6 has d6 at rank 2: only G1 G3 G7.
    expect(s.metrics['recall@1']).toEqual({ value: 3 / 7, numerator: 3, denominator: 7 });
    // upper bound over S: G1 G2 G3 G7 have a gold id in the top 5; G5 has none, G9 retrieved d1.
    expect(s.metrics['chr@5_upper_bound']).toEqual({ value: 4 / 6, numerator: 4, denominator: 6 });
    expect(s.metrics['chr@1_upper_bound']).toEqual({ value: 4 / 6, numerator: 4, denominator: 6 });
    expect(s.metrics.scu_violations).toEqual({ value: null, reason: 'scu not enabled' });
    expect(s.metrics.constraint_integrity).toEqual({ value: null, reason: 'scu not enabled' });
    expect(s.metrics.coverage).toEqual({ value: 8 / 9, numerator: 8, denominator: 9 });
    expect(Object.fromEntries(s.items.map((i) => [i.gold.qid, i.labels]))).toEqual({
      G1: ['ok'],
      G2: ['citation_miss'],
      G3: ['ok'],
      G4: ['refusal_ok'],
      G5: ['under_refusal'],
      G6: ['over_refusal'],
      G7: ['claim_miss'],
      G8: ['missing_trace'],
      G9: ['citation_out_of_scope'],
    });
  });

  it('adds the SCU violation of G3 when scu is on', () => {
    const s = scoreGroundedQa(items, runs, on);
    expect(s.metrics.precision).toEqual({ value: 1 / 6, numerator: 1, denominator: 6 });
    expect(s.metrics.scu_violations).toEqual({ value: 1 });
    expect(s.metrics.constraint_integrity).toEqual({ value: 0, numerator: 0, denominator: 1 });
    expect(s.items.find((i) => i.gold.qid === 'G3')!.labels).toEqual(['scu_violation']);
    expect(s.items.find((i) => i.gold.qid === 'G3')!.brokenRule!.contradiction).toBe(
      String.raw`\bmay\b|\boptional\b|\bnot\s+required\b`,
    );
  });

  it('orders offenders by severity, then qid', () => {
    const s = scoreGroundedQa(items, runs, on);
    const rows = offendingRows(
      s.items.map((i) => i.gold.qid),
      (row) => s.items[row]!.labels[0],
    );
    expect(rows.map((row) => `${s.items[row]!.gold.qid}:${s.items[row]!.labels.join('+')}`)).toEqual([
      'G5:under_refusal',
      'G3:scu_violation',
      'G9:citation_out_of_scope',
      'G2:citation_miss',
      'G7:claim_miss',
      'G6:over_refusal',
      'G8:missing_trace',
    ]);
  });

  it('orders offenders as a sort by (severity, qid) does, ids in order or not, one id twice', () => {
    const rnd = seeded(21);
    const labels = [...PASS_LABELS, ...FAILURE_LABELS];
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(rnd() * 40);
      let id = 0;
      const items = Array.from({ length: n }, (_, k) => ({
        // Ascending ids most rounds (as gold sets in id order give), shuffled in others; now and then a repeat.
        qid:
          round % 3
            ? `q${String((id += rnd() < 0.1 ? 0 : 1)).padStart(3, '0')}`
            : `q${Math.floor(rnd() * 50)}`,
        labels: [labels[Math.floor(rnd() * labels.length)]!] as Label[],
        k,
      }));
      const reference = items
        .filter((i) => !PASS_LABELS.includes(i.labels[0] as 'ok'))
        .sort(
          (a, b) =>
            severity(a.labels[0]!) - severity(b.labels[0]!) || (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0),
        );
      const rows = offendingRows(
        items.map((i) => i.qid),
        (row) => items[row]!.labels[0],
      );
      expect(rows.map((row) => items[row]!.k)).toEqual(reference.map((i) => i.k));
    }
  });

  it('puts several labels on one item, most severe first', () => {
    const g = [gold('M', true, ['right words'], ['d1'], ['Writes must be acknowledged.'])];
    const r = new Map([['M', run('M', 'acks are optional', ['zz'], ['d1'])]]);
    expect(scoreGroundedQa(g, r, on).items[0]!.labels).toEqual([
      'scu_violation',
      'citation_out_of_scope',
      'citation_miss',
      'claim_miss',
    ]);
  });

  it('makes precision and chr not computable when every item was refused', () => {
    const g = [gold('A', true, ['alpha beta'], ['d1']), gold('B', false, [], [])];
    const r = new Map([
      ['A', run('A', 'Not In Context', [], ['d1'])],
      ['B', run('B', 'not in context', [], [])],
    ]);
    const s = scoreGroundedQa(g, r, on);
    expect(s.metrics.precision).toEqual({
      value: null,
      reason: 'no shipped answers (every traced item was refused)',
      numerator: 0,
      denominator: 0,
    });
    expect(s.metrics.chr!.value).toBeNull();
    expect(s.metrics['chr@1_upper_bound']!.value).toBeNull();
    expect(s.metrics.over_refusal).toEqual({ value: 1, numerator: 1, denominator: 1 });
    expect(s.metrics.under_refusal).toEqual({ value: 0, numerator: 0, denominator: 1 });
    expect(s.metrics.scu_violations).toEqual({ value: 0 });
    expect(s.metrics.constraint_integrity).toEqual({
      value: null,
      reason: 'no shipped answer has gold constraints',
      numerator: 0,
      denominator: 0,
    });
    // Recall is about retrieval, so the refused item still counts: d1 was retrieved.
    expect(s.metrics['recall@5']).toEqual({ value: 1, numerator: 1, denominator: 1 });
  });

  it('reports refusal-rate metrics as not computable when gold lacks that class', () => {
    const s = scoreGroundedQa([gold('A', true, ['alpha beta'], ['d1'])], new Map(), off);
    expect(s.metrics.under_refusal).toMatchObject({ value: null, reason: 'gold has no unanswerable items' });
    expect(s.metrics.over_refusal).toEqual({ value: 0, numerator: 0, denominator: 1 });
    expect(s.metrics.coverage).toEqual({ value: 0, numerator: 0, denominator: 1 });
    expect(s.metrics['recall@5']).toEqual({ value: 0, numerator: 0, denominator: 1 });
  });
});

describe('refusal, echo and contradiction rules', () => {
  it('matches the refusal token after trimming, case-insensitively, and nothing looser', () => {
    for (const claim of ['not in context', 'Not In Context', '  NOT IN CONTEXT\t', '\nnot in context\n']) {
      expect(isRefusal(claim, 'not in context')).toBe(true);
    }
    for (const claim of ['not in context.', 'not  in context', 'The answer is not in context', '']) {
      expect(isRefusal(claim, 'not in context')).toBe(false);
    }
    expect(isRefusal(' unknown ', 'UNKNOWN')).toBe(true);
  });

  it('compares the echo as a trimmed set', () => {
    expect(echoMatches([' b ', 'a'], ['a', 'b'])).toBe(true);
    expect(echoMatches(['a', 'a', 'b'], ['a', 'b'])).toBe(true);
    expect(echoMatches(['a'], ['a', 'b'])).toBe(false);
    expect(echoMatches(['a', 'b', 'c'], ['a', 'b'])).toBe(false);
    expect(echoMatches(undefined, ['a'])).toBe(false);
  });

  it('applies each default rule only when its lock is among the constraints', () => {
    const rules = DEFAULT_SCU_RULES;
    const violates = (claim: string, constraints: string[]) =>
      scoreGroundedQa(
        [gold('X', true, ['zzzzz'], ['d'], constraints)],
        new Map([['X', run('X', claim, ['d'], ['d'], constraints)]]),
        {
          ...off,
          scuRules: rules,
        },
      ).items[0]!.labels.includes('scu_violation');
    expect(violates('X supports null keys', ['X rejects null keys.'])).toBe(true);
    expect(violates('X accepts null keys', ['X rejects null keys.'])).toBe(true);
    expect(violates('X supports null keys', ['Only domain example.com is allowed.'])).toBe(false);
    expect(violates('mail from gmail.com works', ['Only domain example.com is allowed.'])).toBe(true);
    expect(violates('we allow signups from any domain', ['Only domain example.com is allowed.'])).toBe(true);
    expect(violates('a token is not required', ['A token must be sent.'])).toBe(true);
    expect(violates('you can write to a replica', ['Replicas never accept writes.'])).toBe(true);
    expect(violates('replicas reject writes', ['Replicas never accept writes.'])).toBe(false);
    // The default "never" rule is lexical: a faithful "never allowed" trips it. Users with such phrasing
    // configure their own rules (docs/metrics.md).
    expect(violates('writes are never allowed', ['Writes are never allowed on replicas.'])).toBe(true);
  });
});

describe('long citation lists', () => {
  it('are in scope exactly when every cited id was retrieved, past the 32 where a set takes over', () => {
    const retrieved = Array.from({ length: 40 }, (_, i) => `d${i}`);
    const g = gold('q', true, ['fact'], ['d7']);
    const judge = (cited: string[]) => {
      const table = newRunTable(1, off.cutoffs.length);
      judgeInto(
        judgeItem(g, null),
        run('q', 'the fact', cited, retrieved),
        judgeOptions(off.refusalToken, null, off.cutoffs),
        table,
        0,
      );
      return labelsOf(table.flags[0]!);
    };
    expect(judge([...retrieved].reverse())).toEqual(['ok']);
    expect(judge([...retrieved.slice(1), 'elsewhere'])).toEqual(['citation_out_of_scope']);
    expect(judge(retrieved.slice(5, 10))).toEqual(['ok']);
    expect(judge(['d7', 'elsewhere'])).toEqual(['citation_out_of_scope']);
  });
});

describe('isVerdict: the flags words judging gives', () => {
  it('holds every word judgeInto gives, and only those: random items and runs reach each word it allows', () => {
    const rnd = seeded(4343);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const some = <T>(xs: readonly T[]): T[] => xs.filter(() => rnd() < 0.4);
    const ids = ['d1', 'd2', 'd3', 'd4'];
    const reached = [new Set<number>(), new Set<number>()];
    for (let i = 0; i < 20_000; i++) {
      const answerable = rnd() < 0.5;
      const g = gold(
        'q',
        answerable,
        ['fact'],
        some(ids),
        rnd() < 0.5 ? ['Tokens must never be logged.'] : [],
      );
      const options = rnd() < 0.5 ? on : off;
      // The last three read like refusals (a notice beside the verdict, see notices.ts).
      const claim = pick([
        'not in context',
        'the fact',
        'a guess',
        'the fact; tokens are optional',
        "I don't know",
        "I don't know the fact",
        "I don't know the fact; tokens are optional",
      ]);
      const echo = rnd() < 0.5 ? ['Tokens must never be logged.'] : undefined;
      const table = newRunTable(1, options.cutoffs.length);
      judgeInto(
        judgeItem(g, options.scuRules),
        run('q', claim, some(ids), some(ids), echo),
        judgeOptions(options.refusalToken, options.scuRules, options.cutoffs),
        table,
        0,
      );
      expect(isVerdict(table.flags[0]!, answerable), `flags ${table.flags[0]}`).toBe(true);
      expect(isVerdict(table.flags[0]!, !answerable)).toBe(false);
      reached[answerable ? 1 : 0]!.add(table.flags[0]!);
    }
    for (const answerable of [false, true]) {
      const allowed = Array.from({ length: 8 << 15 }, (_, w) => (w & 0x7fff) | ((w >> 15) << 24)).filter(
        (w) => isVerdict(w, answerable),
      );
      expect(allowed.sort((a, b) => a - b)).toEqual([...reached[answerable ? 1 : 0]!].sort((a, b) => a - b));
    }
    // The word of the flipped bit: answerable, answered, evidence and a hit, contained, no violation,
    // yet not CORRECT (stageOf found no stage for it and threw).
    expect(isVerdict(4 | 32 | (1 << (6 + 7)), true)).toBe(false);
  });
});
