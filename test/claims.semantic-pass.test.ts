import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { UsageError } from '../src/errors.js';
import { claimMissed } from '../src/grounded-answer/verdict-flags.js';
import { metricsToCompute, prepareRun, scoreContext, suiteInputs } from '../src/run.js';
import { refuseShards, semanticPass, semanticSettings, withSemantic } from '../src/claims/semantic.js';
import type { SuiteResult } from '../src/suites/types.js';
import type { GroundedQaConfig } from '../src/suites/grounded-qa/config.js';
import { judgeSuite } from '../src/suites/grounded-qa/judged.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/*
 * semanticPass, semanticSettings, withSemantic and refuseShards called directly, over a suite judged as check
 * judges it and a judgments file written by hand, its keys computed here by docs/metrics.md's rule. No
 * endpoint: GROUNDGATE_JUDGE_MODEL only, so whatever the file lacks is unjudged.
 */
const MODEL = 'judge-2026-01-01';
const GOLD = [
  ['Q1', 'What happens to a null key?', 'rejects null keys', 'keys#1'],
  ['Q2', 'Which port do clients use?', 'port 7420', 'install#5'],
  ['Q3', 'Where must the data live?', 'local filesystem', 'install#4'],
  ['Q4', 'How long can a key be?', '512 bytes', 'keys#2'],
] as const;
const CLAIMS: Record<string, string> = {
  Q1: 'A write with a null key is refused.',
  Q2: 'Clients connect to 7420.',
  Q3: 'Any disk works.',
  Q4: 'A key is at most 512 bytes long.',
};

