import { z } from 'zod';
import { suitePricing } from '../../cost/pricing-file.js';
import { recordUsage, spanUsage, type ModelTokens, type Usage } from '../../cost/usage.js';
import { usageColumns, usageFigures, usageSpecs, type UsageValues } from '../../cost/usage-metrics.js';
import { readsSpans } from '../../grounded-answer/load.js';
import type { RunsLoad } from '../../grounded-answer/pipeline/judged-runs.js';
import { isParquet, recordsAt } from '../../io/records.js';
import type { RunTable } from '../../grounded-answer/pipeline/runs.js';
import { timestamp } from '../../grounded-answer/timestamp.js';
import { traceChecker, traceScanner } from '../../grounded-answer/trace-checks.js';
import { scannedUsage, scanTraceLine, traceFields } from '../../grounded-answer/trace-scan.js';
import { forEachSpan } from '../../io/read-at.js';
import { parseJsonLine, type LineRef } from '../../io/jsonl.js';
import type { TraceInput } from '../../grounded-answer/trace-input.js';
import { traceRecords } from '../../grounded-answer/trace-records.js';
import { resolveMetric, type MetricSpec, type MetricValue } from '../../metrics/spec.js';
import type { ScoreContext } from '../types.js';
import type { GroundedQaConfig } from './config.js';

// Tokens and cost per answer in grounded-qa. An answer is a gold item's winning run, refusals included (a
// refusal's tokens were spent too); superseded runs and items without a run are not answers. The winners'
// usage is read again after judging, only when the suite asks for it (see asksUsage), so that judging, the
// hot path, reads nothing it does not judge.

/** The suite's token and cost metrics: the latency suite's, per answer. */
export const USAGE_METRICS: readonly MetricSpec[] = usageSpecs('answer');

/** Whether the suite reads its answers' usage: `pricing:` is set, or a gate names a token or cost metric. */
export function asksUsage(config: Pick<GroundedQaConfig, 'pricing' | 'gates'>): boolean {
  return (
    config.pricing !== undefined ||
    Object.keys(config.gates).some((name) => resolveMetric(name, USAGE_METRICS) !== undefined)
  );
}

/** The winners judging found, and where each is (see RunsLoad.ref). */
export type Winners = Pick<RunsLoad, 'table' | 'ref'>;

/** Parquet winners read back at once by their rows: a bound on the records held in memory together. */
const BATCH = 8192;

/**
 * The usage of each gold item's winning run, by gold row (undefined: no run, or one that counts no tokens),
 * each record checked and mapped as judging read it. Winners that are lines (read on their bytes, as judging
 * reads them) or Parquet rows are read again by their places; spans (whose calls keep each its model:
 * Usage.byModel) and records held by the records source, by a pass of their own over the traces (see
 * usagesByPass).
 */
export async function winnersUsage(
  files: readonly string[],
  input: TraceInput,
  qids: readonly string[],
  questions: ReadonlyMap<string, string> | undefined,
  winners: Winners,
): Promise<(Usage | undefined)[]> {
  const { table } = winners;
  const rows: number[] = [];
  for (let row = 0; row < table.present.length; row++) if (table.present[row]) rows.push(row);
  // In input order: a batch reads on in its files, and a Parquet row group is decoded for one batch only.
  rows.sort((a, b) => table.file[a]! - table.file[b]! || table.line[a]! - table.line[b]!);
  const refs = rows.map((row) => winners.ref(row)!);
  const placed = refs.every((r) => r.offset >= 0 || isParquet(r.file));
  if (readsSpans(files, input) || !placed) return usagesByPass(files, input, qids, questions, table);
  const usages = new Array<Usage | undefined>(qids.length).fill(undefined);
  const lines = new Map<string, number[]>();
  const parquet: number[] = [];
  refs.forEach((ref, i) => {
    if (isParquet(ref.file)) parquet.push(i);
    else (lines.get(ref.file) ?? lines.set(ref.file, []).get(ref.file)!).push(i);
  });
  const checker = traceChecker(input);
  for (const [file, at] of lines)
    readLineUsages(
      file,
      at.map((i) => refs[i]!),
      input,
      checker,
      (j, usage) => (usages[rows[at[j]!]!] = usage),
    );
  for (let from = 0; from < parquet.length; from += BATCH) {
    const batch = parquet.slice(from, from + BATCH).map((i) => refs[i]!);
    const records = await recordsAt(batch);
    batch.forEach((ref, j) => {
      usages[rows[parquet[from + j]!]!] = recordUsage(checker.check(records.get(ref), ref.file, ref.line));
    });
  }
  return usages;
}

