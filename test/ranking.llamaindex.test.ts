import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { run } from '../src/run.js';
import { tmpTree } from './helpers/tmp.js';

// LlamaIndex's EmbeddingQAFinetuneDataset as save_json writes it: json.dump(model_dump(), indent=4).
const dataset = (relevant: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      queries: { q1: 'What is retention?', q2: 'Who signs?', q3: 'Unanswered?' },
      corpus: { d1: 'one', d3: 'three', d5: 'five' },
      relevant_docs: relevant,
      mode: 'text',
      ...extra,
    },
    null,
    4,
  ) + '\n';

const gates = (qrels: string, format?: string) =>
  [
    'version: 1',
    'suites:',
    '  r:',
    '    kind: ranking',
    `    qrels: ${qrels}`,
    '    run: run.txt',
    ...(format ? [`    qrels_format: ${format}`] : []),
    '    gates:',
    '      ndcg@10: ">= 0"',
    '      recall@2: ">= 0"',
    '      mrr: ">= 0"',
    '',
  ].join('\n');

// q1 ranks d2, d1, d4, d3 (relevant d1 at 2, d3 at 4); q2 ranks d5 first; q3 is judged nowhere.
const RUN = [
  'q1 Q0 d2 1 3.0 bm25',
  'q1 Q0 d1 2 2.0 bm25',
  'q1 Q0 d4 3 1.0 bm25',
  'q1 Q0 d3 4 0.5 bm25',
  'q2 Q0 d5 1 2.0 bm25',
  'q2 Q0 d6 2 1.0 bm25',
  'q3 Q0 d1 1 1.0 bm25',
  '',
].join('\n');

async function score(files: Record<string, string>) {
  const dir = tmpTree({ ...files, 'run.txt': RUN });
  const suite = (await run({ config: path.join(dir, 'gates.yaml') })).report.suites.r!;
  return { value: (m: string) => suite.metrics[m]!.value, counts: suite.counts };
}

async function loadError(json: string): Promise<string> {
  const dir = tmpTree({
    'gates.yaml': gates('qrels.json', 'llamaindex'),
    'qrels.json': json,
    'run.txt': RUN,
  });
  try {
    await run({ config: path.join(dir, 'gates.yaml') });
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    const message = (err as InputError).message;
    expect(message).not.toContain('\n');
    return message.replaceAll(`${dir}${path.sep}`, '');
  }
  throw new Error('expected an InputError');
}

describe('ranking suite: qrels_format llamaindex', () => {
  it('scores each relevant_docs pair as a grade-1 judgment, as the same TREC qrels', async () => {
    // q1: RR 1/2; recall@2 1/2; nDCG@10 (1/log2 3 + 1/log2 5) / (1 + 1/log2 3). q2: 1, 1, 1.
    const q1 = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
    const counts = {
      qrels_queries: 2,
      run_queries: 3,
      evaluated: 2,
      skipped: 0,
      run_only: 1,
      no_relevant_judged: 0,
    };
    for (const files of <Record<string, string>[]>[
      // q3 has no relevant doc: like a TREC qrels file without its lines, it is not judged.
      {
        'gates.yaml': gates('qa_dataset.json', 'llamaindex'),
        'qa_dataset.json': dataset({ q1: ['d1', 'd3'], q2: ['d5'], q3: [] }),
      },
      { 'gates.yaml': gates('qrels.txt'), 'qrels.txt': 'q1 0 d1 1\nq1 0 d3 1\nq2 0 d5 1\n' },
    ]) {
      const { value, counts: c } = await score(files);
      expect(value('mrr')).toBe((1 / 2 + 1) / 2);
      expect(value('recall@2')).toBe((1 / 2 + 1) / 2);
      expect(value('ndcg@10')).toBeCloseTo((q1 + 1) / 2, 12);
      expect(c).toEqual(counts);
    }
  });

  it('reads a .json qrels file as JSON Lines unless the format says llamaindex, and says so when it is the dataset', async () => {
    const dir = tmpTree({
      'gates.yaml': gates('qrels.json'),
      'qrels.json': dataset({ q1: ['d1'] }),
      'run.txt': RUN,
    });
    await expect(run({ config: path.join(dir, 'gates.yaml') })).rejects.toThrow(
      `${path.join(dir, 'qrels.json')}: found a LlamaIndex EmbeddingQAFinetuneDataset (relevant_docs), read as JSON Lines by its .json extension; expected qrels_format: llamaindex in the suite`,
    );
  });

  it('names the file, the line and what was found for a document that is not the dataset', async () => {
    expect(await loadError('[1, 2]\n')).toBe(
      'qrels.json:1: found a list; expected a LlamaIndex EmbeddingQAFinetuneDataset {"relevant_docs": {qid: [docid, ...]}, ...}',
    );
    expect(await loadError('{\n    "queries": {}\n}\n')).toBe(
      'qrels.json:1: no "relevant_docs" in the document; expected a LlamaIndex EmbeddingQAFinetuneDataset {"relevant_docs": {qid: [docid, ...]}, ...}',
    );
    expect(await loadError(dataset(['d1']))).toBe(
      'qrels.json:12: "relevant_docs" is a list; expected an object of qid: [docid, ...]',
    );
    expect(await loadError(dataset({ q1: 'd1' }))).toBe(
      'qrels.json:13: relevant_docs of qid "q1" is the string "d1"; expected a list of docids',
    );
    expect(await loadError(dataset({ q1: ['d1', 7] }))).toBe(
      'qrels.json:15: a docid of qid "q1" is number 7; expected a non-empty docid string',
    );
  });

  it('rejects a docid listed twice for a qid, naming the first line, and empty relevant_docs', async () => {
    expect(await loadError(dataset({ q1: ['d1'], q2: ['d5', 'd1', 'd5'] }))).toBe(
      'qrels.json:19: duplicate judgment of docid "d5" for qid "q2" (first at line 17); expected one judgment per qid and docid',
    );
    const twice = dataset({ q1: ['d1'], qX: ['d5'] }).replace('"qX"', '"q1"');
    expect(await loadError(twice)).toBe(
      'qrels.json:16: qid "q1" is a key of relevant_docs twice (first at line 13); expected each qid once',
    );
    expect(await loadError(dataset({}))).toBe('qrels.json: qrels are empty; expected at least one judgment');
    expect(await loadError(dataset({ q1: [] }))).toBe(
      'qrels.json: qrels are empty; expected at least one judgment',
    );
  });
});