/** The key of (qid's question, its claim, its fact) under MODEL and the bundled prompt, computed apart. */
function key(qid: string): string {
  const [, question, fact] = GOLD.find((g) => g[0] === qid)!;
  const canonical = JSON.stringify({
    claim: CLAIMS[qid],
    fact,
    model: MODEL,
    prompt: 'groundgate/claim-support@1',
    prompt_sha256: '7f498c13ef1f5c6183d0d4a9405b8fdb38b8b1ca4ba96ae880b4f14c89ed6c08',
    question,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

const line = (qid: string, verdict: string) => ({
  key: key(qid),
  verdict,
  model: MODEL,
  model_returned: MODEL,
  fingerprint: null,
  prompt: 'groundgate/claim-support@1',
  recorded_at: '2026-12-01T00:00:00.000Z',
});

async function pass(claims: string, files: Record<string, string>) {
  const dir = tmpTree({
    'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    claims: ${claims}\n`,
    'gold.jsonl': jsonl(
      GOLD.map(([qid, question, fact, cited]) => ({
        qid,
        question,
        answerable: true,
        gold_claim_substr: [fact],
        gold_citations: [cited],
      })),
    ),
    'traces.jsonl': jsonl(
      GOLD.map(([qid, , , cited]) => ({
        qid,
        retrieved_ids: [cited],
        answer_json: { claim: CLAIMS[qid], citations: [cited] },
      })),
    ),
    ...files,
  });
  const file = path.join(dir, 'gates.yaml');
  const setup = prepareRun({ config: file, suites: [], loaded: loadConfig(file) });
  const suite = setup.selected[0]!;
  const ctx = scoreContext(setup, suite, await suiteInputs(suite, setup.config, []), metricsToCompute(suite));
  const config = suite.config as GroundedQaConfig;
  const judged = await judgeSuite(config, ctx);
  const settings = semanticSettings(config.claims!, ctx.resolvePath);
  const outcome = await semanticPass(judged, settings, ctx, { GROUNDGATE_JUDGE_MODEL: MODEL });
  const missed = (qid: string) =>
    claimMissed(judged.loaded.table.flags[judged.gold.findIndex((g) => g.qid === qid)]!);
  return { outcome, missed, settings, dir };
}

const CACHE = '.groundgate/judgments.jsonl';

describe('semanticPass', () => {
  it('rescues the misses the file supports, keeps the rest, and leaves the ones it lacks unjudged', async () => {
    const { outcome, missed } = await pass(`{ match: semantic, cache: ${CACHE} }`, {
      [CACHE]: jsonl([line('Q1', 'SUPPORTED'), line('Q2', 'UNCLEAR')]),
    });
    expect(outcome.counts).toEqual({
      judged_items: 2,
      judge_rescues: 1,
      unjudged_items: 1,
      new_judgments: 0,
    });
    expect(['Q1', 'Q2', 'Q3', 'Q4'].map(missed)).toEqual([false, true, true, false]);
    // Both judged items are deterministic misses: judge SUPPORTED 1, not 1. Diagonal 1 of 2; rows (0, 2),
    // columns (1, 1): chance (0 + 2) / 4 = 0.5, kappa (0.5 - 0.5) / 0.5 = 0.
    expect(outcome.tables.map((t) => t.rows)).toEqual([
      [
        ['hit', 0, 0],
        ['miss', 1, 1],
      ],
      [['deterministic vs judge', 2, 0.5, 0]],
      [['Q1', 'rejects null keys', CLAIMS.Q1]],
    ]);
    expect(outcome.warnings).toEqual([
      '1 claim miss unjudged (no GROUNDGATE_JUDGE_API_KEY): kept as misses: Q3',
      '1 judge-only rescue (no deterministic rule matched, the judge said SUPPORTED; review them, they carry the false-positive risk): Q1',
    ]);
    expect(outcome.refusal).toBeUndefined();
  });

  it('counts a label pinned to the claim judged, leaves out one pinned to another claim', async () => {
    const labels = jsonl([
      { qid: 'Q1', verdict: 'SUPPORTED', claim: CLAIMS.Q1 },
      { qid: 'Q2', verdict: 'SUPPORTED', claim: 'Clients use port 7420.' },
      { qid: 'Q3', verdict: 'NOT_SUPPORTED' },
    ]);
    const { outcome } = await pass(`{ match: semantic, cache: ${CACHE}, labels: labels.jsonl }`, {
      [CACHE]: jsonl([line('Q1', 'SUPPORTED'), line('Q2', 'NOT_SUPPORTED'), line('Q3', 'NOT_SUPPORTED')]),
      'labels.jsonl': labels,
    });
    // Judge vs human over Q1 (S, S) and Q3 (N, N): Q2's label was given for another claim. Two of two agree;
    // rows and columns (1, 1): chance 0.5, kappa (1 - 0.5) / 0.5 = 1.
    expect(outcome.tables[1]!.rows).toEqual([
      ['deterministic vs judge', 3, 2 / 3, 0],
      ['judge vs human', 2, 1, 1],
    ]);
  });

  it('min_kappa refuses the rescues below it or when kappa is not computable, and names why', async () => {
    const files = {
      [CACHE]: jsonl([line('Q1', 'SUPPORTED'), line('Q2', 'NOT_SUPPORTED'), line('Q3', 'NOT_SUPPORTED')]),
      // Only Q1 labelled: one item, kappa 0/0.
      'labels.jsonl': jsonl([{ qid: 'Q1', verdict: 'SUPPORTED' }]),
    };
    const { outcome, missed } = await pass(
      `{ match: semantic, cache: ${CACHE}, labels: labels.jsonl, min_kappa: 0.2 }`,
      files,
    );
    expect(outcome.refusal).toMatch(
      /^judge vs human kappa n\/a \(.+\) is below min_kappa 0\.2: semantic matching refused$/,
    );
    expect(missed('Q1')).toBe(true);
    expect(outcome.counts).toMatchObject({ judge_rescues: 0 });
    expect(outcome.tables[2]!.title).toBe('claims: judge-only rescues, not applied (min_kappa)');
  });
});

describe('semanticSettings, withSemantic, refuseShards', () => {
  it('defaults unjudged to warn, require_committed to false, the hits sample to 0; resolves both paths', () => {
    const resolve = (k: string) => `/ws/${k}`;
    expect(semanticSettings({ cache: 'j.jsonl' }, resolve)).toEqual({
      cache: '/ws/claims.cache',
      unjudged: 'warn',
      requireCommitted: false,
      hitsSample: 0,
    });
    expect(
      semanticSettings(
        {
          cache: 'j.jsonl',
          unjudged: 'fail',
          require_committed: true,
          judge_hits_sample: 3,
          labels: 'l.jsonl',
          min_kappa: 0,
        },
        resolve,
      ),
    ).toEqual({
      cache: '/ws/claims.cache',
      unjudged: 'fail',
      requireCommitted: true,
      hitsSample: 3,
      labels: '/ws/claims.labels',
      minKappa: 0,
    });
  });

  it('adds counts, tables and warnings to a result, and makes precision not computable on a refusal', () => {
    const result = {
      metrics: { precision: { value: 0.5 }, chr: { value: 1 } },
      counts: { items: 4 },
      tables: [{ title: 't', columns: ['a'], rows: [[1]] }],
      warnings: ['w'],
    } as unknown as SuiteResult;
    const semantic = {
      counts: { judge_rescues: 1 },
      tables: [{ title: 's', columns: ['b'], rows: [[2]] }],
      warnings: ['x'],
      judge: { requests: 2, tokens_in: 300, tokens_out: 4, without_usage: 0 },
    };
    expect(withSemantic(result, semantic)).toMatchObject({
      metrics: { precision: { value: 0.5 }, chr: { value: 1 } },
      counts: { items: 4, judge_rescues: 1 },
      tables: [{ title: 't' }, { title: 's' }],
      warnings: ['w', 'x'],
      judge: { requests: 2, tokens_in: 300, tokens_out: 4, without_usage: 0 },
    });
    expect(withSemantic(result, { ...semantic, refusal: 'why' }).metrics).toEqual({
      precision: { value: null, reason: 'why' },
      chr: { value: 1 },
    });
  });

  it('refuses shards of a semantic suite only', () => {
    expect(() => refuseShards({ match: 'semantic' })).toThrow(UsageError);
    expect(() => refuseShards({ match: 'normalized' })).not.toThrow();
    expect(() => refuseShards(undefined)).not.toThrow();
  });
});
