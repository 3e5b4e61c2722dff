import { docRef } from '../../docs.js';
import { isObject } from '../../io/record-shape.js';

// JSON documents tools write that groundgate does not read (it reads gold sets and traces as JSON Lines or
// Parquet): named, with what to do, instead of "not a retrieval-event document".

const DOCUMENTS: readonly { what: string; test: (json: unknown) => boolean; todo: string }[] = [
  {
    what: 'DeepEval EvaluationDataset.save_as("json") (a list of goldens)',
    test: (j) =>
      Array.isArray(j) && j.length > 0 && j.every((g) => isObject(g) && typeof g.input === 'string'),
    todo: 'groundgate reads one record a line: save_as("jsonl") joins contexts with "|", so write each golden\'s model_dump() a line',
  },
  {
    what: 'RAGAS EvaluationDataset.to_list() as one JSON list',
    test: (j) =>
      Array.isArray(j) && j.length > 0 && j.every((s) => isObject(s) && typeof s.user_input === 'string'),
    todo: 'groundgate reads one record a line: save it with to_jsonl()',
  },
];

/** The line for a JSON document a tool wrote that is not read as it is, or undefined. */
export function documentLine(json: unknown): string | undefined {
  const d = DOCUMENTS.find((x) => x.test(json));
  return d && `${d.what}, not taken: ${d.todo} (${docRef('docs/init.md')})`;
}
