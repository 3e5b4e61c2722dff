import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../src/cli/main.js';
import { run as check } from '../src/run.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import type { SuiteReport } from '../src/report/schema.js';
import { stageRows } from '../src/report/triage.js';
import { jsonl, tmpTree } from './helpers/tmp.js';
import type { GoldItem, TraceLine } from '../src/grounded-answer/contract.js';
import { judgeInto, judgeItem, judgeOptions } from '../src/grounded-answer/pipeline/judge.js';
import {
  CORRECT,
  isVerdict,
  labelsOf,
  matchedBy,
  matchRule,
  withMatchBy,
} from '../src/grounded-answer/verdict-flags.js';
import { newVerdicts } from '../src/grounded-answer/pipeline/runs.js';
import { configSchema } from '../src/suites/grounded-qa/config.js';

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
    expect(matchRule(flagsOf('at most 2 GB') | matchedBy('normalized'))).toBe('normalized');
    expect(matchRule(flagsOf('at most 2 GB') | matchedBy('semantic'))).toBe('semantic');
  });

  it('turns a claim miss into a semantic hit with the labels a contained claim gets', () => {
    const miss = flagsOf('Exports are limited to two gigabytes.');
    expect(labelsOf(miss)).toEqual(['claim_miss']);
    const judged = withMatchBy(miss, 'semantic');
    expect(labelsOf(judged)).toEqual(['ok']);
    expect(judged & CORRECT).toBe(CORRECT);
    expect(matchRule(judged)).toBe('semantic');
    // Everything else as a contained claim with the same citations: the judged word is one judging can give.
    expect(judged & ~matchedBy('semantic')).toBe(flagsOf('Exports are at most 2 GB.'));
    expect(isVerdict(judged, true)).toBe(true);

    const uncited = flagsOf('Exports are limited to two gigabytes.', ['d2']);
    expect(labelsOf(uncited)).toEqual(['citation_miss', 'claim_miss']);
    expect(labelsOf(withMatchBy(uncited, 'semantic'))).toEqual(['citation_miss']);
    expect(withMatchBy(uncited, 'semantic') & CORRECT).toBe(0);
    expect(withMatchBy(uncited, 'semantic') & ~matchedBy('semantic')).toBe(flagsOf('at most 2 GB', ['d2']));
  });

  it('leaves a word without a claim miss as it is', () => {
    const hit = flagsOf('at most 2 GB');
    expect(withMatchBy(hit, 'semantic')).toBe(hit);
    expect(withMatchBy(flagsOf('not in context'), 'semantic')).toBe(flagsOf('not in context'));
  });

  it('accepts the match bits on contained claims of answerable items only, in a merge', () => {
    const hit = flagsOf('at most 2 GB');
    expect(isVerdict(hit | matchedBy('normalized'), true)).toBe(true);
    expect(isVerdict(flagsOf('two gigabytes') | matchedBy('normalized'), true)).toBe(false);
    expect(isVerdict(flagsOf('at most 2 GB', ['d1'], item(false)) | matchedBy('semantic'), false)).toBe(
      false,
    );
  });
});

describe('the substring rule under match: normalized (judgeInto)', () => {
  /** The rule judgeInto decides a run of a one-fact item by under `claims: {match}`; undefined, a miss. */
  function ruleOf(claim: string, fact: string, match: 'substring' | 'normalized'): string | undefined {
    const gold = { ...item(), claimSubstrings: [fact] };
    const claims = { match, nfkc: false, min_token_recall: 1 } as const;
    const options = judgeOptions('not in context', null, [1], { claims });
    const table = newVerdicts(1, 1);
    judgeInto(judgeItem(gold, null), run(claim), options, table, 0);
    return matchRule(table.flags[0]!);
  }

  it('counts a substring hit only where it passes the number, unit and negation checks', () => {
    // match: substring stays the seed's C: each of these is a hit.
    expect(ruleOf('Exports are 12 GB per export.', '2 GB per export', 'substring')).toBe('substring');
    expect(ruleOf('It is not 2 GB.', '2 GB', 'substring')).toBe('substring');
    expect(ruleOf('The link carries 100 Mb.', '100 MB', 'substring')).toBe('substring');
    // match: normalized: a number cut, a negation before, another unit: a miss by either rule.
    expect(ruleOf('Exports are 12 GB per export.', '2 GB per export', 'normalized')).toBeUndefined();
    expect(ruleOf('Logs are kept for 17 days.', '7 days', 'normalized')).toBeUndefined();
    expect(ruleOf('It is not 2 GB.', '2 GB', 'normalized')).toBeUndefined();
    expect(ruleOf('The link carries 100 Mb.', '100 MB', 'normalized')).toBeUndefined();
    // A hit that passes stays a substring hit; one that fails may still pass the normalized rule.
    expect(ruleOf('Exports are 2 GB per export.', '2 GB per export', 'normalized')).toBe('substring');
    expect(ruleOf('The plan costs 20 USD a month.', 'costs 20', 'normalized')).toBe('substring');
    expect(ruleOf('The plan costs ¥20 RMB.', '20 RMB', 'normalized')).toBe('normalized');
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
    // The substring rule reads no option: it takes none.
    expect(parse({ match: 'substring' }).data?.claims).toEqual({ match: 'substring' });
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
    expect(message({ match: 'fuzzy' })).toEqual(['expected one of "substring"|"normalized"|"semantic"']);
    expect(message({ match: 'normalized', stem: true })).toEqual([
      'is not a key of claims:; expected match, or an option of a rule (nfkc, min_token_recall, cache, unjudged, require_committed, judge_hits_sample, labels, min_kappa, pricing)',
    ]);
    // An option of another rule is refused with the rules that read it, where it is written.
    const issues = (claims: unknown) =>
      parse(claims).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ match: 'substring', nfkc: true, min_token_recall: 0.5 })).toEqual([
      'claims.nfkc: applies to match: normalized or semantic only; expected one of them with it, or no nfkc',
      'claims.min_token_recall: applies to match: normalized or semantic only; expected one of them with it, or no min_token_recall',
    ]);
  });
});

