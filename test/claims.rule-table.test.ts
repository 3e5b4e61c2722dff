import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { z } from 'zod';
import { parseBaseline } from '../src/baseline/load.js';
import {
  addClaimRule,
  asksJudge,
  claimMatching,
  claimRule,
  claimRules,
  claimsSchema,
  MAX_CLAIM_RULES,
} from '../src/claims/rules/index.js';
import { substring } from '../src/claims/rules/substring.js';
import { semantic } from '../src/claims/rules/semantic.js';
import { refuseShards } from '../src/claims/semantic.js';
import { judgmentOutputs } from '../src/action/judge-env.js';
import type { LoadedConfig } from '../src/config/load.js';
import type { ClaimRule, GoldFacts } from '../src/claims/rules/types.js';
import { containment, containsWord } from '../src/grounded-answer/containment.js';
import {
  CORRECT,
  EVIDENCE,
  HIT,
  isVerdict,
  matchedBy,
  matchRule,
  OK,
} from '../src/grounded-answer/verdict-flags.js';
import { reportSchema, serializeReport, type Report } from '../src/report/schema.js';
import { stageRows } from '../src/report/triage.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/** The claim rules as a table (src/claims/rules/): each rule through the table's API, and a rule added to it. */

/** The flags of a correct run of an answerable item: the evidence retrieved, the gold chunk cited, the fact held. */
const CORRECT_RUN = EVIDENCE | HIT | CORRECT | OK;

const facts = (...given: string[]): GoldFacts => ({ ...containment(given), facts: given });

/** What the table's rule `name` finds in `claim` for `item`, with the options gates.yaml would give. */
function matched(name: string, claim: string, item: GoldFacts, options: Record<string, unknown> = {}) {
  const claims = claimsSchema.parse({ match: name, ...options });
  const { rule, with: ruleOptions } = claimMatching(claims);
  return claimRule(rule)!.match(claim, claim.toLowerCase(), item, ruleOptions);
}

describe('the rules of the table', () => {
  it('lists substring, normalized and semantic, in the order report.json counts them', () => {
    expect(claimRules().map((r) => r.name)).toEqual(['substring', 'normalized', 'semantic']);
    expect(claimRules().map((r) => Object.keys(r.options.shape))).toEqual([
      [],
      ['nfkc', 'min_token_recall'],
      [
        'nfkc',
        'min_token_recall',
        'cache',
        'unjudged',
        'require_committed',
        'judge_hits_sample',
        'labels',
        'min_kappa',
        'pricing',
      ],
    ]);
    // Without claims: the substring rule, with nothing to read.
    expect(claimMatching(undefined)).toEqual({ rule: 'substring', with: null });
  });

  it('substring: a short fact as a whole word, a longer one anywhere, case aside', () => {
    const item = facts('2 GB', 'encrypted at rest');
    expect(matched('substring', 'Exports are at most 2 GB.', item)).toBe('substring');
    // "2 gb" inside "12 gb" is not a whole word.
    expect(matched('substring', 'Exports are at most 12 GB.', item)).toBeUndefined();
    // A fact of 5 characters or more is a plain substring, even inside a word.
    expect(matched('substring', 'Backups are UNENCRYPTED AT REST.', item)).toBe('substring');
    expect(matched('substring', 'Exports are limited to two gigabytes.', item)).toBeUndefined();
  });

  it('normalized: a substring hit that passes its checks, else the tokens in order, as many as min_token_recall asks', () => {
    const item = facts('2 GB');
    expect(matched('normalized', 'Exports are at most 2 GB.', item)).toBe('substring');
    // "two gigabytes" is the tokens ["2 gb"]: the fact's one token.
    expect(matched('normalized', 'Exports are limited to two gigabytes.', item)).toBe('normalized');
    expect(matched('normalized', 'Exports are at most 12 GB.', item)).toBeUndefined();
    expect(matched('normalized', 'It is not 2 GB.', item)).toBeUndefined();

    // The fact is 5 tokens (logs, are, kept, for, "30 day"); each claim holds 4 of them in order.
    const kept = facts('logs are kept for 30 days');
    for (const claim of ['Logs are kept for a month.', 'Logs are retained for 30 days.']) {
      expect(matched('normalized', claim, kept)).toBeUndefined();
      // ⌈0.75 × 5⌉ = 4 tokens: found; ⌈0.9 × 5⌉ = 5: not.
      expect(matched('normalized', claim, kept, { min_token_recall: 0.75 })).toBe('normalized');
      expect(matched('normalized', claim, kept, { min_token_recall: 0.9 })).toBeUndefined();
    }
  });

  it('semantic: judging matches as normalized does; the judge names its own hits after', () => {
    const item = facts('2 GB');
    const cache = { cache: 'j.jsonl' };
    expect(matched('semantic', 'Exports are at most 2 GB.', item, cache)).toBe('substring');
    expect(matched('semantic', 'Exports are limited to two gigabytes.', item, cache)).toBe('normalized');
    expect(matched('semantic', 'Exports are capped at two thousand megabytes.', item, cache)).toBeUndefined();
    expect(claimMatching(claimsSchema.parse({ match: 'semantic', ...cache, nfkc: true }))).toEqual({
      rule: 'semantic',
      with: { nfkc: true, minTokenRecall: 1 },
    });
  });

  it('names each rule in the flags by its place in the table', () => {
    expect(matchedBy('substring')).toBe(0);
    expect(matchedBy('normalized')).toBe(1 << 27);
    expect(matchedBy('semantic')).toBe(2 << 27);
    expect(matchRule(CORRECT_RUN | matchedBy('semantic'))).toBe('semantic');
    expect(isVerdict(CORRECT_RUN | matchedBy('semantic'), true)).toBe(true);
    // A fourth place names no rule of this table: no merge takes it.
    expect(isVerdict(CORRECT_RUN | (3 << 27), true)).toBe(false);
    expect(() => matchedBy('judged')).toThrow(/no claim rule "judged"/);
  });
});

