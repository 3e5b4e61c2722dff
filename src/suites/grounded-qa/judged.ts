import { recordWord } from '../../errors.js';
import type { LineRef } from '../../io/jsonl.js';
import type { FieldMap } from '../../io/field-map.js';
import { isParquet } from '../../io/records.js';
import type { GoldDigest } from '../../gold/digest.js';
import type { GoldItem, TraceLine } from '../../grounded-answer/contract.js';
import type { Label } from '../../grounded-answer/labels.js';
import type { RunsLoad } from '../../grounded-answer/pipeline/judged-runs.js';
import { loadGold, matchesByQuestion, startJudging } from '../../grounded-answer/load.js';
import { CANONICAL_TRACES, type TraceInput } from '../../grounded-answer/trace-input.js';
import {
  asMarkedTraceLine,
  asTraceLine,
  goldShape,
  markedTraceShape,
  traceShape,
} from '../../grounded-answer/contract.js';
import { compileMarkers, markedCitations, type Markers } from '../../grounded-answer/citation-markers.js';
import { compileFieldMap } from '../../io/field-map.js';
import { questionsOf } from '../../grounded-answer/questions.js';
import { recordsAt } from '../../io/records.js';
import type { ScoreOptions } from '../../grounded-answer/score.js';
import { scoreOptionsOf } from '../../grounded-answer/config.js';
import { aggregate, answerableOf, offendingRows } from '../../grounded-answer/score.js';
import { matchRule, worstLabel } from '../../grounded-answer/verdict-flags.js';
import { claimRules } from '../../claims/rules/index.js';
import { GROUNDED_METRICS } from '../../grounded-answer/metrics/index.js';
import { doubted } from '../../grounded-answer/metrics/suite.js';
import { failingColumns, populationColumns } from '../../grounded-answer/metrics/tally.js';
import type { RunTable } from '../../grounded-answer/pipeline/runs.js';
import type { Table } from '../../report/schema.js';
import { misreads, readersOf } from '../../grounded-answer/misread.js';
import { idMisread, meetingWarning, readerOf } from '../../grounded-answer/id-misread.js';
import { stageOf, triage } from '../../grounded-answer/triage.js';
import type { Offender, ScoreContext, SuiteResult } from '../types.js';
import type { GroundedQaConfig } from './config.js';
import { asksUsage, type AnswerUsage } from './usage.js';

/**
 * How the suite's runs are judged: its config's settings, at every cutoff a metric or gate asks for; their
 * token counts are read with them when the suite asks for them (see asksUsage).
 */
export function scoreOptions(
  config: GroundedQaConfig,
  ctx: ScoreContext,
): ScoreOptions & { traces: TraceInput } {
  const cutoffs = [
    ...new Set([config.k, ...ctx.metrics.flatMap((m) => (m.k === undefined ? [] : [m.k]))]),
  ].sort((a, b) => a - b);
  const options = scoreOptionsOf(config, cutoffs);
  return asksUsage(config) ? { ...options, traces: { ...options.traces, usage: true } } : options;
}

/**
 * A suite's gold set, traces judged against it, and the options they were judged with. Ids that meet no gold
 * id but another key's do stop it (id-misread.ts); not in a `shard`, whose traces are some of the run's and
 * meet only their items' gold ids.
 */
export async function judgeSuite(config: GroundedQaConfig, ctx: ScoreContext, shard = false) {
  const options = scoreOptions(config, ctx);
  const goldFields = config.fields?.gold;
  const judged = await judgeTraces(ctx.inputs.gold!, ctx.inputs.traces!, options, goldFields);
  const { meeting, table } = judged.loaded;
  if (meeting && !shard) {
    const refs = [];
    for (let row = 0; row < table.present.length; row++)
      if (table.present[row]) refs.push(judged.loaded.ref(row)!);
    const misread = await idMisread(
      meeting,
      judged.gold,
      ctx.inputs.traces!,
      options.traces,
      refs,
      refs.length,
    );
    if (misread) throw misread;
  }
  return { ...judged, options, goldFields };
}
export type JudgedSuite = Awaited<ReturnType<typeof judgeSuite>>;

/**
 * The fields of offenders `ids`, read again from disk (records held in memory aside): only the offenders a
 * report shows are, so memory does not grow with failures. `qids` are the gold ids in row order, when the
 * caller has them already (see goldColumns).
 */
