import type { z } from 'zod';
import { withMatchBy } from '../grounded-answer/verdict-flags.js';
import { readPricingFile } from '../cost/pricing-file.js';
import type { Pricing } from '../cost/pricing.js';
import { UsageError } from '../errors.js';
import type { JudgeSpendReport, Table } from '../report/schema.js';
import { spendReport } from './judge-spend.js';
import { notComputable } from '../metrics/spec.js';
import type { ScoreContext, SuiteResult } from '../suites/types.js';
import type { JudgedSuite } from '../suites/grounded-qa/judged.js';
import { agreement, agreementTable, matrixTable, type Agreement, type RatedPair } from './agreement.js';
import { readLabels } from './labels-file.js';
import { answerQuestions, whyUnjudged, type Answered } from './questions.js';
import { itemVerdict, type Candidate, type ItemVerdict } from './rescue.js';
import { semantic } from './rules/semantic.js';
import { asksJudge } from './rules/index.js';

/** `claims: {match: semantic}` of a suite, its paths resolved (docs/metrics.md, "Semantic matching"). */
export interface SemanticSettings {
  /** The judgments file, absolute. */
  cache: string;
  unjudged: 'warn' | 'fail';
  requireCommitted: boolean;
  hitsSample: number;
  /** Human verdicts (JSON Lines), absolute. */
  labels?: string;
  minKappa?: number;
  /** The price table, read from its file when `pricing:` names one. */
  pricing?: Pricing;
}

/** A suite's semantic settings, its paths resolved in the workspace (`resolve` is ScoreContext.resolvePath). */
export function semanticSettings(
  keys: Partial<z.output<typeof semantic.options>>,
  resolve: (key: string) => string,
): SemanticSettings {
  return {
    cache: resolve('claims.cache'),
    unjudged: keys.unjudged ?? 'warn',
    requireCommitted: keys.require_committed ?? false,
    hitsSample: keys.judge_hits_sample ?? 0,
    ...(keys.labels !== undefined ? { labels: resolve('claims.labels') } : {}),
    ...(keys.min_kappa !== undefined ? { minKappa: keys.min_kappa } : {}),
    ...(keys.pricing !== undefined
      ? {
          pricing:
            typeof keys.pricing === 'string' ? readPricingFile(resolve('claims.pricing')) : keys.pricing,
        }
      : {}),
  };
}

/** What semantic matching adds to a suite's result; the table's flags are rescued in place. */
export interface SemanticOutcome {
  counts: Record<string, number>;
  tables: Table[];
  warnings: string[];
  /** What asking the judge spent in this run. */
  judge: JudgeSpendReport;
  /** Why precision, the one metric the claim rule decides, is not computable: set when the gate must fail. */
  refusal?: string;
}

/**
 * The judge's pass over a judged suite (after the deterministic rules, before scoring): each claim miss the
 * judge supports becomes a hit of the semantic rule (withMatchBy), unless `min_kappa` refuses the judge; agreement with the
 * deterministic verdict (and with humans, `labels:`) is measured on every run. Judgments come from the
 * cache file; those it lacks are asked for when the environment has an endpoint, and written to it.
 */
export async function semanticPass(
  judged: JudgedSuite,
  settings: SemanticSettings,
  ctx: Pick<ScoreContext, 'relative'>,
  env: NodeJS.ProcessEnv,
  now?: () => Date,
): Promise<SemanticOutcome> {
  const answered = await answerQuestions(judged, ctx, settings, env, now);
  const { plan: p, verdictOf } = answered;
  const verdicts = {
    misses: p.missKeys.map((keys) => itemVerdict(keys, verdictOf)),
    hits: p.hitKeys.map((keys) => itemVerdict(keys, verdictOf)),
  };
  const rated = await agreements(settings, p, verdicts);
  const rescued = p.misses.flatMap((c, i) => {
    if (verdicts.misses[i] !== 'SUPPORTED') return [];
    return [{ c, fact: c.facts[p.missKeys[i]!.findIndex((k) => verdictOf(k) === 'SUPPORTED')]! }];
  });
  const { table } = judged.loaded;
  if (!rated.refusal)
    for (const { c } of rescued) table.flags[c.row] = withMatchBy(table.flags[c.row]!, semantic.name);
  const unjudged = p.misses.filter((_, i) => verdicts.misses[i] === 'UNJUDGED');
  const { warnings, reasons } = notes(settings, ctx.relative(settings.cache), answered, {
    unjudged,
    rescued,
    refusal: rated.refusal,
  });
  const tables = [matrixTable(rated.deterministic), agreementTable(rated.rows)];
  if (rescued.length) tables.push(rescueTable(rescued, rated.refusal !== undefined));
  return {
    counts: {
      judged_items: rated.deterministic.items,
      judge_rescues: rated.refusal ? 0 : rescued.length,
      unjudged_items: unjudged.length,
      new_judgments: answered.consulted.fresh.length,
    },
    tables,
    warnings,
    judge: spendReport(answered.consulted.spend, answered.model, settings.pricing),
    ...(reasons.length ? { refusal: reasons.join('; ') } : {}),
  };
}

/**
 * Deterministic vs judge over the items with both verdicts, judge vs human with `labels:`, and why
 * `min_kappa` refuses the judge, if it does.
 */
