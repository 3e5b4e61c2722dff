import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { isRefusal, refusalRule } from '../src/grounded-answer/refusal.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { run } from '../src/run.js';
import { otlpLines, readJsonlFile } from './helpers/formats.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';
import { claimsApart, scored } from './helpers/scored.js';
import { configError } from './helpers/config-error.js';

// Refusals as pipelines signal them (issue #44): the example's canonical traces, their refusals worded
// otherwise and matched by `refusal:` phrases or patterns, or flagged by a `refused` member, score exactly
// as the canonical traces.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = readJsonlFile<TraceLine>('runs/qa.trace.jsonl');
const TOKEN = 'not in context';
const QA = { kind: 'grounded-qa', k: 5, scu: true };

type Report = Record<string, unknown> & {
  metrics: Record<string, { value?: number; numerator?: number; denominator?: number }>;
  counts: Record<string, number>;
  offenders: Record<string, unknown>[];
};

/** The traces with each refusal's claim replaced by `say(i)` (i counting refusals) and `extra` added. */
function reworded(say: (i: number) => string, extra: (refused: boolean) => object = () => ({})) {
  let i = 0;
  return TRACES.map((t) => {
    const refused = t.answer_json.claim === TOKEN;
    const answer_json = refused ? { ...t.answer_json, claim: say(i++) } : t.answer_json;
    return { ...t, answer_json, ...extra(refused) };
  });
}

const PHRASED = [
  "I couldn't find that in the docs.",
  "  i COULDN'T FIND it",
  'Not in context.',
  'not in context',
];
const PATTERNED = ["I don't know.", 'i do not know where that is', 'Sorry - no idea at all'];

describe('refusal rules', () => {
  it('phrases, patterns and flags make the canonical verdicts: every metric, count, stage and offender', async () => {
    const phrased = reworded((i) => PHRASED[i % PHRASED.length]!);
    const patterned = reworded((i) => PATTERNED[i % PATTERNED.length]!);
    const flagged = reworded(
      () => 'Sorry, the documents say nothing about that.',
      (refused) => ({ refused }),
    );
    const suites = await scored<Report>(
      {
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(TRACES),
        'phrased.jsonl': jsonl(phrased),
        'patterned.jsonl': jsonl(patterned),
        'flagged.jsonl': jsonl(flagged),
        'declined.jsonl': jsonl(
          flagged.map(({ refused, ...t }) => ({ ...t, output: { declined: refused } })),
        ),
        // OpenInference: the LLM span's JSON output carries the flag beside the answer.
        'declined.otlp.jsonl': otlpLines(
          flagged.map(({ refused, ...t }) => ({
            ...t,
            answer_json: { ...t.answer_json, declined: refused } as TraceLine['answer_json'],
          })),
          (t) => `question of ${t.qid}`,
        ),
        'flagged.parquet': Buffer.from(
          parquetWriteBuffer({
            columnData: [
              { name: 'ts', data: flagged.map((t) => BigInt(t.ts as number)), type: 'INT64' },
              { name: 'qid', data: flagged.map((t) => t.qid), type: 'STRING' },
              { name: 'retrieved_ids', data: flagged.map((t) => t.retrieved_ids) },
              { name: 'answer_json', data: flagged.map((t) => t.answer_json) },
              { name: 'refused', data: flagged.map((t) => t.refused), type: 'BOOLEAN' },
            ],
            rowGroupSize: 16,
          }),
        ),
      },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        phrased: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'phrased.jsonl',
          refusal: { phrases: ["I couldn't find", 'not in context'] },
        },
        patterned: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'patterned.jsonl',
          refusal: { patterns: ["^I (do not|don't) know", '^sorry\\b.*\\bno idea'] },
        },
        flagged: { ...QA, gold: 'gold.jsonl', traces: 'flagged.jsonl' },
        declined: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'declined.jsonl',
          fields: { traces: { '/refused': '/output/declined' } },
        },
        flaggedParquet: { ...QA, gold: 'gold.jsonl', traces: 'flagged.parquet' },
        declinedOtlp: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'declined.otlp.jsonl',
          format: 'openinference',
          openinference: { qid: 'metadata.qid' },
          fields: { traces: { '/refused': '/output/declined' } },
        },
        // The same reworded traces without the rule: their refusals are answers.
        unruled: { ...QA, gold: 'gold.jsonl', traces: 'phrased.jsonl' },
      },
    );
    const canonical = claimsApart(suites.canonical!);
    // The example's own figures, so that equal cannot mean equally empty.
    // 15 refusal lines, 14 of them winning runs (FM031's is superseded); FM009 and FM043 are answerable.
    expect(suites.canonical!.counts).toMatchObject({ traced: 47, refused: 14, answered: 33 });
    expect(suites.canonical!.metrics.over_refusal).toMatchObject({ numerator: 2, denominator: 35 });
    for (const name of ['phrased', 'patterned', 'flagged', 'declined', 'flaggedParquet', 'declinedOtlp'])
      expect([name, claimsApart(suites[name]!).report]).toEqual([name, canonical.report]);
    // The offenders show each claim as the pipeline wrote it: the over-refusals FM009 (the third refusal
    // line) and FM043 (the thirteenth).
    const rewordedClaims = (name: string) =>
      claimsApart(suites[name]!).claims.filter((c, i) => c !== canonical.claims[i]);
    expect(rewordedClaims('phrased')).toEqual(['Not in context.', "I couldn't find that in the docs."]);
    expect(rewordedClaims('patterned')).toEqual(['Sorry - no idea at all', "I don't know."]);
    // Without the rule only the winning runs that say the token (FM012, FM024, FM040) are refusals.
    expect(suites.unruled!.counts).toMatchObject({ refused: 3, answered: 44 });
  });
});