/**
 * A rule from this file alone: a fact of several words is also found as its initials, a whole word of the
 * claim ("time to live" as "TTL"), after the substring rule. `min_words` is its own option.
 */
const initialsOptions = z.strictObject({ min_words: z.int().min(2).default(2) });
const initials: ClaimRule<typeof initialsOptions, number> = {
  name: 'initials',
  options: initialsOptions,
  create: (o) => o.min_words,
  match(claim, lower, item, minWords) {
    const found = substring.match(claim, lower, item, null);
    if (found !== undefined) return found;
    for (const fact of item.facts) {
      const words = fact.trim().split(/\s+/);
      if (words.length >= minWords && containsWord(lower, words.map((w) => w[0]!.toLowerCase()).join('')))
        return 'initials';
    }
    return undefined;
  },
  advice: 'no gold fact is in the claim, whole or as its initials',
};

/*
 * Four answerable items, the gold chunk d<qid> retrieved each time:
 *   A "The TTL is one hour."          fact "time to live"     initials; cites dA: correct
 *   B "The time to live is an hour."  fact "time to live"     substring; cites dB: correct
 *   C "The RTT is 5 ms."              fact "round trip time"  initials; cites dX: citation_miss
 *   D "The lifetime is one hour."     fact "time to live"     a miss: claim_miss
 */
const TOY = [
  ['A', 'time to live', 'The TTL is one hour.', 'dA'],
  ['B', 'time to live', 'The time to live is an hour.', 'dB'],
  ['C', 'round trip time', 'The RTT is 5 ms.', 'dX'],
  ['D', 'time to live', 'The lifetime is one hour.', 'dD'],
] as const;

async function toyCheck(claims: Record<string, unknown>): Promise<Report> {
  const dir = tmpTree({
    'gold.jsonl': jsonl(
      TOY.map(([qid, fact]) => ({
        qid,
        question: `What is ${qid}?`,
        answerable: true,
        gold_citations: [`d${qid}`],
        gold_claim_substr: [fact],
      })),
    ),
    'traces.jsonl': jsonl(
      TOY.map(([qid, , claim, cited]) => ({
        qid,
        retrieved_ids: [`d${qid}`, 'dX'],
        answer_json: { claim, citations: [cited] },
      })),
    ),
  });
  const suites = { qa: { kind: 'grounded-qa', gold: 'gold.jsonl', traces: 'traces.jsonl', claims } };
  writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
  return (await run({ config: path.join(dir, 'gates.yaml') })).report;
}