async function agreements(
  settings: SemanticSettings,
  p: Answered['plan'],
  verdicts: { misses: ItemVerdict[]; hits: ItemVerdict[] },
): Promise<{ deterministic: Agreement; rows: [string, Agreement][]; refusal?: string }> {
  const rated = (hit: boolean) => (v: ItemVerdict) =>
    v === 'UNJUDGED' ? [] : [[hit, v === 'SUPPORTED'] as const];
  const pairs: RatedPair[] = [
    ...verdicts.hits.flatMap(rated(true)),
    ...verdicts.misses.flatMap(rated(false)),
  ];
  const deterministic = agreement(pairs);
  const rows: [string, Agreement][] = [['deterministic vs judge', deterministic]];
  if (!settings.labels) return { deterministic, rows };
  const human = await humanAgreement(
    settings.labels,
    [...p.hits, ...p.misses],
    [...verdicts.hits, ...verdicts.misses],
  );
  rows.push(['judge vs human', human]);
  const min = settings.minKappa;
  if (min === undefined || (human.kappa !== null && human.kappa >= min)) return { deterministic, rows };
  const kappa = human.kappa === null ? `n/a (${human.kappaReason ?? 'no items'})` : human.kappa.toFixed(4);
  return {
    deterministic,
    rows,
    refusal: `judge vs human kappa ${kappa} is below min_kappa ${min}: semantic matching refused`,
  };
}

/** The warnings a run gives, and the reasons precision is refused. */
function notes(
  settings: SemanticSettings,
  cacheName: string,
  { plan: p, consulted, warnings: env }: Answered,
  found: { unjudged: Candidate[]; rescued: { c: Candidate }[]; refusal?: string },
): { warnings: string[]; reasons: string[] } {
  const warnings = [...env];
  const reasons = found.refusal ? [found.refusal] : [];
  if (consulted.fresh.length)
    warnings.push(`${plural(consulted.fresh.length, 'new judgment')}: commit ${cacheName}`);
  const { unjudged, rescued } = found;
  if (unjudged.length) {
    const why = whyUnjudged(p.missKeys.flat().flatMap((k) => consulted.unjudged.get(k) ?? []));
    const fail = settings.unjudged === 'fail';
    if (fail) reasons.push(`${plural(unjudged.length, 'claim miss')} unjudged (unjudged: fail)`);
    warnings.push(
      `${plural(unjudged.length, 'claim miss')} unjudged (${why}): ${fail ? 'unjudged: fail' : 'kept as misses'}: ${listed(unjudged.map((c) => c.qid))}`,
    );
  }
  if (settings.requireCommitted && consulted.missing > 0)
    reasons.push(`${plural(consulted.missing, 'judgment')} not in ${cacheName} (require_committed)`);
  if (rescued.length)
    warnings.push(
      `${plural(rescued.length, 'judge-only rescue')}${found.refusal ? ' not applied' : ''} (no deterministic rule matched, the judge said SUPPORTED; review them, they carry the false-positive risk): ${listed(rescued.map((r) => r.c.qid))}`,
    );
  if (reasons.length) warnings.push(`precision is not computable: ${reasons.join('; ')}`);
  return { warnings, reasons };
}

/** Judge vs human over the items both rated; a label pinned to another claim is left out. */
async function humanAgreement(file: string, items: readonly Candidate[], verdicts: readonly ItemVerdict[]) {
  const labels = await readLabels(file);
  const pairs: RatedPair[] = [];
  items.forEach((c, i) => {
    const label = labels.get(c.qid);
    if (!label || verdicts[i] === 'UNJUDGED' || (label.claim !== undefined && label.claim !== c.claim))
      return;
    pairs.push([verdicts[i] === 'SUPPORTED', label.verdict === 'SUPPORTED']);
  });
  return agreement(pairs);
}

const RESCUES_SHOWN = 20;

function rescueTable(rescued: readonly { c: Candidate; fact: string }[], refused: boolean): Table {
  const shown = rescued.slice(0, RESCUES_SHOWN);
  const first = rescued.length > shown.length ? ` (first ${shown.length} of ${rescued.length})` : '';
  return {
    title: `claims: judge-only rescues${refused ? ', not applied (min_kappa)' : ''}${first}`,
    columns: ['id', 'gold fact', 'claim'],
    rows: shown.map(({ c, fact }) => [c.qid, fact, c.claim]),
  };
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : what.endsWith('s') ? 'es' : 's'}`;
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 10).join(', ') + (ids.length > 10 ? `, … (${ids.length - 10} more)` : '');
}

/** A suite's result with what semantic matching adds: counts, tables, warnings, and precision refused if it must. */
export function withSemantic(result: SuiteResult, semantic: SemanticOutcome): SuiteResult {
  return {
    ...result,
    metrics: semantic.refusal
      ? { ...result.metrics, precision: notComputable(semantic.refusal) }
      : result.metrics,
    counts: { ...result.counts, ...semantic.counts },
    tables: [...(result.tables ?? []), ...semantic.tables],
    warnings: [...result.warnings, ...semantic.warnings],
    judge: semantic.judge,
  };
}

/** Shards judge apart and one judgments file cannot be written by many jobs: semantic matching runs whole. */
export function refuseShards(claims: { match: string } | undefined): void {
  if (asksJudge(claims))
    throw new UsageError(
      `claims: {match: ${claims.match}} cannot be scored in shards (--partial, mode partial); expected one check over all traces`,
    );
}
