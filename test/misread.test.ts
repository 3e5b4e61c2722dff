import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFUSED } from '../src/grounded-answer/verdict-flags.js';
import { misreads, readersOf } from '../src/grounded-answer/misread.js';
import { LOOKS_REFUSED, looksLikeRefusal, NO_RETRIEVED, UNCITED } from '../src/grounded-answer/notices.js';
import { concerns } from '../src/init/misread.js';
import { parse } from 'yaml';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

// #44 point 7: never a silent zero. Each warning fires on a crafted input and stays quiet on the example.

const table = (flags: number[]) => ({
  present: Uint8Array.from(flags.map(() => 1)),
  flags: Uint32Array.from(flags),
});
const readers = readersOf(undefined);

describe('misreads', () => {
  it('is quiet on an ordinary mix of runs', () => {
    expect(
      misreads(table([0, UNCITED, NO_RETRIEVED, REFUSED, LOOKS_REFUSED]), { total: 5, unknown: 2 }, readers),
    ).toEqual([]);
  });

  it('fires when every run has no retrieved ids, and names the mapping', () => {
    const m = misreads(table([NO_RETRIEVED, NO_RETRIEVED | REFUSED]), { total: 2, unknown: 0 }, readers);
    expect(m.map((x) => x.warning)).toEqual([
      'none of the 2 scored traces has a retrieved id: are they read from the right place ("retrieved_ids", or a mapping fields.traces./retrieved_ids)?',
    ]);
    expect(m[0]!.metrics).toContain('recall@*');
  });

  it('fires when every answered run cites nothing (refusals aside)', () => {
    const m = misreads(table([UNCITED, UNCITED, REFUSED]), { total: 3, unknown: 0 }, readers);
    expect(m.map((x) => x.warning)).toEqual([
      'none of the 2 answered traces cites anything: are citations read from the right place ("answer_json.citations", or a mapping fields.traces./answer_json/citations, or citation_markers)?',
    ]);
  });

  it('fires at 20% refusal-like answers when the rule matched none, not at 19% or when it matched one', () => {
    const five = [LOOKS_REFUSED, 0, 0, 0, 0];
    expect(misreads(table(five), { total: 5, unknown: 0 }, readers).map((x) => x.warning)).toEqual([
      '1 of 5 answered claims read like refusals ("I don\'t know", "not in the context", …) but the refusal rule matched none: does refusal_token, or refusal: (phrases, patterns, a mapped /refused flag) say how this pipeline refuses?',
    ]);
    const six = [LOOKS_REFUSED, 0, 0, 0, 0, 0];
    expect(misreads(table(six), { total: 6, unknown: 0 }, readers)).toEqual([]);
    expect(misreads(table([...five, REFUSED]), { total: 6, unknown: 0 }, readers)).toEqual([]);
  });

  it('fires when more than half the trace lines have qids gold does not have', () => {
    expect(misreads(table([0]), { total: 4, unknown: 2 }, readers)).toEqual([]);
    const m = misreads(
      table([0]),
      { total: 5, unknown: 3 },
      readersOf({ format: 'openinference', qid: 'metadata.qid' }),
    );
    expect(m.map((x) => x.warning)).toEqual([
      '3 of 5 trace lines have a qid that is not in gold: is the qid read from the right place (openinference.qid: metadata.qid)?',
    ]);
  });

  it('names a mapped member by its mapping', () => {
    const mapped = readersOf({
      format: 'jsonl',
      qid: 'input.value',
      fields: { '/retrieved_ids': '/ctx/ids' },
    });
    expect(mapped.retrieved).toBe('fields.traces./retrieved_ids: /ctx/ids');
    // With citation_markers a citations list is an error: only the markers can be read wrongly.
    const marked = readersOf({ format: 'jsonl', qid: 'input.value', markers: true });
    expect(marked.citations).toBe('citation_markers (its pattern found no marker in any answer)');
  });
});

describe('looksLikeRefusal', () => {
  it.each([
    "i couldn't find that in the docs.",
    'i don’t know.',
    'i do not know the answer.',
    'the answer is not in the context.',
    'this is not mentioned in the documentation.',
    'there is no information about retention tiers.',
    'the sources do not mention a limit.',
    'i am unable to find that.',
    // The review's four that the first list missed.
    "i don't have enough information to answer that.",
    "i don't have information on that.",
    'no relevant information was found.',
    'cannot be determined from the context.',
  ])('reads %j as a refusal', (claim) => expect(looksLikeRefusal(claim)).toBe(true));

  it.each([
    'keys are at most 512 bytes [keys#1].',
    'exports are limited to 2 gb each.',
    'you know the key is rotated daily.',
    'information about retention is in retention.md.',
  ])('reads %j as an answer', (claim) => expect(looksLikeRefusal(claim)).toBe(false));
});

