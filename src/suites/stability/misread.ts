import type { FieldMap } from '../../io/field-map.js';
import type { MarkerSettings } from '../../grounded-answer/citation-markers.js';
import { misreadWarnings, REFUSAL_READER, noCounts, type Readers } from '../../grounded-answer/misread.js';
import { mappedReader } from '../../grounded-answer/record-reads.js';
import { looksLikeRefusal } from '../../grounded-answer/notices.js';
import type { Misread } from '../types.js';
import { CHECKS, type StabilityRun } from './contract.js';

/** The figures every per-question check feeds: a check in doubt puts them in doubt. */
const VERDICTS = ['stable_rate', 'unstable_questions'];

/** What each warning puts in doubt (see docs/metrics.md "When the data looks read wrongly"). */
const METRICS: Record<keyof Readers, readonly string[]> = {
  // Runs of other qids are not scored: every figure is over the wrong runs.
  qid: [...VERDICTS, ...CHECKS, 'coverage'],
  // A hit cites only retrieved ids.
  retrieved: [...VERDICTS, 'citation_hit_rate'],
  citations: [...VERDICTS, 'citation_*'],
  // Refused runs decide refusal_consistency, and no refused claim is compared.
  refusal: [...VERDICTS, 'refusal_consistency', 'claim_edit_distance_median'],
};

/** Where the stability suite reads each member a warning is about. */
export function stabilityReaders(fields: FieldMap | undefined, markers: MarkerSettings | undefined): Readers {
  const mapped = (member: string, plain: string) => mappedReader(fields, 'runs', member, plain);
  return {
    qid: mapped('/qid', 'qid'),
    retrieved: mapped('/retrieved_ids', 'retrieved_ids'),
    citations: markers
      ? `citation_markers.pattern: ${markers.pattern}`
      : `${mapped('/answer_json/citations', 'answer_json.citations')}, or citation_markers`,
    refusal: REFUSAL_READER,
  };
}

/**
 * The stability suite's warnings that its runs look read wrongly, in grounded-qa's words and thresholds:
 * over the scored runs (those of gold questions, a run_id's last line) and every run line read. Pure; a merge
 * of partials rebuilds the same runs and line counts, so it warns as the run does.
 */
export function stabilityMisreads(
  runs: Iterable<readonly StabilityRun[]>,
  lines: { total: number; unknown: number },
  refused: (run: StabilityRun) => boolean,
  readers: Readers,
): Misread[] {
  const c = noCounts(lines);
  for (const list of runs) {
    for (const run of list) {
      c.runs++;
      if (run.retrieved.length === 0) c.noRetrieved++;
      if (refused(run)) {
        c.refused++;
        continue;
      }
      c.answered++;
      if (run.citations.length === 0) c.uncited++;
      if (looksLikeRefusal(run.claim.toLowerCase())) c.refusalLike++;
    }
  }
  return misreadWarnings(c, readers, { noun: 'run', metrics: METRICS });
}
