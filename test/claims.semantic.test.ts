import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { run } from '../src/run.js';
import { serializeReport } from '../src/report/schema.js';
import { InputError, UsageError } from '../src/errors.js';
import { writePartialRun } from '../src/partial/run.js';
import { configSchema } from '../src/suites/grounded-qa/config.js';
import { JudgeServer } from './helpers/judge-server.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

/*
 * claims: {match: semantic} end to end, offline: run() over a small suite, the judge a stand-in server on
 * 127.0.0.1 answering from a hand-written table (test/helpers/judge-server.ts).
 *
 * Gold: four answerable items, one unanswerable. The claims of Q1-Q3 hold their fact in words neither the
 * substring nor the normalized rule matches; Q4's holds it verbatim. Every answer cites its gold chunk.
 */
const GOLD = [
  {
    qid: 'Q1',
    question: 'What happens to a null key?',
    answerable: true,
    gold_claim_substr: ['rejects null keys'],
    gold_citations: ['keys#1'],
  },
  {
    qid: 'Q2',
    question: 'Which port do clients use?',
    answerable: true,
    gold_claim_substr: ['port 7420'],
    gold_citations: ['install#5'],
  },
  {
    qid: 'Q3',
    question: 'Where must the data directory live?',
    answerable: true,
    gold_claim_substr: ['local filesystem'],
    gold_citations: ['install#4'],
  },
  {
    qid: 'Q4',
    question: 'How long can a key be?',
    answerable: true,
    gold_claim_substr: ['512 bytes'],
    gold_citations: ['keys#2'],
  },
  {
    qid: 'Q5',
    question: 'Who founded the project?',
    answerable: false,
    gold_claim_substr: [],
    gold_citations: [],
  },
];
const CLAIMS = {
  Q1: 'A write with a null key is refused with an error.',
  Q2: 'Clients connect to 7420 over TCP.',
  Q3: 'Any mounted disk works, a network share too.',
  Q4: 'A key is at most 512 bytes long.',
};
const CITED = { Q1: 'keys#1', Q2: 'install#5', Q3: 'install#4', Q4: 'keys#2' };

function traces(claims: Record<string, string> = CLAIMS): string {
  return jsonl([
    ...Object.entries(claims).map(([qid, claim]) => ({
      qid,
      retrieved_ids: [CITED[qid as keyof typeof CITED]],
      answer_json: { claim, citations: [CITED[qid as keyof typeof CITED]] },
    })),
    { qid: 'Q5', retrieved_ids: ['faq#1'], answer_json: { claim: 'not in context', citations: [] } },
  ]);
}

function suite(claims: string, files: Record<string, string> = {}): string {
  return tmpTree({
    'gates.yaml': `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    claims: ${claims}
    gates:
      precision: '>= 0.7'
`,
    'gold.jsonl': jsonl(GOLD),
    'traces.jsonl': traces(),
    ...files,
  });
}

const CACHE = '.groundgate/judgments.jsonl';
const SEMANTIC = `{ match: semantic, cache: ${CACHE} }`;
const MODEL = 'stand-in-judge-2026-11-28';

const server = new JudgeServer();
beforeAll(async () => {
  await server.start();
  server.label(CLAIMS.Q1, 'rejects null keys', 'SUPPORTED').label(CLAIMS.Q2, 'port 7420', 'SUPPORTED');
});
afterAll(() => server.stop());
afterEach(() => {
  vi.unstubAllEnvs();
  server.requests = [];
});

/** The judge's environment: the model always (it is part of every key), the endpoint and key when `key`. */
function judgeEnv(key: boolean, more: Record<string, string> = {}): void {
  vi.stubEnv('GROUNDGATE_JUDGE_MODEL', MODEL);
  vi.stubEnv('GROUNDGATE_JUDGE_BASE_URL', key ? server.baseUrl : '');
  vi.stubEnv('GROUNDGATE_JUDGE_API_KEY', key ? 'sk-test-key' : '');
  for (const [k, v] of Object.entries(more)) vi.stubEnv(k, v);
}

