import { cpSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeCommand } from '../src/cli/normalize.js';
import type { EventDocument } from '../src/suites/agent-retrieval/contract.js';
import { parseDocumentJson } from '../src/suites/agent-retrieval/load.js';
import { normalizeRun } from '../src/suites/agent-retrieval/normalize/run.js';
import { scoreTask } from '../src/suites/agent-retrieval/stages/task.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

/*
 * The real flipt-eval-latency-fix-001 task (test/fixtures/csb, see its README): the baseline trial's first
 * 16 trajectory steps and transcript lines, and an MCP trial with a result.json but no trace.
 */
const CSB = path.join(FIXTURES, 'csb');
const RUN_ID = 'fix_haiku_20260223_171232';
const RUN = path.join(CSB, 'runs', 'staging', RUN_ID);
const TASKS = path.join(CSB, 'tasks');
const TRIAL = 'baseline-local-direct/2026-02-23__19-49-20/flipt-eval-latency-fix-001__dSKQeTz';
const AT = '2026-03-01T00:00:00Z';

/** A copy of the fixture run with the baseline trial's trace files limited to `keep`. */
function runWith(keep: readonly ('trajectory.json' | 'claude-code.txt')[]): string {
  const dir = path.join(tmpTree({}), RUN_ID);
  cpSync(RUN, dir, { recursive: true });
  for (const file of ['trajectory.json', 'claude-code.txt'] as const) {
    if (!keep.includes(file)) rmSync(path.join(dir, TRIAL, 'agent', file));
  }
  return dir;
}

async function normalized(keep: readonly ('trajectory.json' | 'claude-code.txt')[]) {
  const run = await normalizeRun(runWith(keep), { tasksDir: TASKS, generatedAt: AT });
  const [baseline, mcp] = run.tasks;
  return { baseline: baseline!, mcp: mcp!, warnings: run.warnings };
}

const SERVER = 'internal/server/evaluation/server.go';
const EVALUATION = 'internal/server/evaluation/evaluation.go';
const LEGACY = 'internal/server/evaluation/legacy_evaluator.go';

/*
 * Tool calls in trace order: TodoWrite (0), Bash (1), Bash (2), TaskOutput (3), TaskStop (4), Read server.go
 * (5), Read evaluation.go (6). TodoWrite, TaskOutput and TaskStop are not in the seed's table: no event, but
 * they keep their ordinals. Elapsed seconds from the first step (20:08:46.018Z): 20:08:57.055 → 11.037,
 * 20:09:03.117 → 17.099, 20:11:38.638 → 172.620, 20:11:41.495 → 175.477. Tokens per API message
 * (input + cache creation + cache read + output, e.g. 9 + 5288 + 15583 + 8 = 20888; the trajectory's
 * prompt 15592 + completion 8 + cache creation 5288 is the same), running: 20888, +21444 = 42332,
 * +21702 = 64034, +21890 = 85924, +22075 = 107999, +22271 = 130270, +23077 = 153347.
 */
function expectedEvents(timed: boolean) {
  const time = (ts: string, s: number) =>
    timed ? { timestamp: ts, elapsed: s } : { timestamp: null, elapsed: null };
  const event = (
    step: number,
    name: string,
    category: string,
    args: Record<string, string>,
    targets: string[],
    tokens: number,
    t: { timestamp: string | null; elapsed: number | null },
  ) => ({
    step_index: step,
    timestamp: t.timestamp,
    tool_name: name,
    tool_category: category,
    is_mcp: false,
    arguments: args,
    target_files: targets,
    hits_ground_truth: targets.length > 0,
    matched_ground_truth_files: targets,
    is_subagent: false,
    cumulative_tokens: tokens,
    elapsed_seconds: t.elapsed,
  });
  return [
    event(
      1,
      'Bash',
      'other',
      {
        command: 'find /workspace/internal/server/evaluation -type f -name "*.go" | head -20',
        description: 'List Go files in evaluation package',
      },
      [],
      42332,
      time('2026-02-23T20:08:57.055Z', 11.037),
    ),
    event(
      2,
      'Bash',
      'other',
      {
        command: 'go test ./internal/server/evaluation/... -v 2>&1 | head -100',
        description: 'Run tests in evaluation package',
      },
      [],
      64034,
      time('2026-02-23T20:09:03.117Z', 17.099),
    ),
    event(
      5,
      'Read',
      'file_read',
      { file_path: `/workspace/${SERVER}` },
      [SERVER],
      130270,
      time('2026-02-23T20:11:38.638Z', 172.62),
    ),
    event(
      6,
      'Read',
      'file_read',
      { file_path: `/workspace/${EVALUATION}` },
      [EVALUATION],
      153347,
      time('2026-02-23T20:11:41.495Z', 175.477),
    ),
  ];
}