/*
 * One gold set, two suites over the same traces, substring and normalized. Answerable items, each citing its
 * gold chunk:
 *   A "Exports are at most 2 GB."                 fact "2 GB"      contained by substring (both suites)
 *   B "Exports are limited to two gigabytes each." fact "2 GB"      normalized only
 *   C "Timeouts are 10 milliseconds."              fact "10 ms"     normalized only
 *   D "Exports are no longer 2GB each."            fact "2 GB"      negated: a miss in both
 *   E "Uploads take up to 25 GB."                  fact "2.5 GB"    a miss in both (2.5 is never 25)
 */
const E2E_GOLD = (
  [
    ['A', '2 GB'],
    ['B', '2 GB'],
    ['C', '10 ms'],
    ['D', '2 GB'],
    ['E', '2.5 GB'],
  ] as const
).map(([qid, fact]) => ({
  qid,
  question: `What is ${qid}?`,
  answerable: true,
  gold_citations: [`d${qid}`],
  gold_claim_substr: [fact],
}));
const E2E_CLAIMS: Record<string, string> = {
  A: 'Exports are at most 2 GB.',
  B: 'Exports are limited to two gigabytes each.',
  C: 'Timeouts are 10 milliseconds.',
  D: 'Exports are no longer 2GB each.',
  E: 'Uploads take up to 25 GB.',
};

