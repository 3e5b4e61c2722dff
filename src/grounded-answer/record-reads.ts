import type { LineRef } from '../io/jsonl.js';
import { isParquet, recordsAt } from '../io/records.js';
import { keysMeeting } from './id-keys.js';
import type { TraceInput } from './trace-input.js';
import type { TraceReads } from './trace-reads.js';

// Traces that are records (JSON Lines, Parquet rows), each member read at its place in the contract's shape
// or where `fields:` maps it: the messages name the mapping, and the fix of ids read from the wrong place is
// another mapping of /retrieved_ids.

/**
 * How a member of a `fields:` input is read: `fields.<input>.<member>: <pointer>` when mapped to a pointer,
 * `fields.<input>.<member>` when transformed, else its plain name or a mapping.
 */
export function mappedReader(
  fields: Readonly<Record<string, unknown>> | undefined,
  input: string,
  member: string,
  plain: string,
): string {
  const to = fields?.[member];
  return typeof to === 'string'
    ? `fields.${input}.${member}: ${to}`
    : to !== undefined
      ? `fields.${input}.${member}`
      : `"${plain}", or a mapping fields.${input}.${member}`;
}

const mapped = (input: TraceInput, member: string, plain: string) =>
  mappedReader(input.fields, 'traces', member, plain);

export const RECORD_READS: TraceReads = {
  readers: (input) => ({
    qid: mapped(input, '/qid', 'qid'),
    retrieved: mapped(input, '/retrieved_ids', 'retrieved_ids'),
    citations: `${mapped(input, '/answer_json/citations', 'answer_json.citations')}, or citation_markers`,
  }),
  idReader: (input) => mapped(input, '/retrieved_ids', 'retrieved_ids'),
  async idKeys(input, { refs, size }, goldIds) {
    const sample = await recordValues(refs.slice(0, size));
    const read = new Set([pointerOf(input, '/retrieved_ids'), pointerOf(input, '/answer_json/citations')]);
    const keys = keysMeeting(sample.values, goldIds)
      .map((k) => ({ ...k, key: listPointer(k.key) }))
      .filter((k) => !read.has(k.key));
    return { keys, runs: sample.runs };
  },
  idFix: (key) => ({ key, setting: `fields.traces./retrieved_ids: ${key}` }),
  assemblesAcrossFiles: false,
};

/** Where `member` is read from, as a key of keysMeeting names it (a list by its own pointer). */
function pointerOf(input: TraceInput, member: string): string {
  const to = input.fields?.[member];
  return listPointer(typeof to === 'string' ? to : to !== undefined ? to.from : member);
}

/** A key of a list of strings (`/ids/*`) as a mapping names the list (`/ids`). */
const listPointer = (p: string): string => (p.endsWith('/*') ? p.slice(0, -2) : p);

/** The records of the winners, as written (before `fields:` maps them), and how many there are. */
async function recordValues(refs: readonly LineRef[]): Promise<{ values: unknown[]; runs: number }> {
  // A record read from memory (no offset, not a Parquet row) cannot be found again by its place.
  const again = refs.filter((r) => r.offset >= 0 || isParquet(r.file));
  const records = await recordsAt(again);
  return { values: again.map((r) => records.get(r)), runs: again.length };
}