describe('the text rule', () => {
  const rule = refusalRule(' Not In Context ', {
    phrases: ["I couldn't find", 'no information'],
    patterns: ["^I (do not|don't) know", 'cannot answer$'],
  });
  it('the token is the whole claim, trimmed, in any case', () => {
    expect(isRefusal('  NOT in context\n', rule)).toBe(true);
    expect(isRefusal('not in context.', rule)).toBe(false);
    expect(isRefusal('It is not in context', rule)).toBe(false);
  });
  it('a phrase starts the trimmed claim, as whole words', () => {
    expect(isRefusal("I couldn't find that in the docs.", rule)).toBe(true);
    expect(isRefusal("\t i COULDN'T FIND", rule)).toBe(true);
    expect(isRefusal("I couldn't find, sorry", rule)).toBe(true);
    expect(isRefusal('No information é', rule)).toBe(true);
    // A letter or digit after it makes another word.
    expect(isRefusal("I couldn't finding it", rule)).toBe(false);
    expect(isRefusal('no informationé', rule)).toBe(false);
    expect(isRefusal('no information2', rule)).toBe(false);
    // Past ASCII, the claim's slice is lowercased as JavaScript does: the Kelvin sign is a k.
    const german = refusalRule(TOKEN, { phrases: ['Keine Angabe', 'NO INFORMACIÓN'], patterns: [] });
    expect(isRefusal('\u212Aeine Angabe dazu.', german)).toBe(true);
    expect(isRefusal('No información, lo siento', german)).toBe(true);
    expect(isRefusal('No informaciónes', german)).toBe(false);
    // Lowercasing lengthens "İ" (two code units) and reads a final "Σ" by what follows: the claim's prefix is
    // lowercased as the rule says, not a slice the phrase's length (the review found "İşte yok" never matched).
    const turkish = refusalRule(TOKEN, { phrases: ['İşte yok', 'ΚΑΜΙΑ ΑΠΑΝΤΗΣΗ ΟΔΟΣ'], patterns: [] });
    expect(isRefusal('İşte yok', turkish)).toBe(true);
    expect(isRefusal('İŞTE YOK, bulamadım.', turkish)).toBe(true);
    expect(isRefusal('  işte yok', turkish)).toBe(false); // "i" is not "i̇": JavaScript's lowercasing decides
    expect(isRefusal('İşte yoklar', turkish)).toBe(false);
    expect(isRefusal('Καμια απαντηση οδος.', turkish)).toBe(true);
    expect(isRefusal('ΚΑΜΙΑ ΑΠΑΝΤΗΣΗ ΟΔΟΣ', turkish)).toBe(true);
    // Not a prefix: somewhere inside the claim is an answer that mentions it.
    expect(isRefusal("Yes. I couldn't find a limit.", rule)).toBe(false);
  });
  it('a claim that starts or ends with a character trim removes is trimmed before it is compared', () => {
    expect(isRefusal('Not in context \n', rule)).toBe(true);
    expect(isRefusal('\tnot in CONTEXT', rule)).toBe(true);
    expect(isRefusal('Not in context.\n', rule)).toBe(false);
  });
  it('every ASCII capital is folded, A to Z', () => {
    const az = refusalRule(TOKEN, { phrases: ['zap the quiz'], patterns: [] });
    expect(isRefusal('ZAP THE QUIZ', az)).toBe(true);
    expect(isRefusal('Zap the quiz, sorry.', az)).toBe(true);
    expect(isRefusal('AZAP THE QUIZ', az)).toBe(false);
  });
  it('a pattern is tested case-insensitively on the trimmed claim', () => {
    expect(isRefusal("  i DON'T know  ", rule)).toBe(true);
    expect(isRefusal('I do not know.', rule)).toBe(true);
    expect(isRefusal('Sorry, I cannot answer  ', rule)).toBe(true);
    expect(isRefusal('Well, I do not know', rule)).toBe(false);
  });
});