describe('claims: {match: normalized} through check', () => {
  it('passes a paraphrase the substring rule fails, and says in report.json which rule matched', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(E2E_GOLD),
      'traces.jsonl': jsonl(
        E2E_GOLD.map((g) => ({
          qid: g.qid,
          retrieved_ids: [`d${g.qid}`],
          answer_json: { claim: E2E_CLAIMS[g.qid], citations: [`d${g.qid}`] },
        })),
      ),
    });
    const qa = { kind: 'grounded-qa', gold: 'gold.jsonl', traces: 'traces.jsonl' };
    const suites = {
      plain: qa,
      substring: { ...qa, claims: { match: 'substring' } },
      normalized: { ...qa, claims: { match: 'normalized' } },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    let err = '';
    const code = await main(
      ['check', '--config', path.join(dir, 'gates.yaml'), '-f', `json=${path.join(dir, 'report.json')}`],
      { stdout: () => {}, stderr: (t) => (err += t), isTty: false, env: {} },
    );
    expect([code, err]).toEqual([0, '']);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
      suites: Record<string, SuiteReport>;
    };
    const { plain, substring, normalized } = report.suites;
    const shown = (s: SuiteReport) => s.offenders.map((o) => [o.id, o.labels.join('+'), o.match ?? '-']);

    // Without claims: the substring rule, and no key the report did not have before.
    expect(plain!.metrics.precision!.value).toBe(1 / 5);
    expect(shown(plain!)).toEqual([
      ['B', 'claim_miss', '-'],
      ['C', 'claim_miss', '-'],
      ['D', 'claim_miss', '-'],
      ['E', 'claim_miss', '-'],
    ]);
    expect(Object.keys(plain!.counts).filter((k) => k.startsWith('claims_'))).toEqual([]);
    expect(plain!.triage).not.toHaveProperty('claims');

    // match: substring says so, with the same verdicts.
    expect(substring!.metrics.precision!.value).toBe(1 / 5);
    expect(substring!.counts).toMatchObject({
      claims_substring: 1,
      claims_normalized: 0,
      claims_semantic: 0,
    });
    expect(substring!.triage?.claims).toBe('substring');

    // match: normalized passes B and C; D (negated) and E (25 is not 2.5) still miss.
    expect(normalized!.metrics.precision!.value).toBe(3 / 5);
    expect(normalized!.counts).toMatchObject({
      claims_substring: 1,
      claims_normalized: 2,
      claims_semantic: 0,
    });
    expect(shown(normalized!)).toEqual([
      ['D', 'claim_miss', '-'],
      ['E', 'claim_miss', '-'],
    ]);
    expect(normalized!.triage).toMatchObject({ answered_wrong: { containment: 2 }, claims: 'normalized' });
    expect(normalized!.items).toMatchObject({ B: { pass: true }, C: { pass: true }, D: { pass: false } });
    // The items only the normalized rule passed are named; with the substring rule alone there are none.
    expect(normalized!.tables).toEqual([
      { title: 'claims: matched by the normalized rule only', columns: ['id'], rows: [['B'], ['C']] },
    ]);
    expect(substring!.tables).toBeUndefined();
    expect(plain!.tables).toBeUndefined();
  });

  it('names the rule on an offender that failed elsewhere, and words the advice for the rule in force', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(E2E_GOLD.slice(0, 2)),
      // Both claims contain their fact, A by substring and B normalized, and both cite the wrong chunk.
      'traces.jsonl': jsonl(
        E2E_GOLD.slice(0, 2).map((g) => ({
          qid: g.qid,
          retrieved_ids: [`d${g.qid}`, 'dX'],
          answer_json: { claim: E2E_CLAIMS[g.qid], citations: ['dX'] },
        })),
      ),
    });
    const suites = {
      qa: {
        kind: 'grounded-qa',
        gold: 'gold.jsonl',
        traces: 'traces.jsonl',
        claims: { match: 'normalized' },
      },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    const { report } = await check({ config: path.join(dir, 'gates.yaml') });
    expect(report.suites.qa!.offenders.map((o) => [o.id, o.labels.join('+'), o.match])).toEqual([
      ['A', 'citation_miss', 'substring'],
      ['B', 'citation_miss', 'normalized'],
    ]);
    expect(
      stageRows({
        ...report.suites.qa!.triage!,
        answered_wrong: { ...report.suites.qa!.triage!.answered_wrong, containment: 1 },
      }).find((r) => r.key === 'containment')?.advice,
    ).toMatch(/even normalized/);
    const plainAdvice = stageRows({
      answered_wrong: { retrieval: 0, citation: 0, containment: 1, constraint: 0 },
      over_refused: { not_retrieved: 0, retrieved: 0 },
    })[0]!.advice;
    expect(plainAdvice).toMatch(/word for word/);
    expect(plainAdvice).not.toMatch(/paraphrase/);
  });
});

describe('claims: {match: normalized} over shards', () => {
  it('merges partials into the report of one run, byte for byte, the rules included', async () => {
    const traces = E2E_GOLD.map((g) => ({
      qid: g.qid,
      retrieved_ids: [`d${g.qid}`],
      answer_json: { claim: E2E_CLAIMS[g.qid], citations: [`d${g.qid}`] },
    }));
    const dir = tmpTree({
      'gold.jsonl': jsonl(E2E_GOLD),
      'shards/0/t.jsonl': jsonl(traces.slice(0, 2)),
      'shards/1/t.jsonl': jsonl(traces.slice(2)),
    });
    const suites = {
      qa: {
        kind: 'grounded-qa',
        gold: 'gold.jsonl',
        traces: 'shards/*/t.jsonl',
        claims: { match: 'normalized' },
      },
    };
    const config = path.join(dir, 'gates.yaml');
    writeFileSync(config, YAML.stringify({ version: 1, suites }));
    const parts = [];
    for (const k of [0, 1]) {
      const part = path.join(dir, `part-${k}.partial`);
      await writePartialRun(part, {
        config,
        inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, `shards/${k}/t.jsonl`) }],
      });
      parts.push(part);
    }
    const single = serializeReport((await check({ config })).report);
    const merged = serializeReport((await mergeRun(parts, { config })).report);
    expect(merged).toBe(single);
    const qa = (JSON.parse(merged) as { suites: Record<string, SuiteReport> }).suites.qa!;
    expect(qa.counts).toMatchObject({ claims_substring: 1, claims_normalized: 2, claims_semantic: 0 });
  });
});
