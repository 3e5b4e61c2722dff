import type { FieldSource } from '../../io/field-map.js';
import { ID } from '../field-proposal.js';
import { line, stringKey, type Record_ } from './tool-shape.js';
import type { FieldLine } from '../field-proposal.js';

// What RAGAS and DeepEval records share: a question, plain context texts (and RAGAS's optional ids for them),
// an answer and a reference answer, in one record that is both the gold item and the trace.

/** Every record's value at `name` is a list of strings, or the record has none there. */
const stringsAt = (records: readonly Record_[], name: string) =>
  records.some((r) => r[name] !== undefined) &&
  records.every(
    (r) => r[name] === undefined || (Array.isArray(r[name]) && r[name].every((x) => typeof x === 'string')),
  );

/** Every record holds a list (or nothing) at `name`: the texts, each made an id by content_id. */
export const listsAt = (records: readonly Record_[], name: string) =>
  records.some((r) => Array.isArray(r[name])) &&
  records.every((r) => r[name] === undefined || Array.isArray(r[name]));

/** The qid: the record's own id when it has one, else the id of the question's text. */
export function qidLine(records: readonly Record_[], question: string, tool: string): FieldLine {
  const own = stringKey(records, ID);
  return own
    ? line('/qid', `/${own}`, `${own} → qid`)
    : line(
        '/qid',
        { from: `/${question}`, content_id: true },
        `${question} → qid, the sha256 of its text (${tool} records have no id; a question reworded is a new item)`,
      );
}

/**
 * A list member read from the ids beside the texts when every record has them as strings (RAGAS
 * *_context_ids), else from the texts, each made the sha256 of its normalized form (content_id).
 */
export function idsLine(
  records: readonly Record_[],
  canonical: string,
  texts: string,
  ids: string | undefined,
  why: string,
): FieldLine {
  const member = canonical.slice(1).replaceAll('/', '.');
  if (ids && stringsAt(records, ids) && records.every((r) => r[ids] !== undefined))
    return line(canonical, `/${ids}`, `${ids} → ${member} (${why})`);
  const source: FieldSource = { from: `/${texts}`, content_id: true };
  return line(
    canonical,
    source,
    `${texts} → ${member}, each text's sha256 (${why}: plain texts, so the same text is the same id in the gold set and the traces)`,
  );
}