/*
 * Stage 1 by hand. Retrieved, in event order: server.go, evaluation.go; ground truth: server.go,
 * evaluation.go, legacy_evaluator.go (|GT| = 3). Both retrieved files are relevant, at ranks 1 and 2.
 * P@k = 2/k beyond k = 2 (P@1 = 1); recall@1 = 1/3, then 2/3; F1@1 = 2·1·⅓/(4/3) = 0.5, F1@3 = ⅔,
 * F1@5 = 2·0.4·⅔/(0.4 + ⅔) = 0.5, F1@10 = 2·0.2·⅔/(0.2 + ⅔) = 4/13; nDCG@1 = 1, and for k ≥ 3
 * (1 + 1/log2 3) / (1 + 1/log2 3 + 1/log2 4) = 0.765361; MRR 1; MAP (1/1 + 2/2)/3 = ⅔; file recall ⅔;
 * context efficiency 2/2; TTFR: the Read of server.go, 172.62 s and 130270 tokens.
 */
const NDCG3 = (1 + 1 / Math.log2(3)) / (1 + 1 / Math.log2(3) + 0.5);
function expectStage1(doc: EventDocument, ttfrSeconds: number | null) {
  const m = scoreTask(doc, [1, 3, 5, 10]).metrics;
  const v = (name: string) => m[name]!.value;
  expect([v('P@1'), v('P@3'), v('P@5'), v('P@10')]).toEqual([1, 2 / 3, 0.4, 0.2]);
  expect([v('recall@1'), v('recall@3'), v('recall@5'), v('recall@10')]).toEqual([1 / 3, 2 / 3, 2 / 3, 2 / 3]);
  expect(v('f1@1')).toBeCloseTo(0.5, 12);
  expect(v('f1@3')).toBeCloseTo(2 / 3, 12);
  expect(v('f1@5')).toBeCloseTo(0.5, 12);
  expect(v('f1@10')).toBeCloseTo(4 / 13, 12);
  expect(v('ndcg@1')).toBe(1);
  for (const k of [3, 5, 10]) expect(v(`ndcg@${k}`)).toBeCloseTo(NDCG3, 12);
  expect(NDCG3).toBeCloseTo(0.765361, 6);
  expect([v('mrr'), v('map'), v('file_recall'), v('context_efficiency')]).toEqual([1, 2 / 3, 2 / 3, 1]);
  expect(v('ttfr_tokens')).toBe(130270);
  if (ttfrSeconds === null) {
    expect(m.ttfr_seconds).toEqual({ value: null, reason: 'the trace has no timestamps' });
  } else {
    expect(v('ttfr_seconds')).toBe(ttfrSeconds);
  }
}

const truth = {
  files: [SERVER, EVALUATION, LEGACY],
  // the task's ground_truth.json lists each edit file twice; once is enough
  expected_edit_files: [SERVER, EVALUATION],
  expected_edit_files_source: 'curator_agent_verifier_analysis',
  expected_edit_files_confidence: 'high',
};

