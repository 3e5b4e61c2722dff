import { claimMissed, REFUSED, withJudgedHit } from '../grounded-answer/judge.js';
import { UsageError } from '../errors.js';
import type { Table } from '../report/schema.js';
import { notComputable } from '../metrics/spec.js';
import type { ScoreContext, SuiteResult } from '../suites/types.js';
import { describer, type JudgedSuite } from '../suites/grounded-qa/judged.js';
import { agreement, agreementTable, matrixTable, type RatedPair } from './agreement.js';
import { askJudge } from './ask-judge.js';
import { judgeEndpoint, judgeModel, type JudgeEndpoint } from './judge-endpoint.js';
import { JUDGE_PROMPT } from './judge-prompt.js';
import { readJudgments, writeJudgments, type Judgment } from './judgments-cache.js';
import { readLabels } from './labels-file.js';
import { asksOf, itemVerdict, sampleHits, type Ask, type Candidate, type ItemVerdict } from './rescue.js';

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
}

/** The `claims:` keys semantic matching reads, as gates.yaml gives them (config.ts declares them). */
export interface SemanticKeys {
  cache?: string;
  unjudged?: 'warn' | 'fail';
  require_committed?: boolean;
  judge_hits_sample?: number;
  labels?: string;
  min_kappa?: number;
}

/** A suite's semantic settings, its paths resolved in the workspace (`resolve` is ScoreContext.resolvePath). */
export function semanticSettings(keys: SemanticKeys, resolve: (key: string) => string): SemanticSettings {
  return {
    cache: resolve('claims.cache'),
    unjudged: keys.unjudged ?? 'warn',
    requireCommitted: keys.require_committed ?? false,
    hitsSample: keys.judge_hits_sample ?? 0,
    ...(keys.labels !== undefined ? { labels: resolve('claims.labels') } : {}),
    ...(keys.min_kappa !== undefined ? { minKappa: keys.min_kappa } : {}),
  };
}

/** What semantic matching adds to a suite's result; the table's flags are rescued in place. */
export interface SemanticOutcome {
  counts: Record<string, number>;
  tables: Table[];
  warnings: string[];
  /** Why precision, the one metric the claim rule decides, is not computable: set when the gate must fail. */
  refusal?: string;
}

/** The items the judge is asked about and their asks. */
interface Plan {
  misses: Candidate[];
  hits: Candidate[];
  missKeys: string[][];
  hitKeys: string[][];
  asks: Ask[];
}

/** Asks no model could be given for: every miss unjudged, for this reason. */
const NO_MODEL = 'GROUNDGATE_JUDGE_MODEL is not set';
const NO_KEY = 'no GROUNDGATE_JUDGE_API_KEY';

/**
 * The claim misses of answered, answerable items (and `hitsSample` of the hits), read again for their
 * question and claim, with one ask per gold fact under `model`.
 */