describe('a refused flag decides', () => {
  it('over the claim, either way; without one, the text rule', async () => {
    const gold = [
      { qid: 'A', question: 'a?', answerable: true, gold_claim_substr: ['blue sky'], gold_citations: ['d1'] },
      { qid: 'U', question: 'u?', answerable: false, gold_claim_substr: [], gold_citations: [] },
      { qid: 'V', question: 'v?', answerable: false, gold_claim_substr: [], gold_citations: [] },
    ];
    const traces = [
      // Flagged as an answer although the claim is the token: shipped, and wrong.
      { qid: 'A', retrieved_ids: ['d1'], answer_json: { claim: TOKEN, citations: ['d1'] }, refused: false },
      // Flagged as a refusal whatever it says.
      {
        qid: 'U',
        retrieved_ids: ['d1'],
        answer_json: { claim: 'blue sky', citations: ['d1'] },
        refused: true,
      },
      { qid: 'V', retrieved_ids: [], answer_json: { claim: TOKEN, citations: [] } },
    ];
    const suites = await scored<Report>(
      { 'gold.jsonl': jsonl(gold), 'traces.jsonl': jsonl(traces) },
      { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' } },
    );
    const qa = suites.qa!;
    expect(qa.counts).toMatchObject({ answered: 1, refused: 2 });
    expect(qa.offenders.map((o) => [o.id, o.labels])).toEqual([['A', ['claim_miss']]]);
  });
  it('a refused flag that is not a boolean is an error at its line', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl([TRACES[0], { ...TRACES[1], refused: 'yes' }]),
      'gates.yaml': YAML.stringify({
        version: 1,
        suites: { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' } },
      }),
    });
    await expect(run({ config: path.join(dir, 'gates.yaml') })).rejects.toThrow(
      `${path.join(dir, 'traces.jsonl')}:2: field "refused": expected boolean, received string (a trace {qid, retrieved_ids, answer_json: {claim, citations}})`,
    );
  });
});

describe('stability', () => {
  const gold = readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8');
  const runs = readJsonlFile<Record<string, unknown> & { answer_json: { claim: string } }>(
    'examples/stability/runs.jsonl',
  );
  const STABILITY = { kind: 'stability', gold: 'gold.jsonl', min_runs: 2 };
  it('reworded refusals with a phrase, and flagged runs, score as the canonical runs', async () => {
    const refusal = (r: (typeof runs)[number]) => r.answer_json.claim.trim().toLowerCase() === TOKEN;
    const canon = runs.map((r) =>
      refusal(r) ? { ...r, answer_json: { ...r.answer_json, claim: TOKEN } } : r,
    );
    const suites = await scored<Report>(
      {
        'gold.jsonl': gold,
        'runs.jsonl': jsonl(canon),
        'phrased.jsonl': jsonl(
          canon.map((r) =>
            refusal(r) ? { ...r, answer_json: { ...r.answer_json, claim: 'No information on that.' } } : r,
          ),
        ),
        'flagged.jsonl': jsonl(
          canon.map((r) => ({
            ...r,
            answer_json: { ...r.answer_json, claim: refusal(r) ? 'Sorry.' : r.answer_json.claim },
            refused: refusal(r),
          })),
        ),
      },
      {
        canonical: { ...STABILITY, runs: 'runs.jsonl' },
        phrased: { ...STABILITY, runs: 'phrased.jsonl', refusal: { phrases: ['no information'] } },
        flagged: { ...STABILITY, runs: 'flagged.jsonl' },
        unruled: { ...STABILITY, runs: 'phrased.jsonl' },
      },
    );
    const metricsOf = (name: string) => suites[name]!.metrics;
    expect(canon.filter(refusal).length).toBeGreaterThan(0);
    expect(metricsOf('phrased')).toEqual(metricsOf('canonical'));
    expect(metricsOf('flagged')).toEqual(metricsOf('canonical'));
    expect(suites.phrased!.counts).toEqual(suites.canonical!.counts);
    expect(metricsOf('unruled')).not.toEqual(metricsOf('canonical'));
  });
});

