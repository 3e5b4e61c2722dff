import { z } from 'zod';
import { suitePricing } from '../../cost/pricing-file.js';
import { recordUsage, type Usage } from '../../cost/usage.js';
import { usageWireSchema } from '../../cost/usage-wire.js';
import { usageColumns, usageFigures, usageSpecs, type UsageValues } from '../../cost/usage-metrics.js';
import type { RunsLoad } from '../../grounded-answer/pipeline/judged-runs.js';
import { traceChecker, traceScanner } from '../../grounded-answer/trace-checks.js';
import { scannedUsage, scanTraceLine, traceFields } from '../../grounded-answer/trace-scan.js';
import { forEachSpan } from '../../io/read-at.js';
import { parseJsonLine, type LineRef } from '../../io/jsonl.js';
import type { TraceInput } from '../../grounded-answer/trace-input.js';
import { resolveMetric, type MetricSpec, type MetricValue } from '../../metrics/spec.js';
import type { ScoreContext } from '../types.js';
import type { GroundedQaConfig } from './config.js';

// Tokens and cost per answer in grounded-qa. An answer is a gold item's winning run, refusals included (a
// refusal's tokens were spent too); superseded runs and items without a run are not answers. The counts are
// read only when the suite asks for them (see asksUsage), so that judging, the hot path, reads nothing it does
// not judge otherwise: with the runs, by the sources that read runs as records, or from the winners' bytes.

/** The suite's token and cost metrics: the latency suite's, per answer. */
export const USAGE_METRICS: readonly MetricSpec[] = usageSpecs('answer');

/** Whether the suite reads its answers' usage: `pricing:` is set, or a gate names a token or cost metric. */
export function asksUsage(config: Pick<GroundedQaConfig, 'pricing' | 'gates'>): boolean {
  return (
    config.pricing !== undefined ||
    Object.keys(config.gates).some((name) => resolveMetric(name, USAGE_METRICS) !== undefined)
  );
}

/** The winners judging found, where each is (see RunsLoad.ref), and their usage when read with them. */
export type Winners = Pick<RunsLoad, 'table' | 'ref' | 'usage'>;

/**
 * The usage of each gold item's winning run, by gold row (undefined: no run, or one that counts no tokens),
 * each record checked and mapped as judging read it. Runs read as records (Parquet rows, spans, records held
 * in memory) kept their usage as they were read (RunsLoad.usage); runs that are lines are read again on their
 * bytes, as judging read them. Winners are taken in input order, so that the first of them whose counts are
 * wrong is the one reported, however the runs were read.
 */
export function winnersUsage(
  input: TraceInput,
  qids: readonly string[],
  winners: Winners,
): (Usage | undefined)[] {
  const { table } = winners;
  const rows: number[] = [];
  for (let row = 0; row < table.present.length; row++) if (table.present[row]) rows.push(row);
  rows.sort((a, b) => table.file[a]! - table.file[b]! || table.line[a]! - table.line[b]!);
  const usages = new Array<Usage | undefined>(qids.length).fill(undefined);
  if (winners.usage) {
    for (const row of rows) usages[row] = winners.usage(row);
    return usages;
  }
  const lines = new Map<string, number[]>();
  for (const row of rows) {
    const { file } = winners.ref(row)!;
    (lines.get(file) ?? lines.set(file, []).get(file)!).push(row);
  }
  const checker = traceChecker(input);
  for (const [file, at] of lines)
    readLineUsages(
      file,
      at.map((row) => winners.ref(row)!),
      input,
      checker,
      (j, usage) => (usages[at[j]!] = usage),
    );
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

/** A shard's usages of its runs, as a partial holds them (null for a run that counts none). */
export const usagesSchema = z.array(usageWireSchema.nullable());
export const USAGES_WHAT = "its runs' token counts (a list of null or {in, out, cached, models})";
