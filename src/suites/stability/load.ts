import type { z } from 'zod';
import { recordChecker, type FieldMap } from '../../io/field-map.js';
import { shapeTest } from '../../io/record-shape.js';
import { readRecordsOf } from '../../io/records.js';
import {
  compileMarkers,
  markedCitations,
  type MarkerSettings,
} from '../../grounded-answer/citation-markers.js';
import {
  markedRunLineSchema,
  markedRunShape,
  runLineSchema,
  runShape,
  type StabilityRun,
} from './contract.js';
import { loadGold } from '../../grounded-answer/load.js';
import type { ScoreContext } from '../types.js';
import type { StabilityConfig } from './config.js';

const RUN_WHAT = 'a stability run {qid, run_id?, answer_json: {claim, citations}, retrieved_ids}';
const MARKED_RUN_WHAT =
  'a stability run {qid, run_id?, answer_json: {claim}, retrieved_ids}, citing by markers in its claim';
const runTest = shapeTest(runShape);
const markedTest = shapeTest(markedRunShape);
/** Typed as a run line: its citations are read from the claim's markers, never from the line. */
const markedRunTest = (v: unknown): v is z.infer<typeof runLineSchema> =>
  markedTest(v) && v.answer_json.citations === undefined;

export interface StabilityRunsLoad {
  /** Runs of each gold qid, in file order. */
  runs: Map<string, StabilityRun[]>;
  lines: number;
  /** Lines replaced by a later line with the same qid and run_id (a sweep appended twice). */
  superseded: number;
  /** Run qids that are not in gold, with their line counts. */
  unknown: Map<string, number>;
  /** Where each run replaced by a later line first was: its place in the list (its `source` is the last line's). */
  firsts: Map<StabilityRun, { file: string; line: number }>;
}

/**
 * Streams the run lines of gold questions. A run_id names a run: a later line with the same qid and
 * run_id replaces the earlier one, because the seed's runner appends, and a repeated sweep must not count
 * twice. Lines without run_id are all distinct runs.
 */
export async function loadStabilityRuns(
  files: readonly string[],
  goldQids: ReadonlySet<string>,
  fields?: FieldMap,
  /** `citation_markers:`: each run's citations are its claim's markers. */
  markerSettings?: MarkerSettings,
): Promise<StabilityRunsLoad> {
  const checker = markerSettings
    ? recordChecker(
        markedRunLineSchema as unknown as typeof runLineSchema,
        markedRunTest,
        fields,
        MARKED_RUN_WHAT,
        markedRunShape,
      )
    : recordChecker(runLineSchema, runTest, fields, RUN_WHAT, runShape);
  const markers = markerSettings && compileMarkers(markerSettings);
  const runs = new Map<string, StabilityRun[]>();
  const byRunId = new Map<string, Map<string, number>>();
  const unknown = new Map<string, number>();
  const firsts = new Map<StabilityRun, { file: string; line: number }>();
  let lines = 0;
  let superseded = 0;
  for (const file of files) {
    for await (const { line, value } of readRecordsOf(file)) {
      lines++;
      const r = checker.check(value, file, line);
      if (!goldQids.has(r.qid)) {
        unknown.set(r.qid, (unknown.get(r.qid) ?? 0) + 1);
        continue;
      }
      const run: StabilityRun = {
        qid: r.qid,
        runId: r.run_id,
        claim: r.answer_json.claim,
        citations: markers
          ? markedCitations(r.answer_json.claim, r.retrieved_ids, markers).ids
          : r.answer_json.citations,
        constraintsEcho: r.answer_json.constraints_echo,
        retrieved: r.retrieved_ids,
        ...(r.refused !== undefined && { refused: r.refused }),
        source: { file, line },
      };
      let list = runs.get(r.qid);
      if (!list) runs.set(r.qid, (list = []));
      if (r.run_id === undefined) {
        list.push(run);
        continue;
      }
      let ids = byRunId.get(r.qid);
      if (!ids) byRunId.set(r.qid, (ids = new Map()));
      const at = ids.get(r.run_id);
      if (at === undefined) {
        ids.set(r.run_id, list.push(run) - 1);
      } else {
        const replaced = list[at]!;
        firsts.set(run, firsts.get(replaced) ?? replaced.source);
        firsts.delete(replaced);
        list[at] = run;
        superseded++;
      }
    }
  }
  return { runs, lines, superseded, unknown, firsts };
}

/** Gold and the runs of its questions, as a run and a shard's partial read them. */
export async function loadStability(config: StabilityConfig, ctx: Pick<ScoreContext, 'inputs'>) {
  const { items: gold, digest } = await loadGold(ctx.inputs.gold!, { fields: config.fields?.gold });
  const loaded = await loadStabilityRuns(
    ctx.inputs.runs!,
    new Set(gold.map((g) => g.qid)),
    config.fields?.runs,
    config.citation_markers,
  );
  return { gold, digest, loaded };
}
