import { CompiledFieldMap } from '../io/field-map.js';
import { timedShape, timedTest } from '../suites/latency/contract.js';
import { proposeFields, type FieldLine, type FieldProposal } from './field-proposal.js';

// A log of timed requests ({"request_id": …, "duration_s": …} lines) is a latency suite's traces: what it
// reads of a line is a qid and a latency_ms, and the tokens and model when the log has them
// (src/suites/latency/contract.ts), under their own names or under the names field-proposal.ts tries.

/** What a latency suite reads: the qid, the time, the token counts (cached too) and the model; the rest is left out. */
const READ = new Set(['/qid', '/latency_ms', '/tokens_in', '/tokens_out', '/tokens_cached', '/model']);
/** Members that say a record holds an answer: such a file is traces to pair with a gold set, not a log. */
const ANSWER = ['/retrieved_ids', '/answer_json/claim'];

/**
 * Records that each hold an id and a time and nothing of an answer (no member tried for the retrieved ids
 * or the claim): the mapping of the two to read them by (none when already named qid and latency_ms), and
 * the records as the latency suite reads them. Undefined for anything else.
 */
export function timedRequests(
  records: readonly unknown[],
): { fields?: FieldProposal; records: unknown[]; why: string } | undefined {
  const proposal = proposeFields(records, 'traces');
  if (!ANSWER.every((m) => proposal.missing.includes(m))) return undefined;
  const lines = proposal.lines.filter((l) => READ.has(l.canonical) && !l.unsure);
  if (proposal.missing.includes('/qid')) {
    const id = requestId(records);
    if (!id) return undefined;
    lines.unshift(id);
  }
  const map = lines.length
    ? new CompiledFieldMap(Object.fromEntries(lines.map((l) => [l.canonical, l.source])), timedShape)
    : undefined;
  const read = records.map((r) => (map ? map.apply(r) : r));
  const timed = read.every((r) => timedTest(r) && (r as { latency_ms?: unknown }).latency_ms !== undefined);
  if (!read.length || !timed) return undefined;
  return {
    ...(lines.length ? { fields: { input: 'traces', lines, missing: [], partial: {} } } : {}),
    records: read,
    why: lines.length
      ? `read through fields: ${lines.map((l) => l.note.replace(/ \(.*$/, '')).join(', ')}`
      : `${records.length} sampled record${records.length === 1 ? ' has' : 's have'} qid, latency_ms and nothing of an answer`,
  };
}

/** What request logs name the id a Q&A set would call qid, most likely first. */
const REQUEST_ID = ['request_id', 'requestId', 'trace_id', 'traceId', 'run_id', 'runId'];

/** The first request-id name every record holds a non-empty string under, as a `fields:` line. */
function requestId(records: readonly unknown[]): FieldLine | undefined {
  const name = REQUEST_ID.find((n) =>
    records.every((r) => {
      const v = (r as Record<string, unknown>)[n];
      return typeof v === 'string' && v !== '';
    }),
  );
  return name === undefined
    ? undefined
    : { canonical: '/qid', source: `/${name}`, note: `${name} → qid (matched name "${name}")` };
}