/**
 * The usage of each line of `file` at `refs`, read on its bytes by the scanner judging read it with; a line
 * the scanner leaves (an unusual one) is parsed and checked, as judging did.
 */
function readLineUsages(
  file: string,
  refs: readonly LineRef[],
  input: TraceInput,
  checker: ReturnType<typeof traceChecker>,
  each: (index: number, usage: Usage | undefined) => void,
): void {
  const scanner = traceScanner(input);
  const found = scanner ? scanner.found() : traceFields();
  forEachSpan(
    file,
    refs.map((r) => r.offset),
    refs.map((r) => r.length),
    (i, b, start, end) => {
      if (scanTraceLine(b, start, end, found, scanner)) each(i, recordUsage(scannedUsage(b, found)));
      else {
        const { line } = refs[i]!;
        each(
          i,
          recordUsage(checker.check(parseJsonLine(file, line, b.toString('utf8', start, end)), file, line)),
        );
      }
    },
  );
}

/**
 * The usages of the winners read in one pass over the traces as records (as the records source and the
 * latency suite read them): a record is its item's winner when it is where the pick found the winner (file,
 * and line or row) with the winner's `ts`.
 */
async function usagesByPass(
  files: readonly string[],
  input: TraceInput,
  qids: readonly string[],
  questions: ReadonlyMap<string, string> | undefined,
  table: RunTable,
): Promise<(Usage | undefined)[]> {
  const rows = new Map<string, number>();
  qids.forEach((qid, row) => rows.set(qid, row));
  const checker = traceChecker(input);
  const usages = new Array<Usage | undefined>(qids.length).fill(undefined);
  for await (const { file, line, value, spans } of traceRecords(files, input, readsSpans(files, input))) {
    const t = checker.check(value, file, line);
    const row = rows.get(questions?.get(t.qid) ?? t.qid);
    if (row === undefined || !table.present[row] || table.line[row] !== line) continue;
    if (files[table.file[row]!] !== file || !sameTime(timestamp(t.ts, file, line), table.ts[row]!)) continue;
    usages[row] = spans ? spanUsage(spans.all) : recordUsage(t, { file, line });
  }
  return usages;
}

const sameTime = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** What the suite's result adds for tokens and cost: metrics, counts, warnings and per-item values. */
export interface AnswerUsage {
  metrics: Record<string, MetricValue>;
  counts: Record<string, number>;
  warnings: string[];
  /** Each gold item's values (NaN: no answer, or none counted), when some answer counts tokens. */
  values?: Record<string, Float64Array>;
}

/**
 * The token and cost figures over the answers (the gold items with a winning run) given each gold row's
 * usage: one function for a run and a merge, so they agree.
 */
export function answerUsage(
  config: GroundedQaConfig,
  ctx: Pick<ScoreContext, 'metrics' | 'resolvePath'>,
  present: Uint8Array,
  usages: readonly (Usage | undefined)[],
): AnswerUsage {
  const answered: number[] = [];
  for (let row = 0; row < present.length; row++) if (present[row]) answered.push(row);
  const figures = usageFigures(
    answered.map((row) => usages[row]),
    ctx.metrics,
    config.gates,
    suitePricing(config, ctx),
    'answer',
  );
  const { metrics, counts, warnings } = figures;
  if (!figures.counted) return { metrics, counts, warnings };
  const byRow = new Array<UsageValues>(present.length).fill({});
  answered.forEach((row, i) => (byRow[row] = figures.values[i]!));
  return { metrics, counts, warnings, values: usageColumns(byRow) };
}

// A call naming no model is written without one (JSON has no undefined): read back as undefined.
const modelTokensSchema = z
  .strictObject({
    model: z.string().min(1).optional(),
    tokensIn: z.int().min(0),
    tokensOut: z.int().min(0),
    cachedIn: z.int().min(0).optional(),
  })
  .transform(({ model, tokensIn, tokensOut, cachedIn }): ModelTokens => ({
    model,
    tokensIn,
    tokensOut,
    ...(cachedIn !== undefined && { cachedIn }),
  }));
const usageSchema = z.strictObject({
  tokensIn: z.int().min(0).optional(),
  tokensOut: z.int().min(0).optional(),
  cachedIn: z.int().min(0).optional(),
  byModel: z.array(modelTokensSchema).optional(),
});

/** A shard's usages of its runs, as a partial holds them (JSON: null for a run that counts none). */
export const usagesSchema = z.array(usageSchema.nullable());
export const USAGES_WHAT = "its runs' token counts (a list of null or {tokensIn, tokensOut, byModel})";