const check = (dir: string) => run({ config: path.join(dir, 'gates.yaml') });
const cacheLines = (dir: string) =>
  readFileSync(path.join(dir, CACHE), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { key: string; verdict: string; model_returned: string; prompt: string });

describe('claims: {match: semantic}', () => {
  it('asks once per miss with a key, rescues what the judge supports, writes sorted lines', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    const { report } = await check(dir);
    const qa = report.suites.qa!;
    // Q1, Q2, Q3 missed (one fact each): three asks; Q4 is a substring hit, never asked.
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.values!.fact).sort()).toEqual([
      'local filesystem',
      'port 7420',
      'rejects null keys',
    ]);
    expect(server.requests.every((r) => r.authorization === 'Bearer sk-test-key')).toBe(true);
    const lines = cacheLines(dir);
    expect(lines.map((l) => l.key)).toEqual(lines.map((l) => l.key).sort());
    expect(lines.map((l) => l.verdict).sort()).toEqual(['NOT_SUPPORTED', 'SUPPORTED', 'SUPPORTED']);
    expect(lines[0]!.model_returned).toBe(MODEL);
    // Shipped: Q1-Q4. Correct: Q4 (substring), Q1 and Q2 (judged): 3/4; Q3 stays a claim miss.
    expect(qa.metrics.precision).toMatchObject({ value: 0.75, numerator: 3, denominator: 4 });
    expect(qa.counts).toMatchObject({
      claims_substring: 1,
      claims_normalized: 0,
      claims_semantic: 2,
      judged_items: 3,
      judge_rescues: 2,
      unjudged_items: 0,
      new_judgments: 3,
    });
    expect(qa.offenders.map((o) => `${o.id}:${o.labels.join('+')}`)).toEqual(['Q3:claim_miss']);
    expect(qa.warnings).toContain(`3 new judgments: commit ${CACHE}`);
    expect(qa.warnings.find((w) => w.startsWith('2 judge-only rescues'))).toMatch(/: Q1, Q2$/);
    // Over the three items with both verdicts (all misses): judge SUPPORTED 2, not 1. Agreement 1/3; rows
    // (0, 3), columns (2, 1): chance agreement (0·2 + 3·1) / 9 = 1/3, the observed: kappa 0.
    expect(qa.tables![0]!.rows).toEqual([
      ['hit', 0, 0],
      ['miss', 2, 1],
    ]);
    expect(qa.tables![1]!.rows).toEqual([['deterministic vs judge', 3, 1 / 3, 0]]);
    expect(qa.tables![2]!.rows).toEqual([
      ['Q1', 'rejects null keys', CLAIMS.Q1],
      ['Q2', 'port 7420', CLAIMS.Q2],
    ]);
    expect(report.verdict).toBe('pass');
  });

  it('one miss with a key: one request and one cache line', async () => {
    const dir = suite(SEMANTIC, {
      'traces.jsonl': traces({ ...CLAIMS, Q1: 'It rejects null keys.', Q3: 'A local filesystem.' }),
    });
    judgeEnv(true);
    const { report } = await check(dir);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.values).toEqual({
      question: GOLD[1]!.question,
      claim: CLAIMS.Q2,
      fact: 'port 7420',
    });
    expect(server.requests[0]!.body).toMatchObject({ model: MODEL, temperature: 0 });
    expect(cacheLines(dir)).toHaveLength(1);
    expect(report.suites.qa!.metrics.precision!.value).toBe(1);
  });

  it('over a complete cache: no request, and the same report bytes with the key or offline', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    await check(dir);
    const cache = readFileSync(path.join(dir, CACHE));
    server.requests = [];
    const again = serializeReport((await check(dir)).report);
    expect(server.requests).toHaveLength(0);
    judgeEnv(false);
    const offline = serializeReport((await check(dir)).report);
    expect(offline).toBe(again);
    expect(serializeReport((await check(dir)).report)).toBe(offline);
    expect(readFileSync(path.join(dir, CACHE))).toEqual(cache);
    const qa = JSON.parse(offline).suites.qa;
    expect(qa.counts).toMatchObject({ judge_rescues: 2, new_judgments: 0 });
    expect(qa.metrics.precision.value).toBe(0.75);
  });

  it('misses without a key are unjudged: warn keeps the miss and lists them, fail refuses precision', async () => {
    judgeEnv(false);
    const warn = suite(SEMANTIC);
    const { report } = await check(warn);
    const qa = report.suites.qa!;
    expect(server.requests).toHaveLength(0);
    expect(existsSync(path.join(warn, CACHE))).toBe(false);
    expect(qa.metrics.precision).toMatchObject({ value: 0.25, numerator: 1, denominator: 4 });
    expect(qa.counts).toMatchObject({ judged_items: 0, unjudged_items: 3, new_judgments: 0 });
    expect(qa.warnings).toContain(
      '3 claim misses unjudged (no GROUNDGATE_JUDGE_API_KEY): kept as misses: Q1, Q2, Q3',
    );
    expect(qa.tables![1]!.rows).toEqual([['deterministic vs judge', 0, null, 'n/a']]);

    const fail = suite(`{ match: semantic, cache: ${CACHE}, unjudged: fail }`);
    const failed = (await check(fail)).report;
    expect(failed.suites.qa!.metrics.precision).toEqual({
      value: null,
      reason: '3 claim misses unjudged (unjudged: fail)',
    });
    expect(failed.gates.find((g) => g.metric === 'precision')).toMatchObject({ passed: false, value: null });
    expect(failed.verdict).toBe('fail');
  });

  it('without GROUNDGATE_JUDGE_MODEL no key can be made: every miss unjudged, saying why', async () => {
    vi.stubEnv('GROUNDGATE_JUDGE_MODEL', '');
    vi.stubEnv('GROUNDGATE_JUDGE_API_KEY', '');
    const { report } = await check(suite(SEMANTIC));
    expect(report.suites.qa!.warnings).toContain(
      '3 claim misses unjudged (GROUNDGATE_JUDGE_MODEL is not set): kept as misses: Q1, Q2, Q3',
    );
  });

  it('each line records the model asked; a run with no GROUNDGATE_JUDGE_* reads the file under it', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    const recorded = (await check(dir)).report.suites.qa!;
    expect(cacheLines(dir).map((l) => (l as { model?: string }).model)).toEqual([MODEL, MODEL, MODEL]);
    expect(recorded.metrics.precision).toMatchObject({ value: 0.75, numerator: 3, denominator: 4 });
    server.requests = [];
    for (const name of ['MODEL', 'BASE_URL', 'API_KEY']) vi.stubEnv(`GROUNDGATE_JUDGE_${name}`, '');
    const bare = (await check(dir)).report.suites.qa!;
    expect(server.requests).toHaveLength(0);
    // Q1 and Q2 judged SUPPORTED, Q4 a substring hit, Q3 a miss: 3 of 4, as when recorded.
    expect(bare.metrics.precision).toMatchObject({ value: 0.75, numerator: 3, denominator: 4 });
    expect(bare.counts).toMatchObject({ judged_items: 3, judge_rescues: 2, unjudged_items: 0 });
    expect(bare.warnings.filter((w) => /unjudged|GROUNDGATE_JUDGE_MODEL/.test(w))).toEqual([]);
  });

  it('without GROUNDGATE_JUDGE_MODEL a file of several models names them; lines without a model name none', async () => {
    const two =
      '{"key":"%K","verdict":"SUPPORTED","model":"%M","model_returned":"x","fingerprint":null,"prompt":"p","recorded_at":"2026-11-28T13:00:00Z"}';
    const line = (k: string, m: string) => two.replace('%K', k.repeat(64)).replace('%M', m);
    vi.stubEnv('GROUNDGATE_JUDGE_MODEL', '');
    vi.stubEnv('GROUNDGATE_JUDGE_API_KEY', '');
    const several = suite(SEMANTIC, {
      [CACHE]: [line('a', 'judge-b-2026-01-01'), line('b', 'judge-a-2026-01-01')].join('\n') + '\n',
    });
    expect((await check(several)).report.suites.qa!.warnings).toContain(
      `3 claim misses unjudged (GROUNDGATE_JUDGE_MODEL is not set and ${CACHE} holds judgments of 2 models (judge-a-2026-01-01, judge-b-2026-01-01); set it to one): kept as misses: Q1, Q2, Q3`,
    );
    const old = suite(SEMANTIC, { [CACHE]: line('c', 'x').replace(',"model":"x"', '') + '\n' });
    const qa = (await check(old)).report.suites.qa!;
    expect(qa.warnings).toContain(
      '3 claim misses unjudged (GROUNDGATE_JUDGE_MODEL is not set): kept as misses: Q1, Q2, Q3',
    );
    // A line without `model` is kept as it was when the file is written again.
    judgeEnv(true);
    await check(old);
    expect(readFileSync(path.join(old, CACHE), 'utf8')).toContain(line('c', 'x').replace(',"model":"x"', ''));
  });

  it('GROUNDGATE_JUDGE_MODEL naming a model the file does not hold: a warning, and the questions asked anew', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    await check(dir);
    judgeEnv(false, { GROUNDGATE_JUDGE_MODEL: 'other-judge-2026-12-01' });
    const qa = (await check(dir)).report.suites.qa!;
    expect(qa.warnings).toContain(
      `GROUNDGATE_JUDGE_MODEL=other-judge-2026-12-01, but ${CACHE} holds judgments of ${MODEL} only: none of them answers a question under other-judge-2026-12-01`,
    );
    expect(qa.counts).toMatchObject({ unjudged_items: 3 });
  });

  it('a changed claim or model is a new key: asked again', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    await check(dir);
    writeFileSync(path.join(dir, 'traces.jsonl'), traces({ ...CLAIMS, Q3: 'It may live on any disk.' }));
    server.requests = [];
    await check(dir);
    expect(server.requests.map((r) => r.values!.claim)).toEqual(['It may live on any disk.']);
    expect(cacheLines(dir)).toHaveLength(4);
    server.requests = [];
    judgeEnv(true, { GROUNDGATE_JUDGE_MODEL: 'stand-in-judge-2026-11-29' });
    await check(dir);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.body!.model === 'stand-in-judge-2026-11-29')).toBe(true);
    expect(cacheLines(dir)).toHaveLength(7);
  });

  it('a budget spent leaves the rest unjudged, listed, never dropped', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true, { GROUNDGATE_JUDGE_MAX_CALLS: '1' });
    const { report } = await check(dir);
    const qa = report.suites.qa!;
    expect(server.requests).toHaveLength(1);
    expect(cacheLines(dir)).toHaveLength(1);
    expect(qa.counts).toMatchObject({ new_judgments: 1, unjudged_items: 2 });
    // The one ask sent is the first in key order; the other two items are listed.
    const asked = { 'rejects null keys': 'Q1', 'port 7420': 'Q2', 'local filesystem': 'Q3' }[
      server.requests[0]!.values!.fact
    ];
    const others = ['Q1', 'Q2', 'Q3'].filter((q) => q !== asked).join(', ');
    expect(qa.warnings).toContain(
      `2 claim misses unjudged (budget: not sent: 1 calls is the budget (GROUNDGATE_JUDGE_MAX_CALLS)): kept as misses: ${others}`,
    );
    expect(qa.warnings).toContain(`1 new judgment: commit ${CACHE}`);
  });

  it('two lines of one key with different verdicts are an error naming both lines', async () => {
    const dir = suite(SEMANTIC);
    judgeEnv(true);
    await check(dir);
    const lines = readFileSync(path.join(dir, CACHE), 'utf8').trimEnd().split('\n');
    const flipped = lines[0]!.includes('"NOT_SUPPORTED"')
      ? lines[0]!.replace('"NOT_SUPPORTED"', '"SUPPORTED"')
      : lines[0]!.replace('"SUPPORTED"', '"NOT_SUPPORTED"');
    writeFileSync(path.join(dir, CACHE), [...lines, flipped].join('\n') + '\n');
    judgeEnv(false);
    const err = await check(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/judgments\.jsonl:4: .* at line 1; expected one verdict per key/);
  });

  it('require_committed refuses precision when a judgment was not in the file, and passes once it is', async () => {
    const dir = suite(`{ match: semantic, cache: ${CACHE}, require_committed: true }`);
    judgeEnv(true);
    const first = (await check(dir)).report;
    expect(first.suites.qa!.metrics.precision).toEqual({
      value: null,
      reason: `3 judgments not in ${CACHE} (require_committed)`,
    });
    expect(first.verdict).toBe('fail');
    judgeEnv(false);
    const second = (await check(dir)).report;
    expect(second.suites.qa!.metrics.precision!.value).toBe(0.75);
    expect(second.verdict).toBe('pass');
  });

  it('judge_hits_sample judges hits too; labels add judge vs human kappa; min_kappa refuses below it', async () => {
    const labels = jsonl([
      { qid: 'Q1', verdict: 'SUPPORTED' },
      { qid: 'Q2', verdict: 'NOT_SUPPORTED' },
      { qid: 'Q3', verdict: 'NOT_SUPPORTED' },
      { qid: 'Q4', verdict: 'SUPPORTED' },
    ]);
    const config = (min: number) =>
      `{ match: semantic, cache: ${CACHE}, judge_hits_sample: 1, labels: labels.jsonl, min_kappa: ${min} }`;
    server.label(CLAIMS.Q4, '512 bytes', 'SUPPORTED');
    judgeEnv(true);
    const dir = suite(config(0.3), { 'labels.jsonl': labels });
    const { report } = await check(dir);
    const qa = report.suites.qa!;
    // Q4, the one hit, is sampled: four asks.
    expect(server.requests).toHaveLength(4);
    expect(qa.tables![0]!.rows).toEqual([
      ['hit', 1, 0],
      ['miss', 2, 1],
    ]);
    // Deterministic vs judge: diagonal 1 + 1 of 4; rows (1, 3), columns (3, 1): chance 1·3 + 3·1 = 6,
    // kappa (4·2 − 6) / (16 − 6) = 0.2. Judge vs human: judge S,S,N,S (Q1..Q4), human S,N,N,S: agree 3 of 4;
    // rows (3, 1), columns (2, 2): chance 6 + 2 = 8, kappa (4·3 − 8) / (16 − 8) = 0.5.
    expect(qa.tables![1]!.rows).toEqual([
      ['deterministic vs judge', 4, 0.5, 0.2],
      ['judge vs human', 4, 0.75, 0.5],
    ]);
    expect(qa.metrics.precision!.value).toBe(0.75);

    const cache = readFileSync(path.join(dir, CACHE), 'utf8');
    // min_kappa at exactly the kappa (0.5) passes: "below it" refuses.
    const exact = (await check(suite(config(0.5), { 'labels.jsonl': labels, [CACHE]: cache }))).report;
    expect(exact.suites.qa!.metrics.precision).toMatchObject({ value: 0.75 });
    expect(exact.suites.qa!.counts).toMatchObject({ judge_rescues: 2 });
    const strict = (await check(suite(config(0.6), { 'labels.jsonl': labels, [CACHE]: cache }))).report;
    const refused = strict.suites.qa!;
    expect(refused.metrics.precision).toEqual({
      value: null,
      reason: 'judge vs human kappa 0.5000 is below min_kappa 0.6: semantic matching refused',
    });
    // Refused: the judge's rescues are not applied, the misses stay offenders.
    expect(refused.counts).toMatchObject({ judge_rescues: 0 });
    expect(refused.offenders.map((o) => o.id)).toEqual(['Q1', 'Q2', 'Q3']);
    expect(strict.verdict).toBe('fail');
  });

  it('with claims unset the report has no semantic keys', async () => {
    const dir = suite(SEMANTIC);
    const plain = tmpTree({
      'gates.yaml': readFileSync(path.join(dir, 'gates.yaml'), 'utf8').replace(/ {4}claims: .*\n/, ''),
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': traces(),
    });
    const qa = (await check(plain)).report.suites.qa!;
    expect(qa.tables).toBeUndefined();
    expect(Object.keys(qa.counts)).not.toContain('judged_items');
  });
});