export function describer(
  { gold, loaded, options, goldFields }: JudgedSuite,
  ctx: Pick<ScoreContext, 'relative'>,
  qids?: readonly string[],
): NonNullable<SuiteResult['describe']> {
  let find: ((id: string) => number | undefined) | undefined;
  return async (ids) => {
    find ??= rowFinder(qids ?? gold.map((g) => g.qid));
    const rows = ids.flatMap((id) => find!(id) ?? []);
    const refs = rows.map((row) => loaded.ref(row));
    const held = loaded.records ? await loaded.records(rows) : undefined;
    const traceMap = compileFieldMap(
      options.traces.fields,
      options.traces.markers ? markedTraceShape : traceShape,
    );
    // Runs held as judged (Parquet rows) are read again only for the texts of their content ids.
    const again = held && !traceMap?.makesIds ? [] : refs.filter((r): r is LineRef => r !== undefined);
    const goldMap = compileFieldMap(goldFields, goldShape);
    // Ids made from texts (content_id), as the records read again here show them.
    const previews = new Map<string, string>();
    const questions = await questionsOf(
      rows.map((row) => gold[row]!),
      goldMap,
      goldMap?.makesIds ? (record) => goldMap.previews(record, previews) : undefined,
    );
    // Records are keyed by the reference objects asked for.
    const records = await recordsAt(again);
    if (traceMap?.makesIds) for (const record of records.values()) traceMap.previews(record, previews);
    const asRun = options.traces.markers ? asMarkedTraceLine : asTraceLine;
    const markers = options.markers && compileMarkers(options.markers);
    const out = new Map<string, NonNullable<Offender['fields']>>();
    rows.forEach((row, i) => {
      const ref = refs[i];
      const t = held
        ? held.get(row)
        : ref
          ? asRun(traceMap ? traceMap.apply(records.get(ref)) : records.get(ref))
          : undefined;
      const rule = loaded.table.rule[row]!;
      out.set(
        gold[row]!.qid,
        previewed(
          describeItem(gold[row]!, questions[i], t, {
            labels: loaded.labels(row) ?? (['missing_trace'] as Label[]),
            trace: ref && where(ref, ctx.relative),
            contradiction: ref && rule >= 0 ? loaded.rules[rule]!.contradiction : undefined,
            ...(markers && { markers }),
          }),
          previews,
        ),
      );
    });
    return out;
  };
}

/**
 * What the result needs of the gold set, as columns in row order: a run's own items, or a merge's from a
 * partial (200k objects rebuilt for it took a 1x merge about 60 ms, and more in garbage collection).
 */
export interface GoldColumns {
  readonly qids: readonly string[];
  readonly answerable: Uint8Array;
  /** Where item `row` is; asked only for failing items. */
  source(row: number): { file: string; line: number };
}

export function goldColumns(gold: readonly GoldItem[]): GoldColumns {
  return {
    qids: gold.map((g) => g.qid),
    answerable: answerableOf(gold),
    source: (row) => gold[row]!.source,
  };
}

/**
 * The row of an id: by binary search when the ids are in code-unit order, as gold sets in id order are, else
 * from a map made when first asked (a map of 200k ids took 80 ms, for a report's 1000 offenders).
 */
export function rowFinder(ids: readonly string[]): (id: string) => number | undefined {
  let sorted: boolean | undefined;
  let rows: Map<string, number> | undefined;
  return (id) => {
    sorted ??= ids.every((x, r) => r === 0 || ids[r - 1]! < x);
    if (!sorted) return (rows ??= new Map(ids.map((x, r) => [x, r]))).get(id);
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return ids[lo] === id ? lo : undefined;
  };
}

/** What judging found, as much as the suite's result needs: a run's RunsLoad, or one merged from partials. */
export type JudgedRuns = Pick<
  RunsLoad,
  'table' | 'lines' | 'superseded' | 'unknown' | 'labels' | 'passed' | 'meeting'
>;