describe('gates.yaml', () => {
  const config = (refusal: string) =>
    `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    refusal:\n${refusal}    gates:\n      precision: ">= 0.8"\n`;
  const error = configError;
  it('refuses a pattern that is not RE2 syntax or matches without text, and a blank phrase, at line:column', () => {
    expect(error(config("      patterns: ['^I (do not|don''t) know', '(unclosed']\n"))).toBe(
      'gates.yaml:8:45: suite "qa": refusal.patterns.1: regular expression "(unclosed": missing closing ): `(unclosed`; expected RE2 syntax (no lookahead, lookbehind or backreferences)',
    );
    expect(error(config("      patterns: ['(?<!not )sorry']\n"))).toBe(
      'gates.yaml:8:18: suite "qa": refusal.patterns.0: regular expression "(?<!not )sorry": invalid named capture: `(?<!not )sorry`; expected RE2 syntax (no lookahead, lookbehind or backreferences)',
    );
    expect(error(config("      patterns: ['\\bno\\b', 'x*']\n"))).toBe(
      'gates.yaml:8:28: suite "qa": refusal.patterns.1: regular expression "x*" matches without reading any text, so every claim would be a refusal; expected one that matches some text',
    );
    expect(error(config("      phrases: ['  ']\n"))).toBe(
      'gates.yaml:8:17: suite "qa": refusal.phrases.0: expected a phrase that is not blank, which every claim would start with',
    );
    expect(error(config('      phrase: [nope]\n'))).toMatch(
      /^gates\.yaml:8:7: suite "qa": refusal: unknown key "phrase"; did you mean "phrases"\?/,
    );
  });
});

describe('partials', () => {
  it('a shard judged with other refusal rules does not merge', async () => {
    const gates = (phrases: string[]) =>
      YAML.stringify({
        version: 1,
        suites: { qa: { ...QA, gold: 'gold.jsonl', traces: 'traces/*.jsonl', refusal: { phrases } } },
      });
    const dir = tmpTree({
      'gold.jsonl': jsonl(GOLD),
      'traces/a.jsonl': jsonl(TRACES.slice(0, 25)),
      'traces/b.jsonl': jsonl(TRACES.slice(25)),
      'gates.yaml': gates(["I couldn't find"]),
    });
    const config = path.join(dir, 'gates.yaml');
    const part = (name: string) => path.join(dir, `${name}.partial`);
    await writePartialRun(part('a'), {
      config,
      inputs: [{ key: 'traces', path: path.join(dir, 'traces/a.jsonl') }],
    });
    writeFileSync(config, gates(["I couldn't find", 'no information']));
    await writePartialRun(part('b'), {
      config,
      inputs: [{ key: 'traces', path: path.join(dir, 'traces/b.jsonl') }],
    });
    await expect(mergeRun([part('a'), part('b')], { config })).rejects.toThrow(
      /a\.partial: written with another config \(gates\.yaml, sha256 \w+…\); expected this merge's gates\.yaml \(sha256 \w+…\)/,
    );
    // With the rules it was judged by, the shards merge.
    writeFileSync(config, gates(["I couldn't find"]));
    await writePartialRun(part('b'), {
      config,
      inputs: [{ key: 'traces', path: path.join(dir, 'traces/b.jsonl') }],
    });
    const merged = await mergeRun([part('a'), part('b')], { config });
    expect(merged.report.suites.qa!.counts).toMatchObject({ traced: 47, refused: 14 });
  });
});
