import type { TraceInput } from './source.js';
import { REFUSED } from './judge.js';
import { LOOKS_REFUSED, NO_RETRIEVED, UNCITED } from './notices.js';
import type { RunTable } from './runs.js';
import type { Misread } from '../suites/types.js';

/** Where the suite reads what a warning is about: the option or mapping to check, per canonical member. */
export interface Readers {
  qid: string;
  retrieved: string;
  citations: string;
  refusal: string;
}

/** Share of answered runs whose claims look like refusals before the warning fires. */
export const REFUSAL_LIKE_SHARE = 0.2;
/** Share of trace lines with a qid gold does not have before the warning fires. */
export const UNKNOWN_SHARE = 0.5;

const ANSWER_METRICS = ['precision', 'chr', 'chr@*'];

/**
 * The warnings of a suite whose runs were judged into `table`: every run has no retrieved ids; every answered
 * run cites nothing; refusal-like claims are ≥ 20% of the answers while the refusal rule matched none; more
 * than half the trace lines' qids are not in gold. Pure; the same for a run and a merge.
 */
export function misreads(
  table: Pick<RunTable, 'present' | 'flags'>,
  lines: { total: number; unknown: number },
  readers: Readers,
): Misread[] {
  let runs = 0;
  let noRetrieved = 0;
  let answered = 0;
  let uncited = 0;
  let refusalLike = 0;
  let refused = 0;
  for (let row = 0; row < table.present.length; row++) {
    if (!table.present[row]) continue;
    const flags = table.flags[row]!;
    runs++;
    if (flags & NO_RETRIEVED) noRetrieved++;
    if (flags & REFUSED) {
      refused++;
      continue;
    }
    answered++;
    if (flags & UNCITED) uncited++;
    if (flags & LOOKS_REFUSED) refusalLike++;
  }
  const out: Misread[] = [];
  if (lines.total > 0 && lines.unknown / lines.total > UNKNOWN_SHARE)
    out.push({
      warning: `${lines.unknown} of ${lines.total} trace lines have a qid that is not in gold: is the qid read from the right place (${readers.qid})?`,
      metrics: ['coverage', 'recall@*', 'under_refusal', 'over_refusal', ...ANSWER_METRICS],
    });
  if (runs > 0 && noRetrieved === runs)
    out.push({
      warning: `none of the ${runs} scored traces has a retrieved id: are they read from the right place (${readers.retrieved})?`,
      metrics: ['recall@*', ...ANSWER_METRICS],
    });
  if (answered > 0 && uncited === answered)
    out.push({
      warning: `none of the ${answered} answered traces cites anything: are citations read from the right place (${readers.citations})?`,
      metrics: ANSWER_METRICS,
    });
  if (answered > 0 && refused === 0 && refusalLike / answered >= REFUSAL_LIKE_SHARE)
    out.push({
      warning: `${refusalLike} of ${answered} answered claims read like refusals ("I don't know", "not in the context", …) but the refusal rule matched none: does ${readers.refusal} say how this pipeline refuses?`,
      metrics: ['under_refusal', 'over_refusal', ...ANSWER_METRICS],
    });
  return out;
}

/** Where a suite whose traces are read as `input` takes each member a warning is about. */
export function readersOf(input: TraceInput | undefined): Readers {
  const refusal = 'refusal_token, or refusal: (phrases, patterns, a mapped /refused flag)';
  const fields = input?.fields ?? {};
  const mapped = (member: string, plain: string) => {
    const to = fields[member];
    return typeof to === 'string'
      ? `fields.traces.${member}: ${to}`
      : to !== undefined
        ? `fields.traces.${member}`
        : `"${plain}", or a mapping fields.traces.${member}`;
  };
  if (input?.format === 'openinference')
    return {
      qid: `openinference.qid: ${input.qid}`,
      retrieved: "the RETRIEVER spans' documents, openinference.document_id",
      citations: "the answer's citations in output.value, or citation_markers",
      refusal,
    };
  return {
    qid: mapped('/qid', 'qid'),
    retrieved: mapped('/retrieved_ids', 'retrieved_ids'),
    citations: `${mapped('/answer_json/citations', 'answer_json.citations')}, or citation_markers`,
    refusal,
  };
}