describe('a rule added to the table from a test file', () => {
  let remove = () => {};
  beforeAll(() => {
    remove = addClaimRule(initials as unknown as ClaimRule);
    // A rule added at run time is known to this thread only: the suite is read here.
    vi.stubEnv('GROUNDGATE_THREADS', '1');
  });
  afterAll(() => {
    remove();
    vi.unstubAllEnvs();
  });

  it('is taken by gates.yaml with its own option, which no other rule takes', () => {
    const issues = (claims: unknown) =>
      claimsSchema.safeParse(claims).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(claimsSchema.parse({ match: 'initials' })).toEqual({ match: 'initials', min_words: 2 });
    expect(issues({ match: 'initials', min_words: 1 })?.[0]).toMatch(/^min_words: /);
    expect(issues({ match: 'normalized', min_words: 3 })).toEqual([
      'min_words: applies to match: initials only; expected match: initials with it, or no min_words',
    ]);
    expect(issues({ match: 'initials', nfkc: true })).toEqual([
      'nfkc: applies to match: normalized or semantic only; expected one of them with it, or no nfkc',
    ]);
    // A name every object has is no option either.
    expect(issues({ match: 'initials', constructor: 1 })?.[0]).toMatch(
      /^constructor: is not a key of claims:/,
    );
    expect(issues({ match: 'acronym' })).toEqual([
      'match: expected one of "substring"|"normalized"|"semantic"|"initials"',
    ]);
  });

  it('judges the claims, and report.json names it on offenders, in the counts and in triage', async () => {
    const report = await toyCheck({ match: 'initials' });
    const qa = report.suites.qa!;
    // A and B are correct; C's claim holds its fact but cites dX; D's does not.
    expect(qa.metrics.precision).toMatchObject({ value: 2 / 4, numerator: 2, denominator: 4 });
    expect(qa.counts).toMatchObject({
      claims_substring: 1,
      claims_normalized: 0,
      claims_semantic: 0,
      claims_initials: 2,
    });
    expect(qa.offenders.map((o) => [o.id, o.labels.join('+'), o.match ?? '-'])).toEqual([
      ['C', 'citation_miss', 'initials'],
      ['D', 'claim_miss', '-'],
    ]);
    expect(qa.triage).toMatchObject({ answered_wrong: { citation: 1, containment: 1 }, claims: 'initials' });
    expect(stageRows(qa.triage!).find((r) => r.key === 'containment')?.advice).toBe(initials.advice);
    // Its place in the table, the fourth, is a verdict a merge takes while the rule is in the table.
    expect(isVerdict(CORRECT_RUN | matchedBy('initials'), true)).toBe(true);
    expect(matchedBy('initials')).toBe(3 << 27);
    // The report is one report.json's schema takes.
    expect(reportSchema.safeParse(JSON.parse(serializeReport(report))).success).toBe(true);
  });

  it('reads its option: initials of 3 words are not enough under min_words: 4', async () => {
    const qa = (await toyCheck({ match: 'initials', min_words: 4 })).suites.qa!;
    expect(qa.metrics.precision).toMatchObject({ value: 1 / 4 });
    expect(qa.counts).toMatchObject({ claims_substring: 1, claims_initials: 0 });
  });

  it('takes no name the table has or had, nor a ninth rule', () => {
    expect(() => addClaimRule({ ...substring, name: 'judged' } as ClaimRule)).toThrow(/already names a rule/);
    expect(() => addClaimRule({ ...substring, name: 'Two Words' } as ClaimRule)).toThrow(/a-z, 0-9 and _/);
    const added = [];
    for (let i = claimRules().length; i < MAX_CLAIM_RULES; i++)
      added.push(addClaimRule({ ...substring, name: `filler${i}` } as ClaimRule));
    expect(() => addClaimRule({ ...substring, name: 'ninth' } as ClaimRule)).toThrow(/holds 8 rules/);
    for (const take of added) take();
    expect(claimRules().map((r) => r.name)).toEqual(['substring', 'normalized', 'semantic', 'initials']);
  });
});

