import { idsLine, listsAt, qidLine } from './texts.js';
import { citedNote, REFERENCE_TOKEN_RECALL, referenceLine } from './ragas.js';
import { line, type Record_, type ShapeRead, type ToolShape } from './tool-shape.js';

// DeepEval's LLMTestCase and Golden (confident-ai/deepeval deepeval/test_case/llm_test_case.py,
// deepeval/dataset/golden.py): {input, actual_output, expected_output, context, retrieval_context,
// completion_time, …}; model_dump(by_alias=True) spells them camelCase (actualOutput, expectedOutput,
// retrievalContext, completionTime). context is the ideal texts (the gold), retrieval_context what the
// pipeline retrieved: plain texts both, made ids by content_id.

const SNAKE = {
  output: 'actual_output',
  expected: 'expected_output',
  retrieved: 'retrieval_context',
  seconds: 'completion_time',
};
const CAMEL = {
  output: 'actualOutput',
  expected: 'expectedOutput',
  retrieved: 'retrievalContext',
  seconds: 'completionTime',
};

const spellingOf = (records: readonly Record_[]) =>
  [CAMEL, SNAKE].find((s) => records.some((r) => Object.values(s).some((n) => r[n] !== undefined)));

/** DeepEval's save_as('jsonl' | 'csv') joins a context list with "|": a list no more. */
const joined = (records: readonly Record_[], name: string) =>
  records.some((r) => typeof r[name] === 'string' && (r[name] as string).includes('|'));

export const deepevalCase: ToolShape = {
  what: 'DeepEval test case',
  source: 'confident-ai/deepeval deepeval/test_case/llm_test_case.py, deepeval/dataset/golden.py',
  accepts: (records) =>
    records.every((r) => typeof r.input === 'string') && spellingOf(records) !== undefined,
  read(records) {
    const s = spellingOf(records)!;
    const out: ShapeRead = {};
    const choose: string[] = [];
    for (const name of ['context', s.retrieved])
      if (joined(records, name))
        choose.push(
          `${name} is one text joined by "|" (EvaluationDataset.save_as jsonl or csv), which no mapping splits into its texts: not read; log each test case's model_dump() (lists) instead`,
        );
    const qid = qidLine(records, 'input', 'DeepEval');
    if (listsAt(records, 'context')) {
      out.gold = [
        qid,
        line('/question', '/input', 'input → question'),
        line(
          '/answerable',
          { from: '/context', nonempty: true },
          'context → answerable: true when it holds any text (a question with none is one the documents cannot answer)',
        ),
        referenceLine(records, s.expected),
        idsLine(records, '/gold_citations', 'context', undefined, 'the ideal context'),
      ];
      if (records.some((r) => typeof r[s.expected] === 'string'))
        out.claims = { match: 'normalized', min_token_recall: REFERENCE_TOKEN_RECALL, facts: s.expected };
    }
    if (records.every((r) => typeof r[s.output] === 'string') && listsAt(records, s.retrieved)) {
      const retrieved = idsLine(records, '/retrieved_ids', s.retrieved, undefined, 'the retrieval context');
      const seconds = records.every((r) => typeof r[s.seconds] === 'number');
      out.traces = [
        qid,
        line('/q', '/input', 'input → q'),
        retrieved,
        line('/answer_json/claim', `/${s.output}`, `${s.output} → answer_json.claim`),
        { ...retrieved, canonical: '/answer_json/citations', note: citedNote(retrieved) },
        ...(seconds
          ? [
              line(
                '/latency_ms',
                { from: `/${s.seconds}`, scale: 1000 },
                `${s.seconds} → latency_ms, seconds × 1000`,
              ),
            ]
          : []),
      ];
    }
    return choose.length ? { ...out, choose } : out;
  },
};
