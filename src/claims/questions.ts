import { claimMissed, REFUSED } from '../grounded-answer/verdict-flags.js';
import type { ScoreContext } from '../suites/types.js';
import { describer, type JudgedSuite } from '../suites/grounded-qa/judged.js';
import { InputError } from '../errors.js';
import { priceOf, type Price, type Pricing } from '../cost/pricing.js';
import { askJudge } from './ask-judge.js';
import { NO_SPEND, type JudgeSpend } from './judge-spend.js';
import { judgeEndpoint, judgeModel, type JudgeEndpoint } from './judge-endpoint.js';
import { JUDGE_PROMPT, type Verdict } from './judge-prompt.js';
import { modelsOf, readJudgments, writeJudgments, type Judgment } from './judgments-cache.js';
import { asksOf, sampleHits, type Ask, type Candidate } from './rescue.js';

/** The items the judge is asked about and their asks. */
export interface Plan {
  misses: Candidate[];
  hits: Candidate[];
  missKeys: string[][];
  hitKeys: string[][];
  asks: Ask[];
}

/** Asks no model could be given for: every miss unjudged, for this reason. */
export const NO_MODEL = 'GROUNDGATE_JUDGE_MODEL is not set';
const NO_KEY: Unjudged = { reason: 'no key', detail: 'no GROUNDGATE_JUDGE_API_KEY' };

/** Why an ask has no verdict: a kind (askJudge's reasons, `no key`, `no model`) and one line saying what happened. */
export interface Unjudged {
  reason: string;
  detail: string;
}

/** Why some asks have no verdict, in a few words: each kind once, with its first detail (asks in key order). */
export function whyUnjudged(all: Iterable<Unjudged>): string {
  const first = new Map<string, string>();
  for (const u of all) if (!first.has(u.reason)) first.set(u.reason, u.detail);
  return [...first.keys()]
    .sort()
    .map((reason) => first.get(reason)!)
    .join('; ');
}

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
export interface Consulted {
  cache: Map<string, Judgment>;
  /** Asks the cache lacked. */
  missing: number;
  fresh: Judgment[];
  /** Asks left without a verdict, and why. */
  unjudged: Map<string, Unjudged>;
  /** What asking the endpoint spent (nothing when the cache answered every ask, or there was no endpoint). */
  spend: JudgeSpend;
}

async function consult(
  file: string,
  cache: Map<string, Judgment>,
  asks: readonly Ask[],
  endpoint: JudgeEndpoint | undefined,
  price: Price | undefined,
  now: (() => Date) | undefined,
): Promise<Consulted> {
  const missing = asks.filter((a) => !cache.has(a.key));
  const unjudged = new Map<string, Unjudged>();
  if (missing.length === 0) return { cache, missing: 0, fresh: [], unjudged, spend: NO_SPEND };
  if (!endpoint) {
    for (const a of missing) unjudged.set(a.key, NO_KEY);
    return { cache, missing: missing.length, fresh: [], unjudged, spend: NO_SPEND };
  }
  if (endpoint.maxCostUsd !== undefined && !price) throw noPriceForCostBudget(endpoint.model);
  const answer = await askJudge(endpoint, missing, now, price);
  for (const u of answer.unjudged)
    unjudged.set(u.key, { reason: u.reason, detail: `${u.reason}: ${u.detail}` });
  for (const j of answer.judged) cache.set(j.key, j);
  if (answer.judged.length) await writeJudgments(file, cache.values());
  return { cache, missing: missing.length, fresh: answer.judged, unjudged, spend: answer.spend };
}

/** A cost budget cannot be held to without the judge model's price: refused before anything is sent. */
export function noPriceForCostBudget(model: string): InputError {
  return new InputError(
    undefined,
    `GROUNDGATE_JUDGE_MAX_COST_USD is set, but claims.pricing has no price for ${model}; expected its price (USD per million tokens) in claims.pricing, or GROUNDGATE_JUDGE_MAX_TOKENS instead`,
  );
}

/** A run's questions and their answers, with what the environment warned of. */
export interface Answered {
  /** The model the questions are asked of, when there is one. */
  model?: string;
  plan: Plan;
  consulted: Consulted;
  /** The verdict the file (with this run's answers) holds for an ask; none without a model. */
  verdictOf(key: string): Verdict | undefined;
  warnings: string[];
}

/**
 * The model whose judgments a run uses: GROUNDGATE_JUDGE_MODEL, else the one model the judgments file
 * records (so a run without the judge's environment reads what CI recorded). A file recording none (written
 * before `model` was) or several names no model: the run says why. A file recording only other models than
 * the variable's is a warning: every question is asked (or unjudged) anew.
 */
export function runModel(
  envModel: string | undefined,
  cache: ReadonlyMap<string, Judgment>,
  cacheName: string,
): { model?: string; why?: string; warnings: string[] } {
  const recorded = modelsOf(cache.values());
  const named = recorded.slice(0, 3).join(', ') + (recorded.length > 3 ? ', …' : '');
  if (envModel !== undefined) {
    const elsewhere = recorded.length > 0 && !recorded.includes(envModel);
    const warning = `GROUNDGATE_JUDGE_MODEL=${envModel}, but ${cacheName} holds judgments of ${named} only: none of them answers a question under ${envModel}`;
    return { model: envModel, warnings: elsewhere ? [warning] : [] };
  }
  if (recorded.length === 1) return { model: recorded[0], warnings: [] };
  if (recorded.length === 0) return { why: NO_MODEL, warnings: [] };
  return {
    why: `${NO_MODEL} and ${cacheName} holds judgments of ${recorded.length} models (${named}); set it to one`,
    warnings: [],
  };
}

/**
 * Every question the judge is asked in a run of this suite (claim misses, and `hitsSample` hits), answered
 * from the judgments file, else by the endpoint in `env` when it has one (new answers are written to the
 * file). The model is GROUNDGATE_JUDGE_MODEL, else the file's (runModel); without one no key can be made:
 * every question is unjudged. `ask: false` (a dry run) asks no endpoint: what the file lacks is unjudged.
 */
export async function answerQuestions(
  judged: JudgedSuite,
  ctx: Pick<ScoreContext, 'relative'>,
  settings: { cache: string; hitsSample: number; pricing?: Pricing },
  env: NodeJS.ProcessEnv,
  now?: () => Date,
  ask = true,
): Promise<Answered> {
  const { model: envModel, warnings: modelWarnings } = judgeModel(env);
  const { endpoint, warnings: endpointWarnings } = ask ? judgeEndpoint(env) : { warnings: [] };
  const cache = await readJudgments(settings.cache);
  const chosen = runModel(envModel, cache, ctx.relative(settings.cache));
  const { model } = chosen;
  const p = await plan(judged, ctx, settings.hitsSample, model ?? '');
  const consulted = model
    ? await consult(settings.cache, cache, p.asks, endpoint, priceOf(settings.pricing, model), now)
    : {
        cache,
        missing: p.asks.length,
        fresh: [],
        unjudged: new Map(p.asks.map((a) => [a.key, { reason: 'no model', detail: chosen.why ?? NO_MODEL }])),
        spend: NO_SPEND,
      };
  return {
    ...(model ? { model } : {}),
    plan: p,
    consulted,
    verdictOf: (key) => (model ? consulted.cache.get(key)?.verdict : undefined),
    warnings: [...(endpoint ? endpointWarnings : modelWarnings), ...chosen.warnings],
  };
}