describe("the README's judge steps", () => {
  it('parse, and name only inputs and outputs action.yml has', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const block = /```yaml\n(# Steps of the gate job[\s\S]*?)```/.exec(readme)![1]!;
    const steps = parse(block) as { id?: string; uses: string; if?: string; with: Record<string, unknown> }[];
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    const gate = steps.find((s) => s.id === 'gate')!;
    for (const input of Object.keys(gate.with)) expect(action.inputs).toHaveProperty(input);
    expect(gate.with['judge-api-key']).toBe('${{ secrets.JUDGE_API_KEY }}');
    const upload = steps.find((s) => s.uses.startsWith('actions/upload-artifact'))!;
    expect(upload.with.path).toBe('${{ steps.gate.outputs.judgments-file }}');
    expect(upload.if).toContain('steps.gate.outputs.new-judgments');
    for (const output of ['judgments-file', 'new-judgments']) expect(action.outputs).toHaveProperty(output);
  });
});

describe('claims: {match: semantic} in shards', () => {
  it('is refused: one check reads and writes the judgments file', async () => {
    judgeEnv(false);
    const dir = suite(SEMANTIC);
    const err = await writePartialRun(path.join(dir, 'qa.partial'), {
      config: path.join(dir, 'gates.yaml'),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      'claims: {match: semantic} cannot be scored in shards (--partial, mode partial); expected one check over all traces',
    );
  });
});

describe('claims: semantic keys in gates.yaml', () => {
  const message = (claims: unknown) =>
    configSchema
      .safeParse({ kind: 'grounded-qa', gold: 'g.jsonl', traces: 't.jsonl', claims })
      .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

  it('takes them with match: semantic, refuses them without it, and min_kappa without labels', () => {
    expect(
      message({ match: 'semantic', cache: 'j.jsonl', unjudged: 'fail', judge_hits_sample: 5 }),
    ).toBeUndefined();
    expect(message({ match: 'normalized', cache: 'j.jsonl' })).toEqual([
      'claims.cache: applies to match: semantic only; expected match: semantic with it, or no cache',
    ]);
    expect(message({ match: 'semantic', cache: 'README.md' })).toEqual([
      'claims.cache: expected a JSON Lines file (.jsonl), which a run with a key rewrites',
    ]);
    expect(message({ match: 'semantic', cache: 'j.jsonl', min_kappa: 0.6 })).toEqual([
      'claims.min_kappa: is judge vs human agreement; expected labels: (human verdicts, JSON Lines) with it',
    ]);
    expect(message({ match: 'semantic', cache: 'j.jsonl', unjudged: 'ignore' })?.[0]).toMatch(
      /^claims\.unjudged: /,
    );
  });

  it('takes pricing: inline (the cost/pricing schema) or a file name, with match: semantic only', () => {
    const prices = { 'm-2024-07-18': { input: 0.15, output: 0.6 } };
    expect(message({ match: 'semantic', cache: 'j.jsonl', pricing: prices })).toBeUndefined();
    expect(message({ match: 'semantic', cache: 'j.jsonl', pricing: 'prices.yaml' })).toBeUndefined();
    expect(message({ match: 'normalized', pricing: prices })).toEqual([
      'claims.pricing: applies to match: semantic only; expected match: semantic with it, or no pricing',
    ]);
    expect(
      message({ match: 'semantic', cache: 'j.jsonl', pricing: { m: { input: 1, output: 1, cache: 1 } } }),
    ).toHaveLength(1);
  });

  it('keeps the cache inside the workspace', async () => {
    judgeEnv(false);
    const dir = suite(`{ match: semantic, cache: ../outside.jsonl }`);
    const err = await check(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(
      /suites\.qa\.claims\.cache: path "\.\.\/outside\.jsonl" resolves outside the workspace/,
    );
  });
});
