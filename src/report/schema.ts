import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { metricValueSchema } from '../metrics/spec.js';
import { ItemRecord } from './item-record.js';
import { holdsMoreThan, stringifyInPieces } from './json-pieces.js';
import { ownRecord } from '../io/own-record.js';
import { triageSchema } from './triage.js';
import { claimRuleName } from '../claims/rules/index.js';

/**
 * report.json, the public contract (docs/report-schema.md). The JSON Schema in docs/ is generated from
 * this, and every report groundgate writes is checked against it in the tests.
 */
export const offenderSchema = z.looseObject({
  id: z.string(),
  labels: z.array(z.string()),
  source: z.strictObject({ file: z.string(), line: z.int() }).optional(),
  /** The claim rule that found the claim's gold fact, when the suite sets `claims:` (grounded-qa). */
  match: claimRuleName.optional(),
});

const ids = z.array(z.string());

/** The gold set as scored: its digest, and how it compares with its lock (when it has one). */
export const goldReportSchema = z.strictObject({
  sha256: z.string(),
  items: z.int(),
  lock: z
    .strictObject({
      file: z.string(),
      status: z.enum(['match', 'mismatch', 'missing']),
      added: ids,
      removed: ids,
      changed: ids,
    })
    .optional(),
});

/** With --baseline, for suites with per-item verdicts: what changed item by item. */
export const comparisonSchema = z.strictObject({
  /** Gold items edited, added or removed since the baseline: their verdicts are not compared. */
  gold_changes: z.strictObject({ added: ids, removed: ids, changed: ids }),
  /** Items in both reports with the same gold. */
  paired: z.int(),
  /** Passed on the baseline, fail now. */
  regressed: ids,
  /** Failed on the baseline, pass now. */
  fixed: ids,
  /** Exact two-sided McNemar test of regressed vs fixed. */
  mcnemar_p: z.number(),
});

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A small table a suite reports beside its metrics (configuration points, a confusion matrix). */
export const tableSchema = z.strictObject({
  title: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(cell)),
  /** Draw the rows as a scatter plot: x and y are numeric columns; highlighted rows stand out. */
  chart: z
    .strictObject({ x: z.string(), y: z.string(), label: z.string(), highlight: z.string().optional() })
    .optional(),
});

/**
 * What the judge spent in this run (claims: {match: semantic}): requests sent, retries included; the tokens
 * the answers' `usage` reported; the answers that reported none, whose tokens are in neither sum (unknown,
 * not 0); the cost at claims.pricing's price, only when it has the model's and every answer reported usage.
 */
export const judgeSpendSchema = z.strictObject({
  model: z.string().optional(),
  requests: z.int(),
  tokens_in: z.int(),
  tokens_out: z.int(),
  without_usage: z.int(),
  cost_usd: z.number().optional(),
});

export const suiteReportSchema = z.strictObject({
  kind: z.string(),
  inputs: z.record(z.string(), z.array(z.string())),
  gold: goldReportSchema.optional(),
  metrics: z.record(z.string(), metricValueSchema),
  counts: z.record(z.string(), z.number()),
  /** Where grounded answers fail, by pipeline stage (grounded-qa; docs/report-schema.md). */
  triage: triageSchema.optional(),
  judge: judgeSpendSchema.optional(),
  comparison: comparisonSchema.optional(),
  tables: z.array(tableSchema).optional(),
  offenders_total: z.int(),
  offenders: z.array(offenderSchema),
  warnings: z.array(z.string()),
  /** warnings[0], when every output shows it first: the traces' ids meet almost none of the gold set's. */
  headline: z.string().optional(),
  /**
   * Every item's verdict, a 64-bit prefix of its gold digest and its per-item metric values: what a later run
   * compares with.
   */
  items: ownRecord(
    z.strictObject({
      pass: z.boolean(),
      gold: z.string().optional(),
      values: z.record(z.string(), z.number()).optional(),
    }),
  )
    .transform((record) => ItemRecord.fromRecord(record))
    .optional(),
});

