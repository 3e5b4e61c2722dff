import { describe, expect, it } from 'vitest';
import type { GoldItem, TraceLine } from '../src/grounded-answer/contract.js';
import {
  CORRECT,
  isVerdict,
  judgeInto,
  judgeItem,
  judgeOptions,
  labelsOf,
  MATCHED_JUDGED,
  MATCHED_NORMALIZED,
  matchRule,
  withJudgedHit,
} from '../src/grounded-answer/judge.js';
import { newVerdicts } from '../src/grounded-answer/runs.js';
import { configSchema } from '../src/suites/grounded-qa/index.js';

const item = (answerable = true): GoldItem => ({
  qid: 'q1',
  answerable,
  claimSubstrings: ['2 GB'],
  citations: ['d1'],
  constraints: [],
  source: { file: 'g', line: 1, offset: 0, length: 0 },
});
const run = (claim: string, citations = ['d1']): TraceLine => ({
  qid: 'q1',
  retrieved_ids: ['d1', 'd2'],
  answer_json: { claim, citations },
});

/** The flags judgeInto gives one run of `item` under the substring rule. */
function flagsOf(claim: string, citations?: string[], gold = item()): number {
  const table = newVerdicts(1, 1);
  judgeInto(
    judgeItem(gold, null),
    run(claim, citations),
    judgeOptions('not in context', null, [1]),
    table,
    0,
  );
  return table.flags[0]!;
}

describe('the rule a run matched by (flags)', () => {
  it('says substring for a contained claim, and nothing for a miss, a refusal or an unanswerable item', () => {
    expect(matchRule(flagsOf('Exports are at most 2 GB.'))).toBe('substring');
    expect(matchRule(flagsOf('Exports are at most 2 GB.', ['d2']))).toBe('substring');
    expect(matchRule(flagsOf('Exports are limited to two gigabytes.'))).toBeUndefined();
    expect(matchRule(flagsOf('not in context'))).toBeUndefined();
    expect(matchRule(flagsOf('Exports are at most 2 GB.', ['d1'], item(false)))).toBeUndefined();
    expect(matchRule(0)).toBeUndefined();
    expect(matchRule(flagsOf('at most 2 GB') | MATCHED_NORMALIZED)).toBe('normalized');
    expect(matchRule(flagsOf('at most 2 GB') | MATCHED_JUDGED)).toBe('judged');
  });

  it('turns a claim miss into a judged hit with the labels a contained claim gets', () => {
    const miss = flagsOf('Exports are limited to two gigabytes.');
    expect(labelsOf(miss)).toEqual(['claim_miss']);
    const judged = withJudgedHit(miss);
    expect(labelsOf(judged)).toEqual(['ok']);
    expect(judged & CORRECT).toBe(CORRECT);
    expect(matchRule(judged)).toBe('judged');
    // Everything else as a contained claim with the same citations: the judged word is one judging can give.
    expect(judged & ~MATCHED_JUDGED).toBe(flagsOf('Exports are at most 2 GB.'));
    expect(isVerdict(judged, true)).toBe(true);

    const uncited = flagsOf('Exports are limited to two gigabytes.', ['d2']);
    expect(labelsOf(uncited)).toEqual(['citation_miss', 'claim_miss']);
    expect(labelsOf(withJudgedHit(uncited))).toEqual(['citation_miss']);
    expect(withJudgedHit(uncited) & CORRECT).toBe(0);
    expect(withJudgedHit(uncited) & ~MATCHED_JUDGED).toBe(flagsOf('at most 2 GB', ['d2']));
  });

  it('leaves a word without a claim miss as it is', () => {
    const hit = flagsOf('at most 2 GB');
    expect(withJudgedHit(hit)).toBe(hit);
    expect(withJudgedHit(flagsOf('not in context'))).toBe(flagsOf('not in context'));
  });

  it('accepts the match bits on contained claims of answerable items only, in a merge', () => {
    const hit = flagsOf('at most 2 GB');
    expect(isVerdict(hit | MATCHED_NORMALIZED, true)).toBe(true);
    expect(isVerdict(flagsOf('two gigabytes') | MATCHED_NORMALIZED, true)).toBe(false);
    expect(isVerdict(flagsOf('at most 2 GB', ['d1'], item(false)) | MATCHED_JUDGED, false)).toBe(false);
  });
});

describe('claims: in a grounded-qa suite', () => {
  const base = { kind: 'grounded-qa', gold: 'g.jsonl', traces: 't.jsonl' };
  const parse = (claims: unknown) => configSchema.safeParse({ ...base, claims });

  it('is absent by default, and takes its defaults when given', () => {
    expect(configSchema.parse(base).claims).toBeUndefined();
    expect(parse({ match: 'normalized' }).data?.claims).toEqual({
      match: 'normalized',
      nfkc: false,
      min_token_recall: 1,
    });
    expect(parse({ match: 'substring', nfkc: true, min_token_recall: 0.5 }).data?.claims).toEqual({
      match: 'substring',
      nfkc: true,
      min_token_recall: 0.5,
    });
  });

  it('refuses what it cannot apply, saying what it expected', () => {
    const message = (claims: unknown) => parse(claims).error?.issues.map((i) => i.message);
    expect(message({ match: 'semantic' })).toEqual([
      "semantic matching reads the judge's verdicts from a committed file; expected cache: with it (e.g. cache: .groundgate/judgments.jsonl)",
    ]);
    expect(message({ match: 'normalized', min_token_recall: 0 })).toEqual([
      'expected a share of tokens above 0, which every claim would meet',
    ]);
    expect(message({ match: 'normalized', min_token_recall: 1.5 })).toEqual([
      'expected a share of tokens of at most 1',
    ]);
    expect(parse({ match: 'fuzzy' }).success).toBe(false);
    expect(parse({ match: 'normalized', stem: true }).success).toBe(false);
  });
});