describe('normalize: the fixture task from either trace or both', () => {
  it('merges trajectory and transcript when both are there', async () => {
    const { baseline } = await normalized(['trajectory.json', 'claude-code.txt']);
    const doc = baseline.doc;
    expect(doc.schema_version).toBe('1.0');
    expect(doc.generated_at).toBe(AT);
    expect(doc.provenance).toEqual({
      run_id: RUN_ID,
      batch_timestamp: '2026-02-23__19-49-20',
      task_name: 'flipt-eval-latency-fix-001',
      trial_name: 'flipt-eval-latency-fix-001__dSKQeTz',
      config_name: 'baseline-local-direct',
      benchmark: 'csb_sdlc_fix',
      model: 'claude-haiku-4-5-20251001',
    });
    expect(doc.coverage).toEqual({
      has_trajectory: true,
      has_transcript: true,
      has_ground_truth: true,
      has_chunk_ground_truth: false,
      trace_source: 'merged',
      degraded_reason: null,
      ground_truth_source: 'ground_truth_json_files',
      // ground_truth.json has no confidence; its ground_truth_meta.json says medium
      ground_truth_confidence: 'medium',
    });
    expect(doc.ground_truth).toMatchObject(truth);
    expect(doc.ground_truth.symbols).toHaveLength(9);
    expect(doc.events).toEqual(expectedEvents(true));
    expect(doc.summary).toEqual({
      total_events: 4,
      mcp_events: 0,
      local_events: 4,
      unique_files_accessed: 2,
      ground_truth_files_hit: 2,
      ground_truth_files_total: 3,
      first_ground_truth_hit_step: 5,
      events_by_category: { file_read: 2, other: 2 },
    });
    expect(baseline.file).toBe(
      path.join(
        path.dirname(path.dirname(path.dirname(baseline.trialDir))),
        'retrieval_events',
        'baseline-local-direct',
        'flipt-eval-latency-fix-001.retrieval_events.json',
      ),
    );
    expectStage1(doc, 172.62);
  });

  it('reads the transcript alone: same events and tokens, no timestamps', async () => {
    const { baseline } = await normalized(['claude-code.txt']);
    expect(baseline.doc.coverage).toMatchObject({
      has_trajectory: false,
      has_transcript: true,
      trace_source: 'transcript',
      degraded_reason: null,
    });
    expect(baseline.doc.events).toEqual(expectedEvents(false));
    expectStage1(baseline.doc, null);
  });

  it('reads the trajectory alone: same events, timed', async () => {
    const { baseline } = await normalized(['trajectory.json']);
    expect(baseline.doc.coverage).toMatchObject({
      has_trajectory: true,
      has_transcript: false,
      trace_source: 'trajectory',
      degraded_reason: null,
    });
    expect(baseline.doc.events).toEqual(expectedEvents(true));
    expectStage1(baseline.doc, 172.62);
  });

  it('degrades without trace files: no events, trace_source null, not scored', async () => {
    const { mcp } = await normalized(['trajectory.json', 'claude-code.txt']);
    expect(mcp.doc.provenance).toEqual({
      run_id: RUN_ID,
      batch_timestamp: null, // a job folder, not a timestamp
      task_name: 'flipt-eval-latency-fix-001', // result.json says sgonly_flipt-eval-latency-fix-001
      trial_name: 'sgonly_flipt-eval-latency-fix-00__HYEnaUV',
      config_name: 'mcp-remote-direct',
      benchmark: 'csb_sdlc_fix',
      model: 'claude-haiku-4-5-20251001',
    });
    expect(mcp.doc.coverage).toMatchObject({
      has_trajectory: false,
      has_transcript: false,
      has_ground_truth: true,
      trace_source: null,
      degraded_reason: 'no agent/trajectory.json or agent/claude-code.txt',
    });
    expect(mcp.doc.events).toEqual([]);
    const score = scoreTask(mcp.doc, [10]);
    expect(score.fileLevel.reason).toBe('no usable trace: no agent/trajectory.json or agent/claude-code.txt');
    expect(score.metrics.file_recall).toEqual({ value: null, reason: score.fileLevel.reason });
  });

  it('reads outcomes: a trial result.json, else the reward its job result.json lists', async () => {
    const { baseline, mcp } = await normalized(['trajectory.json', 'claude-code.txt']);
    expect(baseline.outcome).toEqual({
      reward: 0.55, // from the job's reward_stats: the baseline trial has no result.json of its own
      cost_usd: null,
      wall_seconds: null,
      tokens: null,
      model: null,
      harness: null,
    });
    expect(mcp.outcome).toEqual({
      reward: 0,
      cost_usd: null,
      wall_seconds: 380.637192, // 20:19:38.352894 → 20:25:58.990086
      tokens: 13830255 + 397,
      model: 'claude-haiku-4-5-20251001',
      harness: null, // agent_info.version is "unknown"
    });
  });
});