describe('a rule added to the table that asks the judge (asksJudge), as the semantic rule does', () => {
  const asker = { ...semantic, name: 'asker', formerly: undefined } as unknown as ClaimRule;
  let remove = () => {};
  beforeAll(() => {
    remove = addClaimRule(asker);
    vi.stubEnv('GROUNDGATE_THREADS', '1');
  });
  afterAll(() => {
    remove();
    vi.unstubAllEnvs();
  });

  it('has its misses read by the judge after judging: the run reports the judge pass', async () => {
    const qa = (await toyCheck({ match: 'asker', cache: 'judgments.jsonl' })).suites.qa!;
    // Matched as normalized, only B holds its fact; no judge is configured, so A's, C's and D's misses stay
    // unjudged, and are counted so.
    expect(qa.counts).toMatchObject({ claims_asker: 0, unjudged_items: 3, new_judgments: 0 });
    expect((await toyCheck({ match: 'normalized' })).suites.qa!.counts.unjudged_items).toBeUndefined();
  });

  it('is refused in shards, and its judgments file is what the action commits', () => {
    expect(asksJudge({ match: 'asker' })).toBe(true);
    expect(asksJudge({ match: 'normalized' })).toBe(false);
    expect(asksJudge(undefined)).toBe(false);
    expect(() => refuseShards({ match: 'asker' })).toThrow(
      'claims: {match: asker} cannot be scored in shards (--partial, mode partial); expected one check over all traces',
    );
    expect(() => refuseShards({ match: 'normalized' })).not.toThrow();
    const config = {
      dir: '/repo',
      suites: [
        { name: 'qa', config: { claims: { match: 'asker', cache: 'j/asker.jsonl' } } },
        { name: 'plain', config: { claims: { match: 'normalized' } } },
      ],
    } as unknown as LoadedConfig;
    const report = {
      suites: { qa: { counts: { new_judgments: 3 } }, plain: { counts: {} } },
    } as unknown as Report;
    expect(judgmentOutputs(report, config)).toEqual({ files: ['/repo/j/asker.jsonl'], count: 3 });
  });
});

describe('a baseline written before the semantic rule had its name', () => {
  it('reads `judged` as `semantic`, on offenders and in the counts, where they stood', async () => {
    const report = await toyCheck({ match: 'normalized' });
    const old = JSON.parse(serializeReport(report)) as {
      suites: { qa: { counts: Record<string, number>; offenders: { match?: string }[] } };
    };
    const counts = old.suites.qa.counts;
    // As a report of then: claims_judged where claims_semantic is, an offender the judge passed.
    old.suites.qa.counts = Object.fromEntries(
      Object.entries(counts).map(([k, n]) => [k === 'claims_semantic' ? 'claims_judged' : k, n]),
    );
    old.suites.qa.offenders[0]!.match = 'judged';
    const text = JSON.stringify(old);
    expect(reportSchema.safeParse(JSON.parse(text)).success).toBe(false);

    const read = parseBaseline(text, 'base.json').suites.qa!;
    expect(read.offenders[0]!.match).toBe('semantic');
    expect(Object.keys(read.counts)).toEqual(Object.keys(counts));
    expect(read.counts.claims_semantic).toBe(0);
  });

  it('still refuses a rule name no rule had', async () => {
    const old = JSON.parse(serializeReport(await toyCheck({ match: 'normalized' }))) as {
      suites: { qa: { offenders: { match?: string }[] } };
    };
    old.suites.qa.offenders[0]!.match = 'fuzzy';
    expect(() => parseBaseline(JSON.stringify(old), 'base.json')).toThrow(
      'base.json: baseline is not a groundgate report: suites.qa.offenders.0.match: expected one of "substring"|"normalized"|"semantic" (found "fuzzy"); expected a report.json written by groundgate (check --report, or the Action\'s report output)',
    );
  });
});