describe('concerns', () => {
  it('matches names and * families', () => {
    const m = { warning: '', metrics: ['recall@*', 'precision', '*.p*_ms'] };
    expect(['recall@5', 'recall@10', 'precision', 'llm.p95_ms'].map((x) => concerns(m, x))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['recall', 'chr', 'p95_ms', 'precision@5'].map((x) => concerns(m, x))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('latency units', () => {
  const latencyGates = (traces: string) =>
    `version: 1\nsuites:\n  lat:\n    kind: latency\n    traces: ${traces}\n    gates:\n      p95_ms: '<= 3000'\n`;

  it('warns when every latency is under 50 ms (seconds read as milliseconds), and names the mapping', async () => {
    const rows = [1.2, 0.8, 2.5, 1.9].map((s, i) => ({
      qid: `Q${i}`,
      retrieved_ids: [],
      answer_json: { claim: 'x', citations: [] },
      latency_s: s,
    }));
    const dir = tmpTree({
      't.jsonl': jsonl(rows),
      'gates.yaml': `${latencyGates('t.jsonl')}    fields:\n      traces:\n        /latency_ms: /latency_s\n`,
    });
    const outcome = await run({ config: path.join(dir, 'gates.yaml') });
    expect(outcome.report.suites.lat!.warnings).toEqual([
      'every one of the 4 latencies is under 50 ms or over 10 minutes: is the unit right (fields.traces./latency_ms (a scale: converts seconds, e.g. { from: /latency_s, scale: 1000 }))?',
    ]);
    expect(outcome.misreads.lat![0]!.metrics).toEqual(['p*_ms', '*.p*_ms', 'tail_amplification']);
  });

  it('is quiet when one latency is plausible, and on the example', async () => {
    const rows = [1.2, 0.8, 60].map((ms, i) => ({
      qid: `Q${i}`,
      retrieved_ids: [],
      answer_json: { claim: 'x', citations: [] },
      latency_ms: ms,
    }));
    const dir = tmpTree({ 't.jsonl': jsonl(rows), 'gates.yaml': latencyGates('t.jsonl') });
    expect((await run({ config: path.join(dir, 'gates.yaml') })).report.suites.lat!.warnings).toEqual([]);
    const example = await run({ config: path.join(REPO, 'gates.yaml') });
    expect(example.misreads).toEqual({});
  });
});

interface Trace {
  ts: number;
  qid: string;
  retrieved_ids: string[];
  answer_json: { claim: string; citations: string[]; constraints_echo?: string[] };
}
const exampleTraces = (): Trace[] =>
  readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Trace);
const exampleGold = () => readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8');

/** The example's qa suite over `traces`, in-process: its warnings and what init would not gate. */
async function qa(traces: readonly unknown[]) {
  const dir = tmpTree({
    'gold.jsonl': exampleGold(),
    'traces.jsonl': jsonl(traces),
    'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    scu: true\n    gates:\n      precision: '>= 0'\n`,
  });
  const outcome = await run({ config: path.join(dir, 'gates.yaml') });
  const suite = outcome.report.suites.qa!;
  return { warnings: suite.warnings, metrics: suite.metrics, misread: outcome.misreads.qa ?? [] };
}

// The example scores 47 winners (one per gold item): 12 unanswerable items all refused, 2 of the 35 answerable
// refused (over_refusal 2/35), so 33 answered; the 50 lines include 3 superseded runs.
describe('grounded-qa: never a silent zero', () => {
  it('the example and its regressed run warn of nothing misread', async () => {
    expect((await qa(exampleTraces())).misread).toEqual([]);
    const regressed = readFileSync(path.join(REPO, 'runs/qa-regressed.trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect((await qa(regressed)).misread).toEqual([]);
  });

  it('retrieved ids read from nowhere: every trace has none', async () => {
    const r = await qa(exampleTraces().map((t) => ({ ...t, retrieved_ids: [] })));
    expect(r.metrics['recall@5']!.value).toBe(0);
    expect(r.warnings).toContain(
      'none of the 47 scored traces has a retrieved id: are they read from the right place ("retrieved_ids", or a mapping fields.traces./retrieved_ids)?',
    );
  });

  it('citations read from nowhere: every answered trace cites nothing', async () => {
    const r = await qa(
      exampleTraces().map((t) => ({ ...t, answer_json: { ...t.answer_json, citations: [] } })),
    );
    expect(r.metrics.chr!.value).toBe(0);
    expect(r.misread.map((m) => m.warning)).toEqual([
      'none of the 33 answered traces cites anything: are citations read from the right place ("answer_json.citations", or a mapping fields.traces./answer_json/citations, or citation_markers)?',
    ]);
  });

  it('refusals worded otherwise: under_refusal at 1 and a warning naming the refusal settings', async () => {
    const reworded = exampleTraces().map((t) =>
      t.answer_json.claim === 'not in context'
        ? { ...t, answer_json: { ...t.answer_json, claim: "I couldn't find that in the docs." } }
        : t,
    );
    const r = await qa(reworded);
    expect(r.metrics.under_refusal!.value).toBe(1);
    expect(r.misread.map((m) => m.warning)).toEqual([
      `14 of 47 answered claims read like refusals ("I don't know", "not in the context", …) but the refusal rule matched none: does refusal_token, or refusal: (phrases, patterns, a mapped /refused flag) say how this pipeline refuses?`,
    ]);
  });

  it('qids read from the wrong place: most trace lines unknown to gold', async () => {
    const r = await qa(exampleTraces().map((t, i) => (i % 4 === 0 ? t : { ...t, qid: `run-${i}` })));
    expect(r.misread.map((m) => m.warning)).toEqual([
      '37 of 50 trace lines have a qid that is not in gold: is the qid read from the right place ("qid", or a mapping fields.traces./qid)?',
    ]);
  });
});

/** `groundgate init` in `dir`, in-process, without workflows: what it printed and its exit status. */
async function init(dir: string) {
  let out = '';
  let err = '';
  const status = await main(['init', '-C', dir, '--no-workflow'], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTty: false,
    env: {},
  });
  return { out, err, status };
}

describe('init on misread data', () => {
  it('prints the warning and calibrates no gate on a metric it concerns', async () => {
    const reworded = exampleTraces().map((t) =>
      t.answer_json.claim === 'not in context'
        ? { ...t, answer_json: { ...t.answer_json, claim: "I couldn't find that in the docs." } }
        : t,
    );
    const dir = tmpTree({ 'gold/qa.gold.jsonl': exampleGold(), 'runs/qa.trace.jsonl': jsonl(reworded) });
    const { out, err, status } = await init(dir);
    expect(err).toBe('');
    expect(status).toBe(0);
    expect(out).toContain(
      '  warning: qa: 14 of 47 answered claims read like refusals ("I don\'t know", "not in the context", …)',
    );
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    // recall@5, coverage and scu_violations read what the refusals do not touch; the rest wait for the fix.
    expect(Object.keys((parse(gates) as { suites: { qa: { gates: object } } }).suites.qa.gates)).toEqual([
      'recall@5',
      'scu_violations',
      'coverage',
    ]);
    expect(gates).toContain(
      '    # not gated: under_refusal: the data looks read wrongly (14 of 47 answered claims',
    );
  });
});

import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';

interface StabilityLine {
  qid: string;
  run_id: string;
  retrieved_ids: string[];
  answer_json: { claim: string; citations?: string[]; constraints_echo?: string[] };
}
const stabilityExample = (): StabilityLine[] =>
  readFileSync(path.join(REPO, 'examples/stability/runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as StabilityLine);

/** The repo's stability suite (gates.yaml), reading gold.jsonl and `runs`, with `more` settings after it. */
function stabilityGates(runs: string, more = ''): string {
  const config = readFileSync(path.join(REPO, 'gates.yaml'), 'utf8');
  const start = config.indexOf('\n  stability:\n');
  const end = config.slice(start + 1).search(/\n {2}\S+:\n/) + start + 2;
  const suite = config
    .slice(start + 1, end)
    .replace(/gold: examples\/stability\/gold\.jsonl/, 'gold: gold.jsonl')
    .replace(/runs: examples\/stability\/runs\.jsonl[^\n]*/, `runs: ${runs}`);
  expect(suite).toContain(`    runs: ${runs}\n`);
  return `version: 1\nsuites:\n${suite}${more}`;
}

/** The repo's stability suite over `runs`, in-process: its warnings and what init would not gate. */
async function stabilityOf(runs: readonly unknown[], more = '') {
  const dir = tmpTree({
    'gold.jsonl': readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8'),
    'runs.jsonl': jsonl(runs),
    'gates.yaml': stabilityGates('runs.jsonl', more),
  });
  const outcome = await run({ config: path.join(dir, 'gates.yaml') });
  const suite = outcome.report.suites.stability!;
  return { warnings: suite.warnings, metrics: suite.metrics, misread: outcome.misreads.stability ?? [] };
}

// The example's 12 runs: 4 of each of 3 gold questions; the 4 of the unanswerable A0002 refuse ("not in
// context", the default refusal_token) and cite nothing, so 8 runs are answered.
describe('stability: never a silent zero', () => {
  it('the example warns of nothing misread', async () => {
    const r = await stabilityOf(stabilityExample());
    expect(r.warnings).toEqual([]);
    expect(r.misread).toEqual([]);
  });

  it('retrieved ids read from nowhere: every run has none', async () => {
    const r = await stabilityOf(stabilityExample().map((l) => ({ ...l, retrieved_ids: [] })));
    expect(r.metrics.citation_hit_rate!.value).toBe(0);
    expect(r.warnings).toEqual([
      'none of the 12 scored runs has a retrieved id: are they read from the right place ("retrieved_ids", or a mapping fields.runs./retrieved_ids)?',
    ]);
    expect(r.misread.map((m) => m.metrics)).toEqual([
      ['stable_rate', 'unstable_questions', 'citation_hit_rate'],
    ]);
  });

  it('citations read from nowhere: every answered run cites nothing (refusals aside)', async () => {
    const r = await stabilityOf(
      stabilityExample().map((l) => ({ ...l, answer_json: { ...l.answer_json, citations: [] } })),
    );
    expect(r.metrics.citation_hit_rate!.value).toBe(0);
    expect(r.warnings).toEqual([
      'none of the 8 answered runs cites anything: are citations read from the right place ("answer_json.citations", or a mapping fields.runs./answer_json/citations, or citation_markers)?',
    ]);
    expect(r.misread.map((m) => m.metrics)).toEqual([['stable_rate', 'unstable_questions', 'citation_*']]);
  });

  it('citations read from nowhere under citation_markers: names only citation_markers, by its pattern', async () => {
    const unmarked = stabilityExample().map((l) => ({
      ...l,
      answer_json: { claim: l.answer_json.claim, constraints_echo: l.answer_json.constraints_echo },
    }));
    const markers = '    citation_markers: { pattern: "\\\\[(\\\\d+)\\\\]", refers_to: rank }\n';
    const r = await stabilityOf(unmarked, markers);
    expect(r.warnings).toEqual([
      'none of the 8 answered runs cites anything: are citations read from the right place (citation_markers.pattern: \\[(\\d+)\\])?',
    ]);
    // Marked, the same runs warn of nothing.
    const marked = unmarked.map((l) =>
      l.answer_json.claim === 'not in context'
        ? l
        : { ...l, answer_json: { ...l.answer_json, claim: `${l.answer_json.claim} [1]` } },
    );
    expect((await stabilityOf(marked, markers)).misread).toEqual([]);
  });

  it('refusals worded otherwise: refusal_consistency read on no refusal and a warning naming the refusal settings', async () => {
    const reworded = stabilityExample().map((l) =>
      l.answer_json.claim === 'not in context'
        ? { ...l, answer_json: { ...l.answer_json, claim: "I couldn't find that in the docs." } }
        : l,
    );
    const r = await stabilityOf(reworded);
    expect(r.misread.map((m) => m.warning)).toEqual([
      `4 of 12 answered claims read like refusals ("I don't know", "not in the context", …) but the refusal rule matched none: does refusal_token, or refusal: (phrases, patterns, a mapped /refused flag) say how this pipeline refuses?`,
    ]);
    expect(r.misread[0]!.metrics).toEqual([
      'stable_rate',
      'unstable_questions',
      'refusal_consistency',
      'claim_edit_distance_median',
    ]);
    // Told how this pipeline refuses, it warns of nothing.
    const told = await stabilityOf(reworded, '    refusal:\n      phrases: ["I couldn\'t find"]\n');
    expect(told.misread).toEqual([]);
  });

  it('qids read from the wrong place: most run lines unknown to gold', async () => {
    const r = await stabilityOf(
      stabilityExample().map((l, i) => (i % 3 === 0 ? l : { ...l, qid: `run-${i}` })),
    );
    expect(r.misread.map((m) => m.warning)).toEqual([
      '8 of 12 run lines have a qid that is not in gold: is the qid read from the right place ("qid", or a mapping fields.runs./qid)?',
    ]);
    expect(r.misread[0]!.metrics).toContain('coverage');
    expect(r.warnings).toContain(r.misread[0]!.warning);
    // Half the lines is not more than half.
    const half = await stabilityOf(
      stabilityExample().map((l, i) => (i % 2 === 0 ? l : { ...l, qid: `run-${i}` })),
    );
    expect(half.misread).toEqual([]);
  });

  it('names a mapped member by its mapping', async () => {
    const r = await stabilityOf(stabilityExample(), '    fields:\n      runs:\n        /qid: /run_id\n');
    expect(r.misread.map((m) => m.warning)).toEqual([
      '12 of 12 run lines have a qid that is not in gold: is the qid read from the right place (fields.runs./qid: /run_id)?',
    ]);
    expect(r.metrics.coverage!.value).toBe(0);
  });

  it('a merge of partials warns as the run does', async () => {
    const lines = stabilityExample().map((l) =>
      l.answer_json.claim === 'not in context'
        ? { ...l, retrieved_ids: [], answer_json: { ...l.answer_json, claim: "I don't know." } }
        : { ...l, retrieved_ids: [] },
    );
    const dir = tmpTree({
      'gold.jsonl': readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8'),
      // A0001's runs in both shards, and one line repeated in the second (a run_id read twice).
      'runs/a/runs.jsonl': jsonl([...lines.slice(0, 2), ...lines.slice(6)]),
      'runs/b/runs.jsonl': jsonl([...lines.slice(2, 6), lines[7], { ...lines[0]!, qid: 'other' }]),
      'gates.yaml': stabilityGates('runs/*/runs.jsonl'),
    });
    const config = path.join(dir, 'gates.yaml');
    const single = await run({ config });
    const parts: string[] = [];
    for (const shard of ['a', 'b']) {
      const part = path.join(dir, `${shard}.partial`);
      await writePartialRun(part, {
        config,
        inputs: [{ key: 'runs', path: path.join(dir, 'runs', shard, 'runs.jsonl') }],
      });
      parts.push(part);
    }
    const merged = await mergeRun(parts, { config });
    expect(single.misreads.stability!.map((m) => m.warning)).toEqual([
      'none of the 12 scored runs has a retrieved id: are they read from the right place ("retrieved_ids", or a mapping fields.runs./retrieved_ids)?',
      `4 of 12 answered claims read like refusals ("I don't know", "not in the context", …) but the refusal rule matched none: does refusal_token, or refusal: (phrases, patterns, a mapped /refused flag) say how this pipeline refuses?`,
    ]);
    expect(merged.misreads).toEqual(single.misreads);
    expect(merged.report.suites.stability!.warnings).toEqual(single.report.suites.stability!.warnings);
    expect(serializeReport(merged.report)).toBe(serializeReport(single.report));
  });
});

describe('stability: init on misread runs', () => {
  it('prints the warning and calibrates no gate on a metric it concerns', async () => {
    const dir = tmpTree({
      'gold/stability.gold.jsonl': readFileSync(path.join(REPO, 'examples/stability/gold.jsonl'), 'utf8'),
      'runs/stability.runs.jsonl': jsonl(stabilityExample().map((l) => ({ ...l, retrieved_ids: [] }))),
    });
    const { out, err, status } = await init(dir);
    expect(err).toBe('');
    expect(status).toBe(0);
    expect(out).toContain(
      '  warning: stability: none of the 12 scored runs has a retrieved id: are they read from the right place ("retrieved_ids", or a mapping fields.runs./retrieved_ids)?',
    );
    const gates = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    // coverage reads no retrieved id; stable_rate waits for the fix.
    expect(
      Object.keys((parse(gates) as { suites: { stability: { gates: object } } }).suites.stability.gates),
    ).toEqual(['coverage']);
    expect(gates).toContain(
      '    # not gated: stable_rate: the data looks read wrongly (none of the 12 scored runs',
    );
  });
});