/**
 * A small JSON Schema checker (the keywords retrieval_events_schema.json uses: type, const, enum, required,
 * properties, additionalProperties, items, minimum, $ref), so the documents are checked against the
 * published schema itself, not only against groundgate's contract.
 */
function schemaErrors(schema: Record<string, unknown>, value: unknown, root = schema, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const def = (root.$defs as Record<string, Record<string, unknown>>)[schema.$ref.replace('#/$defs/', '')]!;
    return schemaErrors(def, value, root, at);
  }
  const errors: string[] = [];
  const types = schema.type === undefined ? [] : ([] as unknown[]).concat(schema.type);
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (
    types.length > 0 &&
    !types.some((t) => t === typeOf(value) || (t === 'number' && typeOf(value) === 'integer'))
  ) {
    return [`${at}: type ${typeOf(value)} is not ${types.join('|')}`];
  }
  if ('const' in schema && value !== schema.const) errors.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) {
    errors.push(`${at}: below ${schema.minimum}`);
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) =>
      errors.push(...schemaErrors(schema.items as Record<string, unknown>, v, root, `${at}[${i}]`)),
    );
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const key of (schema.required ?? []) as string[])
      if (!(key in object)) errors.push(`${at}: missing ${key}`);
    for (const [key, v] of Object.entries(object)) {
      if (properties[key]) errors.push(...schemaErrors(properties[key], v, root, `${at}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unknown ${key}`);
      else if (typeof schema.additionalProperties === 'object') {
        errors.push(
          ...schemaErrors(schema.additionalProperties as Record<string, unknown>, v, root, `${at}.${key}`),
        );
      }
    }
  }
  return errors;
}

