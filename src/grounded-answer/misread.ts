import { CANONICAL_TRACES, type TraceInput } from './trace-input.js';
import { readsOf } from './sources/index.js';
import { REFUSED } from './verdict-flags.js';
import { LOOKS_REFUSED, NO_RETRIEVED, UNCITED } from './notices.js';
import type { RunTable } from './pipeline/runs.js';
import type { Misread } from '../suites/types.js';
import { GROUNDED_METRICS } from './metrics/index.js';
import { doubted } from './metrics/suite.js';

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
  const counts = noCounts(lines);
  for (let row = 0; row < table.present.length; row++) {
    if (!table.present[row]) continue;
    const flags = table.flags[row]!;
    counts.runs++;
    if (flags & NO_RETRIEVED) counts.noRetrieved++;
    if (flags & REFUSED) {
      counts.refused++;
      continue;
    }
    counts.answered++;
    if (flags & UNCITED) counts.uncited++;
    if (flags & LOOKS_REFUSED) counts.refusalLike++;
  }
  return misreadWarnings(counts, readers, {
    noun: 'trace',
    metrics: {
      qid: doubted(GROUNDED_METRICS, 'qid'),
      retrieved: doubted(GROUNDED_METRICS, 'retrieved'),
      citations: doubted(GROUNDED_METRICS, 'citations'),
      refusal: doubted(GROUNDED_METRICS, 'refusal'),
    },
  });
}

/** What a suite counted over its scored runs (refused ones by its refusal rule or flag), for its warnings. */
export interface MisreadCounts {
  runs: number;
  /** Runs whose retrieved ids are empty. */
  noRetrieved: number;
  /** Runs not refused. */
  answered: number;
  /** Answered runs that cite nothing. */
  uncited: number;
  /** Answered runs whose claim, lowercased, looksLikeRefusal. */
  refusalLike: number;
  refused: number;
  /** The input's lines, and those of them whose qid is not in gold. */
  lines: { total: number; unknown: number };
}

/** Counts of nothing yet, over an input of `lines`. */
export const noCounts = (lines: MisreadCounts['lines']): MisreadCounts => ({
  runs: 0,
  noRetrieved: 0,
  answered: 0,
  uncited: 0,
  refusalLike: 0,
  refused: 0,
  lines,
});

/** How a suite words its warnings: what one of its lines is, and the metrics each warning puts in doubt. */
export interface MisreadTerms {
  /** `trace` (grounded-qa) or `run` (stability). */
  noun: string;
  metrics: Record<keyof Readers, readonly string[]>;
}

/** The warnings misreads words, from counts any suite can make: the same wording and thresholds for each. */
export function misreadWarnings(c: MisreadCounts, readers: Readers, terms: MisreadTerms): Misread[] {
  const { noun, metrics } = terms;
  const out: Misread[] = [];
  if (c.lines.total > 0 && c.lines.unknown / c.lines.total > UNKNOWN_SHARE)
    out.push({
      warning: `${c.lines.unknown} of ${c.lines.total} ${noun} lines have a qid that is not in gold: is the qid read from the right place (${readers.qid})?`,
      metrics: metrics.qid,
    });
  if (c.runs > 0 && c.noRetrieved === c.runs)
    out.push({
      warning: `none of the ${c.runs} scored ${noun}s has a retrieved id: are they read from the right place (${readers.retrieved})?`,
      metrics: metrics.retrieved,
    });
  if (c.answered > 0 && c.uncited === c.answered)
    out.push({
      warning: `none of the ${c.answered} answered ${noun}s cites anything: are citations read from the right place (${readers.citations})?`,
      metrics: metrics.citations,
    });
  if (c.answered > 0 && c.refused === 0 && c.refusalLike / c.answered >= REFUSAL_LIKE_SHARE)
    out.push({
      warning: `${c.refusalLike} of ${c.answered} answered claims read like refusals ("I don't know", "not in the context", …) but the refusal rule matched none: does ${readers.refusal} say how this pipeline refuses?`,
      metrics: metrics.refusal,
    });
  return out;
}

/** The refusal settings a refusal-like warning names (every suite that reads refusals has the same). */
export const REFUSAL_READER = 'refusal_token, or refusal: (phrases, patterns, a mapped /refused flag)';

/** Where a suite whose traces are read as `input` takes each member a warning is about. */
export function readersOf(input: TraceInput | undefined): Readers {
  const traces = input ?? CANONICAL_TRACES;
  const { qid, retrieved, citations } = readsOf(traces).readers(traces);
  return {
    qid,
    retrieved,
    // With markers the claim is the one place citations come from.
    citations: traces.markers ? 'citation_markers (its pattern found no marker in any answer)' : citations,
    refusal: REFUSAL_READER,
  };
}