async function plan(
  judged: JudgedSuite,
  ctx: Pick<ScoreContext, 'relative'>,
  hitsSample: number,
  model: string,
): Promise<Plan> {
  const { table } = judged.loaded;
  const missRows: number[] = [];
  const hitRows: number[] = [];
  judged.gold.forEach((g, row) => {
    if (!g.answerable || !table.present[row] || table.flags[row]! & REFUSED) return;
    (claimMissed(table.flags[row]!) ? missRows : hitRows).push(row);
  });
  const read = [...missRows, ...(hitsSample > 0 ? hitRows : [])];
  const fields = read.length
    ? await describer(judged, ctx)(read.map((row) => judged.gold[row]!.qid))
    : new Map();
  const candidate = (row: number): Candidate => {
    const g = judged.gold[row]!;
    const f = fields.get(g.qid);
    return {
      row,
      qid: g.qid,
      question: typeof f?.question === 'string' ? f.question : '',
      claim: typeof f?.claim === 'string' ? f.claim : '',
      facts: g.claimSubstrings,
    };
  };
  const misses = missRows.map(candidate);
  const missAsks = asksOf(misses, model, JUDGE_PROMPT);
  let hits: Candidate[] = [];
  let hitKeys: string[][] = [];
  if (hitsSample > 0) {
    const all = hitRows.map(candidate);
    const allKeys = asksOf(all, model, JUDGE_PROMPT).keys;
    const picked = sampleHits(allKeys, hitsSample).sort((a, b) => a - b);
    hits = picked.map((i) => all[i]!);
    hitKeys = picked.map((i) => allKeys[i]!);
  }
  const asks = new Map(missAsks.asks.map((a) => [a.key, a]));
  hits.forEach((c, i) =>
    c.facts.forEach((fact, j) =>
      asks.set(hitKeys[i]![j]!, {
        key: hitKeys[i]![j]!,
        question: { question: c.question, claim: c.claim, fact },
      }),
    ),
  );
  return {
    misses,
    hits,
    missKeys: missAsks.keys,
    hitKeys,
    asks: [...asks.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

/** The cache and what this run added to it: asks it lacked are judged when there is an endpoint. */
interface Consulted {
  cache: Map<string, Judgment>;
  /** Asks the cache lacked. */
  missing: number;
  fresh: Judgment[];
  /** Asks left without a verdict, and why. */
  unjudged: Map<string, string>;
  requests: number;
}

async function consult(
  file: string,
  asks: readonly Ask[],
  endpoint: JudgeEndpoint | undefined,
  now: (() => Date) | undefined,
): Promise<Consulted> {
  const cache = await readJudgments(file);
  const missing = asks.filter((a) => !cache.has(a.key));
  const unjudged = new Map<string, string>();
  if (missing.length === 0) return { cache, missing: 0, fresh: [], unjudged, requests: 0 };
  if (!endpoint) {
    for (const a of missing) unjudged.set(a.key, NO_KEY);
    return { cache, missing: missing.length, fresh: [], unjudged, requests: 0 };
  }
  const answer = await askJudge(endpoint, missing, now);
  for (const u of answer.unjudged) unjudged.set(u.key, `${u.reason}: ${u.detail}`);
  for (const j of answer.judged) cache.set(j.key, j);
  if (answer.judged.length) await writeJudgments(file, cache.values());
  return { cache, missing: missing.length, fresh: answer.judged, unjudged, requests: answer.requests };
}

/**
 * The judge's pass over a judged suite (after the deterministic rules, before scoring): each claim miss the
 * judge supports becomes a hit (withJudgedHit), unless `min_kappa` refuses the judge; agreement with the
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
  const warnings: string[] = [];
  const { model, warnings: modelWarnings } = judgeModel(env);
  const { endpoint, warnings: endpointWarnings } = judgeEndpoint(env);
  warnings.push(...(endpoint ? endpointWarnings : modelWarnings));
  const p = await plan(judged, ctx, settings.hitsSample, model ?? '');
  const consulted = model
    ? await consult(settings.cache, p.asks, endpoint, now)
    : {
        cache: await readJudgments(settings.cache),
        missing: p.asks.length,
        fresh: [],
        unjudged: new Map(p.asks.map((a) => [a.key, NO_MODEL])),
        requests: 0,
      };
  const verdictOf = (key: string) => (model ? consulted.cache.get(key)?.verdict : undefined);
  const missVerdicts = p.missKeys.map((keys) => itemVerdict(keys, verdictOf));
  const hitVerdicts = p.hitKeys.map((keys) => itemVerdict(keys, verdictOf));

  const pairs: RatedPair[] = [
    ...hitVerdicts.flatMap((v) => (v === 'UNJUDGED' ? [] : [[true, v === 'SUPPORTED'] as const])),
    ...missVerdicts.flatMap((v) => (v === 'UNJUDGED' ? [] : [[false, v === 'SUPPORTED'] as const])),
  ];
  const deterministic = agreement(pairs);
  const raters: [string, ReturnType<typeof agreement>][] = [['deterministic vs judge', deterministic]];
  const reasons: string[] = [];
  let refused = false;
  if (settings.labels) {
    const human = await humanAgreement(
      settings.labels,
      [...p.hits, ...p.misses],
      [...hitVerdicts, ...missVerdicts],
    );
    raters.push(['judge vs human', human]);
    if (settings.minKappa !== undefined && !(human.kappa !== null && human.kappa >= settings.minKappa)) {
      refused = true;
      const kappa =
        human.kappa === null ? `n/a (${human.kappaReason ?? 'no items'})` : human.kappa.toFixed(4);
      reasons.push(
        `judge vs human kappa ${kappa} is below min_kappa ${settings.minKappa}: semantic matching refused`,
      );
    }
  }

  const { table } = judged.loaded;
  const rescued: { c: Candidate; fact: string }[] = [];
  p.misses.forEach((c, i) => {
    if (missVerdicts[i] !== 'SUPPORTED') return;
    const fact = c.facts[p.missKeys[i]!.findIndex((k) => verdictOf(k) === 'SUPPORTED')]!;
    rescued.push({ c, fact });
    if (!refused) table.flags[c.row] = withJudgedHit(table.flags[c.row]!);
  });

  const cacheName = ctx.relative(settings.cache);
  if (consulted.fresh.length)
    warnings.push(`${plural(consulted.fresh.length, 'new judgment')}: commit ${cacheName}`);
  const unjudged = p.misses.filter((_, i) => missVerdicts[i] === 'UNJUDGED');
  if (unjudged.length) {
    const why = [...new Set(p.missKeys.flat().flatMap((k) => consulted.unjudged.get(k) ?? []))].sort();
    const ids = listed(unjudged.map((c) => c.qid));
    if (settings.unjudged === 'fail')
      reasons.push(`${plural(unjudged.length, 'claim miss')} unjudged (unjudged: fail)`);
    warnings.push(
      `${plural(unjudged.length, 'claim miss')} unjudged (${why.join('; ')}): ${settings.unjudged === 'fail' ? 'unjudged: fail' : 'kept as misses'}: ${ids}`,
    );
  }
  if (settings.requireCommitted && consulted.missing > 0)
    reasons.push(`${plural(consulted.missing, 'judgment')} not in ${cacheName} (require_committed)`);
  if (rescued.length)
    warnings.push(
      `${plural(rescued.length, 'judge-only rescue')}${refused ? ' not applied' : ''} (no deterministic rule matched, the judge said SUPPORTED; review them, they carry the false-positive risk): ${listed(rescued.map((r) => r.c.qid))}`,
    );
  if (reasons.length) warnings.push(`precision is not computable: ${reasons.join('; ')}`);

  const tables = [matrixTable(deterministic), agreementTable(raters)];
  if (rescued.length) tables.push(rescueTable(rescued));
  return {
    counts: {
      judged_items: pairs.length,
      judge_rescues: refused ? 0 : rescued.length,
      unjudged_items: unjudged.length,
      new_judgments: consulted.fresh.length,
    },
    tables,
    warnings,
    ...(reasons.length ? { refusal: reasons.join('; ') } : {}),
  };
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

function rescueTable(rescued: readonly { c: Candidate; fact: string }[]): Table {
  const shown = rescued.slice(0, RESCUES_SHOWN);
  return {
    title: `claims: judge-only rescues${rescued.length > shown.length ? ` (first ${shown.length} of ${rescued.length})` : ''}`,
    columns: ['id', 'gold fact', 'claim'],
    rows: shown.map(({ c, fact }) => [c.qid, fact, c.claim]),
  };
}

/** What `groundgate judge` did for a suite. */
export interface Recorded {
  asks: number;
  /** Asks the file had already. */
  cached: number;
  fresh: number;
  unjudged: Map<string, string>;
  /** Lines dropped by prune. */
  pruned: number;
}

/**
 * Records the judgments a suite's run would ask for and the file lacks, without gating (`groundgate judge`);
 * `prune` drops the lines no ask of this run refers to.
 */
export async function recordJudgments(
  judged: JudgedSuite,
  settings: SemanticSettings,
  ctx: Pick<ScoreContext, 'relative'>,
  env: NodeJS.ProcessEnv,
  options: { prune: boolean; now?: () => Date },
): Promise<Recorded & { warnings: string[] }> {
  const { model, warnings: modelWarnings } = judgeModel(env);
  const { endpoint, warnings } = judgeEndpoint(env);
  if (!model) throw new UsageError(`${NO_MODEL}; expected the model whose judgments to record`);
  const p = await plan(judged, ctx, settings.hitsSample, model);
  const consulted = await consult(settings.cache, p.asks, endpoint, options.now);
  let pruned = 0;
  if (options.prune) {
    const used = new Set(p.asks.map((a) => a.key));
    const kept = [...consulted.cache.values()].filter((j) => used.has(j.key));
    pruned = consulted.cache.size - kept.length;
    if (pruned) await writeJudgments(settings.cache, kept);
  }
  return {
    asks: p.asks.length,
    cached: p.asks.length - consulted.missing,
    fresh: consulted.fresh.length,
    unjudged: consulted.unjudged,
    pruned,
    warnings: endpoint ? warnings : modelWarnings,
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
  };
}

/** Shards judge apart and one judgments file cannot be written by many jobs: semantic matching runs whole. */
export function refuseShards(claims: { match: string } | undefined): void {
  if (claims?.match === 'semantic')
    throw new UsageError(
      'claims: {match: semantic} cannot be scored in shards (--partial, mode partial); expected one check over all traces',
    );
}