/** The suite's result from its judged runs: one function for a run and a merge, so they agree to the byte. */
export function resultOf(
  gold: GoldColumns,
  loaded: JudgedRuns,
  options: ScoreOptions,
  relative: (file: string) => string,
  describe: NonNullable<SuiteResult['describe']>,
  /** The answers' tokens and cost, when the suite asks for them (see usage.ts). */
  usage?: AnswerUsage,
): SuiteResult {
  const { metrics, counts, tally } = aggregate(gold.answerable, loaded.table, options);
  const warnings: string[] = [];
  if (loaded.unknown.size > 0) {
    const ids = [...loaded.unknown.keys()].sort();
    const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
    const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
    warnings.push(
      `${ids.length} trace qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${shown}`,
    );
  }
  if (counts.missing > 0) warnings.push(`${counts.missing} of ${counts.gold} gold items have no trace`);
  const unknownLines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
  const misread = misreads(
    loaded.table,
    { total: loaded.lines, unknown: unknownLines },
    readersOf(options.traces),
  );
  // Ids that meet no gold id make every retrieval and citation metric 0: said before anything else.
  const headline =
    loaded.meeting &&
    meetingWarning(loaded.meeting, readerOf(options.traces ?? CANONICAL_TRACES), {
      noun: 'trace',
      searched: true,
    });
  warnings.push(...misread.map((m) => m.warning));
  if (headline) {
    warnings.unshift(headline);
    misread.unshift({ warning: headline, metrics: doubted(GROUNDED_METRICS, 'ids') });
  }

  const { table } = loaded;
  // Failing is what `passed` says, as for `items`; the worst label only picks the bucket.
  const rows = offendingRows(gold.qids, (row) =>
    loaded.passed(row) ? undefined : table.present[row] ? worstLabel(table.flags[row]!) : 'missing_trace',
  );
  // Gold sets are mostly one file: its relative name is made once.
  const relatives = new Map<string, string>();
  // Only the offenders a report shows are made, with their labels spelled out.
  const offender = (row: number): Offender => {
    const { file, line } = gold.source(row);
    let shown = relatives.get(file);
    if (shown === undefined) relatives.set(file, (shown = relative(file)));
    const stage = table.present[row] ? stageOf(table.flags[row]!, gold.answerable[row] === 1) : undefined;
    const match = options.claims && table.present[row] ? matchRule(table.flags[row]!) : undefined;
    return {
      id: gold.qids[row]!,
      labels: loaded.labels(row) ?? (['missing_trace'] as Label[]),
      ...(stage ? { stage } : {}),
      ...(match ? { match } : {}),
      source: { file: shown, line },
    };
  };
  if (usage) warnings.push(...usage.warnings);
  return {
    metrics: usage ? { ...metrics, ...usage.metrics } : metrics,
    counts: {
      ...counts,
      trace_lines: loaded.lines,
      superseded_runs: loaded.superseded,
      unknown_qids: loaded.unknown.size,
      ...(options.claims && matchCounts(table)),
      ...usage?.counts,
    },
    offenders: {
      length: rows.length,
      at: (i) => (i >= 0 && i < rows.length ? offender(rows[i]!) : undefined),
      idAt: (i) => gold.qids[rows[i]!]!,
    },
    describe,
    warnings,
    misread,
    ...(headline && { headline }),
    items: {
      ids: gold.qids,
      pass: passColumn(gold.qids.length, loaded),
      populations: populationColumns(tally),
      failing: failingColumns(GROUNDED_METRICS, tally),
      ...(usage?.values && { values: usage.values }),
    },
    triage: {
      ...triage(gold.answerable, loaded.table),
      ...(options.claims && { claims: options.claims.match }),
    },
    ...(options.claims && normalizedTable(gold.qids, table)),
  };
}

const NORMALIZED_SHOWN = 20;

/**
 * The items whose claim only the normalized rule contains, in gold order: a looser rule's hits are named, as
 * the judge's rescues are (claims/semantic.ts), for review. An item not named matched by substring, or missed.
 */
function normalizedTable(qids: readonly string[], table: RunTable): { tables: Table[] } | undefined {
  const ids: string[] = [];
  for (let row = 0; row < table.present.length; row++)
    if (table.present[row] && matchRule(table.flags[row]!) === 'normalized') ids.push(qids[row]!);
  if (ids.length === 0) return undefined;
  const shown = ids.slice(0, NORMALIZED_SHOWN);
  const first = ids.length > shown.length ? ` (first ${shown.length} of ${ids.length})` : '';
  return {
    tables: [
      {
        title: `claims: matched by the normalized rule only${first}`,
        columns: ['id'],
        rows: shown.map((id) => [id]),
      },
    ],
  };
}