export const gateResultSchema = z.strictObject({
  suite: z.string(),
  metric: z.string(),
  op: z.enum(['>=', '<=', '>', '<', '==', 'max_drop', 'max_increase', 'max_new_failures']),
  threshold: z.number(),
  value: z.number().nullable(),
  passed: z.boolean(),
  skipped: z.boolean().optional(),
  /** With confidence: lower_bound / upper_bound, the interval bound that was compared instead of value. */
  confidence: z.enum(['lower_bound', 'upper_bound']).optional(),
  compared: z.number().nullable().optional(),
  baseline: z.number().nullable().optional(),
  reason: z.string().optional(),
  /** max_new_failures: the metric's population compared item by item with the baseline (gold unchanged). */
  paired: z
    .strictObject({
      /** The items the metric counts over (`unanswerable`), or `all`. */
      population: z.string(),
      /** Items of the population in both reports with the same gold. */
      items: z.int(),
      /** Passed on the baseline, fail now: what the gate counts. */
      new_failures: z.int(),
      /** Failed on the baseline, pass now. */
      fixes: z.int(),
      /** The first new failures (at most 5), in code-unit order. */
      first: ids,
      /** Exact two-sided McNemar test of new failures vs fixes. */
      mcnemar_p: z.number(),
    })
    .optional(),
  /** max_drop: two-sided paired randomization p of the per-item differences (metrics with per-item values). */
  p: z.number().optional(),
  /** max_drop with significance: a drop past the limit fails only when p is below this level. */
  significance: z.number().optional(),
  line: z.int().optional(),
});

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-hex commit sha');

/** With baseline: auto (or --baseline gh:auto): the workflow run whose report artifact was compared with. */
export const artifactSourceSchema = z.strictObject({
  commit: sha,
  /** The commit's time, from the run (ISO-8601): the comment gives the baseline's age. */
  committed_at: z.iso.datetime({ offset: true }).optional(),
  run_id: z.int().positive(),
  branch: z.string().optional(),
  /** The base commit, when it had no report and the newest report of `branch` was used instead. */
  fallback_from: sha.optional(),
});

/** With neither --baseline nor an artifact: the committed baseline (.groundgate/baseline.jsonl). */
export const committedSourceSchema = z.strictObject({
  source: z.literal('committed'),
  /** The file, relative to the directory of gates.yaml. */
  file: z.string(),
  /**
   * The commit it was made at (its header's); null when it was made at no commit (outside a git repository,
   * or before its first).
   */
  commit: sha.nullable(),
});

/** Which baseline the deltas are against; a report of an artifact has no `source`, as before it had any. */
export const baselineSourceSchema = z.union([artifactSourceSchema, committedSourceSchema]);

export const reportSchema = z.strictObject({
  schema_version: z.literal('1'),
  tool: z.strictObject({ name: z.literal('groundgate'), version: z.string() }),
  verdict: z.enum(['pass', 'fail']),
  config: z.string(),
  baseline: baselineSourceSchema.optional(),
  suites: z.record(z.string(), suiteReportSchema),
  gates: z.array(gateResultSchema),
});

export type Report = z.infer<typeof reportSchema>;
export type SuiteReport = z.infer<typeof suiteReportSchema>;
export type BaselineSource = z.infer<typeof baselineSourceSchema>;
export type ArtifactSource = z.infer<typeof artifactSourceSchema>;
export type GateResult = z.infer<typeof gateResultSchema>;
export type OffenderJson = z.infer<typeof offenderSchema>;
export type Comparison = z.infer<typeof comparisonSchema>;
export type GoldReport = z.infer<typeof goldReportSchema>;
export type Table = z.infer<typeof tableSchema>;
export type JudgeSpendReport = z.infer<typeof judgeSpendSchema>;

/** Values in a report above which it is written in pieces: a 1× grounded-qa report holds 620k. */
const IN_PIECES_ABOVE = 20_000;

/** Fixed key order and a trailing newline: byte-identical output for identical inputs. */
export function serializeReport(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * serializeReport's bytes, written to `file`: in pieces for a large report (see stringifyInPieces), at once
 * for a small one, for which the piecewise writer, plain JavaScript running once, is the slower: 10 ms of
 * the Action's 300 on the example report (1,400 values), where JSON.stringify takes under 1.
 */
export function writeReport(file: string, report: Report): void {
  if (!holdsMoreThan(report, IN_PIECES_ABOVE)) {
    writeFileSync(file, serializeReport(report));
    return;
  }
  const fd = openSync(file, 'w');
  try {
    stringifyInPieces(report, (piece) => writeAll(fd, piece));
    writeSync(fd, '\n');
  } finally {
    closeSync(fd);
  }
}

/** writeSync of all of `bytes`: it may write fewer than asked (to a pipe, a full disk's last blocks). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}
