import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { readHistory } from '../src/history/history.js';
import { loadPairs } from '../src/suites/consistency/load.js';
import { loadGold as loadContextGold } from '../src/suites/context/gold.js';
import { loadPredictions } from '../src/suites/context/predictions.js';
import { forEachRunRecord } from '../src/suites/ranking/load.js';
import { jsonl, tmpDir, tmpTree } from './helpers/tmp.js';

/**
 * A line holding a list of hundreds of thousands of wrongly typed elements: zod made an issue per element
 * and overflowed the stack gathering them (issue #54: 200,000 gave "internal error: RangeError: Maximum call
 * stack size exceeded"). Every loader must word the first element as for a short list.
 */
const SIZES = [200_000, 1_000_000];
const numbers = (n: number): number[] => new Array<number>(n).fill(7);

const GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    gates:
      precision: '>= 0.5'
`;
const goldItem = {
  qid: 'q1',
  question: 'Q?',
  answerable: true,
  gold_claim_substr: ['x'],
  gold_citations: ['d1'],
};
const trace = { qid: 'q1', retrieved_ids: ['d1'], answer_json: { claim: 'x', citations: ['d1'] } };

/** `groundgate check` in `dir`, in-process: exit status and stderr. */
async function check(dir: string) {
  let err = '';
  const status = await main(['check', '--config', path.join(dir, 'gates.yaml')], {
    stdout: () => {},
    stderr: (s) => (err += s),
    isTty: false,
    env: {},
  });
  return { status, err };
}

/** What a loader threw (its message), given one file holding `rows`. */
async function loaderError(rows: unknown[], load: (file: string) => Promise<unknown>): Promise<string> {
  const file = path.join(tmpDir(), 'in.jsonl');
  writeFileSync(file, jsonl(rows));
  return load(file).then(
    () => 'loaded',
    (e: Error) => `${e.constructor.name}: ${e.message.replace(file, 'in.jsonl')}`,
  );
}

describe.each(SIZES)('a list of %i wrongly typed elements', (n) => {
  it('in gold: the one-line error of a short list, exit 2', async () => {
    const dir = tmpTree({
      'gates.yaml': GATES,
      'gold.jsonl': jsonl([goldItem, { ...goldItem, qid: 'q2', gold_claim_substr: numbers(n) }]),
      'traces.jsonl': jsonl([trace]),
    });
    const { status, err } = await check(dir);
    expect(err.replaceAll(dir + path.sep, '')).toBe(
      'groundgate: gold.jsonl:2: field "gold_claim_substr[0]": expected string, received number ' +
        '(a gold item {qid, question, answerable, gold_claim_substr, gold_citations})\n',
    );
    expect(status).toBe(2);
  });

  it('in traces: the one-line error of a short list, exit 2', async () => {
    const dir = tmpTree({
      'gates.yaml': GATES,
      'gold.jsonl': jsonl([goldItem]),
      'traces.jsonl': jsonl([trace, { ...trace, retrieved_ids: numbers(n) }]),
    });
    const { status, err } = await check(dir);
    expect(err.replaceAll(dir + path.sep, '')).toBe(
      'groundgate: traces.jsonl:2: field "retrieved_ids[0]": expected string, received number ' +
        '(a trace {qid, retrieved_ids, answer_json: {claim, citations}})\n',
    );
    expect(status).toBe(2);
  });

  it('in a ranked run line', async () => {
    const message = await loaderError([{ qid: 'q1', ranked: numbers(n) }], (f) =>
      forEachRunRecord([f], 'jsonl', () => {}),
    );
    expect(message).toBe(
      'InputError: in.jsonl:1: field "ranked[0]": expected string, received number ' +
        '(a run line {qid, docid, score} or {qid, ranked: [docid, ...]})',
    );
  });

  it('in a consistency pair', async () => {
    const pair = {
      qid: 'q1',
      scholar: { label: 'pass' },
      auditor: { label: 'pass' },
      retrieved_ids: numbers(n),
    };
    expect(await loaderError([pair], (f) => loadPairs([f]))).toBe(
      'InputError: in.jsonl:1: field "retrieved_ids[0]": expected string, received number ' +
        '(a pair {qid, scholar: {label}, auditor: {label}})',
    );
  });

  it('in a context prediction', async () => {
    const prediction = { instance_id: 'i1', traj_data: { pred_files: numbers(n) } };
    expect(await loaderError([prediction], (f) => loadPredictions([f], 'extracted'))).toBe(
      'InputError: in.jsonl:1: field "traj_data.pred_files[0]": expected string, received number ' +
        '(a prediction {instance_id, traj_data: {pred_steps, pred_files, pred_spans}, model_patch})',
    );
  });

  it('in a context gold row', async () => {
    expect(
      await loaderError([{ inst_id: 'i1', init_ctx: [], add_ctx: numbers(n) }], (f) => loadContextGold([f])),
    ).toBe(
      'InputError: in.jsonl:1: field "add_ctx[0]": expected object, received number (a gold region {file, start_line, end_line})',
    );
  });

  it('in a history entry', async () => {
    const entry = {
      recorded: 'r',
      label: 'l',
      verdict: 'pass',
      metrics: {},
      gates: { 'qa.precision': numbers(n) },
    };
    expect(await loaderError([entry], (f) => readHistory(f))).toBe(
      'InputError: in.jsonl:1: field "gates.qa.precision[0]": expected object, received number ' +
        '(a history entry written by groundgate history append)',
    );
  });
});