/** How many runs' claims each rule of the table found the gold fact in (`claims:` set), in table order. */
function matchCounts(table: RunTable): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const rule of claimRules()) counts[`claims_${rule.name}`] = 0;
  for (let row = 0; row < table.present.length; row++) {
    const rule = table.present[row] ? matchRule(table.flags[row]!) : undefined;
    if (rule) counts[`claims_${rule}`]!++;
  }
  return counts;
}

function passColumn(n: number, loaded: JudgedRuns): Uint8Array {
  const pass = new Uint8Array(n);
  for (let row = 0; row < n; row++) pass[row] = loaded.passed(row) ? 1 : 0;
  return pass;
}

interface Judged {
  gold: GoldItem[];
  loaded: RunsLoad;
  digest: GoldDigest;
  /** A gold question's qid, when the traces name their item by its question (see matchesByQuestion). */
  questions?: ReadonlyMap<string, string>;
}

/**
 * Traces judged against gold: the source their format names (grounded-answer/sources/index.ts) starts reading them
 * at once, on helper threads where the input is worth it, while this thread loads and checks gold; a helper
 * digests gold (JSON Lines gold) where the source has one to spare. OpenInference traces whose qid is their
 * question are matched to gold by it.
 */
async function judgeTraces(
  goldFiles: readonly string[],
  traceFiles: readonly string[],
  options: ScoreOptions,
  fields: FieldMap | undefined,
): Promise<Judged> {
  const byQuestion = matchesByQuestion(traceFiles, options.traces);
  const judging = startJudging(traceFiles, options, goldFiles.some(isParquet) ? [] : goldFiles);
  const digestsGold = await judging.digestsGold;
  const {
    items: gold,
    digest: ownDigest,
    questions,
  } = await loadGold(goldFiles, {
    digest: !digestsGold,
    fields,
    questions: byQuestion,
  }).catch(async (err: unknown) => {
    await judging.cancel();
    throw err;
  });
  const loaded = await judging.finish(gold, questions);
  return {
    gold,
    loaded,
    digest: ownDigest ?? (await judging.goldDigest(gold)),
    ...(questions && { questions }),
  };
}

/** Where a run is, as an offender shows it: `file:line`, or `file row N` for Parquet. */
export function where(ref: LineRef, relative: (file: string) => string): string {
  return recordWord(ref.file) === 'row'
    ? `${relative(ref.file)} row ${ref.line}`
    : `${relative(ref.file)}:${ref.line}`;
}

/**
 * Offender fields with each id that content_id made from a text shown as that text's preview (textPreview),
 * where the records read again for them hold the text. The item's own id stays its qid: it keys baselines and
 * items, and the question beside it is the text a qid from content_id was made of.
 */
export function previewed(
  fields: NonNullable<Offender['fields']>,
  previews: ReadonlyMap<string, string>,
): NonNullable<Offender['fields']> {
  if (previews.size === 0) return fields;
  for (const key of ['citations', 'retrieved_ids', 'gold_citations']) {
    const ids = fields[key];
    if (Array.isArray(ids)) fields[key] = ids.map((id) => previews.get(id) ?? id);
  }
  return fields;
}

/** An offender's fields, from its gold item, its question and its winning run (with where it is). */
export function describeItem(
  gold: GoldItem,
  question: unknown,
  t: Pick<TraceLine, 'answer_json' | 'retrieved_ids'> | undefined,
  run: {
    labels: readonly Label[];
    trace: string | undefined;
    contradiction: string | undefined;
    /** `citation_markers`: the citations shown are the claim's markers, resolved as judging resolved them. */
    markers?: Markers;
  },
): NonNullable<Offender['fields']> {
  const fields: NonNullable<Offender['fields']> = {
    question: typeof question === 'string' ? question : null,
    claim: t ? t.answer_json.claim : null,
    citations: t
      ? run.markers
        ? markedCitations(t.answer_json.claim, t.retrieved_ids, run.markers).ids
        : t.answer_json.citations
      : null,
    retrieved_ids: t ? t.retrieved_ids : null,
    gold_citations: gold.citations,
  };
  if (run.labels.includes('claim_miss')) fields.gold_claim_substr = gold.claimSubstrings;
  if (run.labels.includes('scu_violation')) {
    fields.constraints = gold.constraints;
    fields.constraints_echo = t?.answer_json.constraints_echo ?? null;
    if (run.contradiction !== undefined) fields.contradiction = run.contradiction;
  }
  if (run.trace !== undefined) fields.trace = run.trace;
  return fields;
}