describe('normalize: documents conform to retrieval_events_schema.json v1.0', () => {
  const schema = JSON.parse(readFileSync(path.join(CSB, 'retrieval_events_schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;

  it('checks what it should (a broken document fails)', () => {
    expect(schemaErrors(schema, { schema_version: '2.0', events: [{ step_index: -1 }] })).toEqual(
      expect.arrayContaining([
        '$.schema_version: not "1.0"',
        '$: missing provenance',
        '$.events[0].step_index: below 0',
        '$.events[0]: missing tool_name',
      ]),
    );
  });

  it('every fixture document validates, with the expected_edit_files extension the only addition', async () => {
    for (const keep of [
      ['trajectory.json', 'claude-code.txt'],
      ['claude-code.txt'],
      ['trajectory.json'],
    ] as const) {
      const { baseline, mcp } = await normalized(keep);
      for (const task of [baseline, mcp]) {
        const plain = JSON.parse(JSON.stringify(task.doc)) as Record<string, Record<string, unknown>>;
        expect(schemaErrors(schema, plain)).toEqual([
          '$.ground_truth: unknown expected_edit_files',
          '$.ground_truth: unknown expected_edit_files_source',
          '$.ground_truth: unknown expected_edit_files_confidence',
        ]);
        const rest = Object.fromEntries(
          Object.entries(plain.ground_truth!).filter(([key]) => !key.startsWith('expected_edit_files')),
        );
        expect(schemaErrors(schema, { ...plain, ground_truth: rest })).toEqual([]);
        // and groundgate's own contract reads it back unchanged
        const text = JSON.stringify(task.doc);
        expect(parseDocumentJson({ file: 'doc.json', text, value: JSON.parse(text) })).toEqual(task.doc);
      }
    }
  });
});

/** Every file under a folder, relative, with its size and mtime: what "left alone" means. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), `${statSync(p).size}:${statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

function cli(env: NodeJS.ProcessEnv = {}) {
  const io = { stdout: '', stderr: '' };
  return {
    io,
    run: (argv: string[]) =>
      normalizeCommand.run(argv, {
        stdout: (s) => (io.stdout += s),
        stderr: (s) => (io.stderr += s),
        isTty: false,
        env,
      }),
  };
}

describe('groundgate normalize', () => {
  it('writes RUN/retrieval_events/{config}/{task}.retrieval_events.json and leaves the run alone', async () => {
    const run = runWith(['trajectory.json', 'claude-code.txt']);
    const before = snapshot(run);
    const c = cli();
    expect(await c.run([run, '--tasks', TASKS, '--generated-at', AT])).toBe(0);
    const after = snapshot(run);
    const added = [...after.keys()].filter((k) => !before.has(k)).sort();
    expect(added).toEqual([
      'retrieval_events/baseline-local-direct/flipt-eval-latency-fix-001.retrieval_events.json',
      'retrieval_events/mcp-remote-direct/flipt-eval-latency-fix-001.retrieval_events.json',
    ]);
    for (const [k, v] of before) expect(after.get(k)).toBe(v);
    expect(c.io.stdout).toMatch(
      /^wrote 2 retrieval-event documents to .*retrieval_events: 1 merged, 0 trajectory only, 0 transcript only, 1 without a usable trace; 0 without ground truth\n$/,
    );
    const written = readFileSync(path.join(run, added[0]!), 'utf8');
    const { baseline } = await normalized(['trajectory.json', 'claude-code.txt']);
    expect(written).toBe(`${JSON.stringify(baseline.doc, null, 2)}\n`);

    // Same inputs, same bytes.
    expect(await cli().run([run, '--tasks', TASKS, '--generated-at', AT])).toBe(0);
    expect(readFileSync(path.join(run, added[0]!), 'utf8')).toBe(written);
  });

  it('--out DIR, and DIR/{run_id}/ for several runs; SOURCE_DATE_EPOCH dates them', async () => {
    const out = tmpTree({});
    const c = cli({ SOURCE_DATE_EPOCH: '1772323200' });
    expect(await c.run([RUN, '--out', out])).toBe(0);
    const doc = JSON.parse(
      readFileSync(
        path.join(out, 'baseline-local-direct', 'flipt-eval-latency-fix-001.retrieval_events.json'),
        'utf8',
      ),
    ) as EventDocument;
    expect(doc.generated_at).toBe('2026-03-01T00:00:00.000Z');
    expect(doc.provenance.benchmark).toBe('unknown'); // no --tasks: no benchmark folder, no ground truth
    expect(doc.coverage.has_ground_truth).toBe(false);
    expect(c.io.stderr).toContain(
      'baseline-local-direct/flipt-eval-latency-fix-001: no ground truth (no --tasks folder)',
    );

    const two = tmpTree({});
    const second = path.join(tmpTree({}), 'other_run');
    cpSync(RUN, second, { recursive: true });
    expect(
      await cli().run([RUN, second, '--out', two, '--benchmark', 'csb_sdlc_fix', '--generated-at', AT]),
    ).toBe(0);
    expect(readdirSync(two).sort()).toEqual([RUN_ID, 'other_run']);
  });

  it('refuses bad usage', async () => {
    await expect(cli().run([])).rejects.toThrow('expected at least one RUN_DIR');
    await expect(cli().run([RUN, '--generated-at', 'yesterday'])).rejects.toThrow(
      '--generated-at "yesterday": expected an ISO 8601 date-time with a time zone',
    );
    await expect(cli().run([path.join(RUN, 'nope')])).rejects.toThrow('run directory not found');
  });
});
