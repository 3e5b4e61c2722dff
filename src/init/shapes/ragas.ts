import type { FieldLine } from '../field-proposal.js';
import { idsLine, listsAt, qidLine } from './texts.js';
import { line, type Record_, type ShapeRead, type ToolShape } from './tool-shape.js';

// RAGAS's SingleTurnSample as EvaluationDataset.to_jsonl / to_list writes it (explodinggradients/ragas
// src/ragas/dataset_schema.py): model_dump(exclude_none=True) of {user_input, retrieved_contexts,
// reference_contexts, retrieved_context_ids, reference_context_ids, response, multi_responses, reference,
// rubrics, …}. One sample is both the gold item (reference, reference_contexts) and the trace (response,
// retrieved_contexts).

const NAMES = ['retrieved_contexts', 'reference_contexts', 'response', 'reference'];

/** How sure a reference answer is matched: half its tokens, in order, none negated (docs/metrics.md). */
export const REFERENCE_TOKEN_RECALL = 0.5;

export const ragasSample: ToolShape = {
  what: 'RAGAS SingleTurnSample',
  source:
    'explodinggradients/ragas src/ragas/dataset_schema.py (SingleTurnSample, EvaluationDataset.to_jsonl)',
  accepts: (records) =>
    records.every((r) => typeof r.user_input === 'string') &&
    records.some((r) => NAMES.some((n) => r[n] !== undefined)),
  read(records) {
    const out: ShapeRead = {};
    const qid = qidLine(records, 'user_input', 'RAGAS');
    const missing = (name: string) => records.filter((r) => r[name] === undefined).length;
    const choose: string[] = [];
    if (listsAt(records, 'reference_contexts') || listsAt(records, 'reference_context_ids')) {
      const lacking = missing('reference_contexts');
      if (lacking && missing('reference_context_ids'))
        choose.push(
          `${lacking} of ${records.length} sampled samples have no reference_contexts: write [] for a question the documents cannot answer`,
        );
      const evidence = listsAt(records, 'reference_context_ids')
        ? 'reference_context_ids'
        : 'reference_contexts';
      out.gold = [
        qid,
        line('/question', '/user_input', 'user_input → question'),
        line(
          '/answerable',
          { from: `/${evidence}`, nonempty: true },
          `${evidence} → answerable: true when it holds any (a question with none is one the documents cannot answer)`,
        ),
        referenceLine(records),
        idsLine(
          records,
          '/gold_citations',
          'reference_contexts',
          'reference_context_ids',
          'the reference contexts',
        ),
      ];
      if (records.some((r) => typeof r.reference === 'string'))
        out.claims = { match: 'normalized', min_token_recall: REFERENCE_TOKEN_RECALL, facts: 'reference' };
    }
    if (records.some((r) => typeof r.response === 'string')) {
      if (listsAt(records, 'retrieved_contexts') || listsAt(records, 'retrieved_context_ids')) {
        const retrieved = idsLine(
          records,
          '/retrieved_ids',
          'retrieved_contexts',
          'retrieved_context_ids',
          'the retrieved contexts',
        );
        out.traces = [
          qid,
          line('/q', '/user_input', 'user_input → q'),
          retrieved,
          line('/answer_json/claim', '/response', 'response → answer_json.claim'),
          { ...retrieved, canonical: '/answer_json/citations', note: citedNote(retrieved) },
        ];
      } else
        choose.push('the samples have a response but no retrieved_contexts: nothing to score retrieval by');
    }
    return choose.length ? { ...out, choose } : out;
  },
};

/** A whole reference answer as the item's one fact; an item with none has none. */
export function referenceLine(records: readonly Record_[], name = 'reference'): FieldLine {
  const all = records.every((r) => typeof r[name] === 'string');
  return line(
    '/gold_claim_substr',
    all ? `/${name}` : { from: `/${name}`, default: [] },
    `${name} → gold_claim_substr: the whole reference answer as the one fact${all ? '' : ' ([] where there is none)'}`,
  );
}

/** The note of citations read from where the retrieved ids are: the tool records none of its own. */
export const citedNote = (retrieved: FieldLine) =>
  `${retrieved.note.replace(/ →.*$/, '')} → answer_json.citations (the record cites nothing of its own: what it retrieved is what the answer was made from)`;
