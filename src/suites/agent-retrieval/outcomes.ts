import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import { parseJson } from '../../io/json-document.js';
import { isRecord, num } from './normalize/trace.js';
import { epochMicros, secondsBetween } from './time.js';
import { readText } from '../../io/utf8.js';

/** What a trial achieved and cost, from Harbor's result.json: the outcomes retrieval is correlated with. */
export interface Outcome {
  /** The verifier's reward. */
  reward: number | null;
  cost_usd: number | null;
  /** Agent execution time: agent_execution.finished_at − started_at (environment setup left out). */
  wall_seconds: number | null;
  /** n_input_tokens (cache reads and writes included) + n_output_tokens. */
  tokens: number | null;
  model: string | null;
  /** The agent harness and version (`claude-code 2.1.50`), when the result names a version. */
  harness: string | null;
}

export const OUTCOMES = ['reward', 'cost_usd', 'wall_seconds', 'tokens'] as const;
export type OutcomeName = (typeof OUTCOMES)[number];

const get = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (isRecord(v) ? v[k] : undefined), value);

/** A trial's result.json. */
export function outcomeOf(result: Record<string, unknown>): Outcome {
  const input = num(get(result, 'agent_result', 'n_input_tokens'));
  const output = num(get(result, 'agent_result', 'n_output_tokens'));
  const started = epochMicros(get(result, 'agent_execution', 'started_at'));
  const finished = epochMicros(get(result, 'agent_execution', 'finished_at'));
  const model = get(result, 'agent_info', 'model_info', 'name');
  const name = get(result, 'agent_info', 'name');
  const version = get(result, 'agent_info', 'version');
  return {
    reward: num(get(result, 'verifier_result', 'rewards', 'reward')) ?? null,
    cost_usd: num(get(result, 'agent_result', 'cost_usd')) ?? null,
    wall_seconds: started !== undefined && finished !== undefined ? secondsBetween(started, finished) : null,
    tokens: input !== undefined && output !== undefined ? input + output : null,
    model: typeof model === 'string' ? model : null,
    harness:
      typeof version === 'string' && version !== 'unknown'
        ? `${typeof name === 'string' ? `${name} ` : ''}${version}`
        : null,
  };
}

/**
 * Rewards a job's result.json lists by trial: `stats.evals.*.reward_stats.reward` maps each reward (as a
 * string) to the trials that got it. Its trials' own result.json files say more; this is what is left when
 * one is missing.
 */
export function jobRewards(result: unknown): Map<string, number> {
  const rewards = new Map<string, number>();
  const evals = get(result, 'stats', 'evals');
  if (!isRecord(evals)) return rewards;
  for (const key of Object.keys(evals).sort(compareCodeUnits)) {
    const byReward = get(evals[key], 'reward_stats', 'reward');
    if (!isRecord(byReward)) continue;
    for (const [value, trials] of Object.entries(byReward)) {
      const reward = Number(value);
      if (!Number.isFinite(reward) || !Array.isArray(trials)) continue;
      for (const trial of trials) if (typeof trial === 'string') rewards.set(trial, reward);
    }
  }
  return rewards;
}

export const EMPTY_OUTCOME: Outcome = {
  reward: null,
  cost_usd: null,
  wall_seconds: null,
  tokens: null,
  model: null,
  harness: null,
};

/**
 * Outcomes by trial name from result.json files (a glob of trial and job results): a trial's own file
 * first; a job file fills in the reward of trials that have none.
 */
export function loadOutcomes(files: readonly string[]): Map<string, Outcome> {
  return outcomesOf(files.map(outcomeFile));
}

/** What one result.json says: a trial's outcome, or a job's rewards by trial. */
export type OutcomeFile = { trial: string; outcome: Outcome } | { jobs: [string, number][] };

export function outcomeFile(file: string): OutcomeFile {
  const value = parseJson(readText(file).replace(/^\uFEFF/, ''), file, 'a Harbor result.json');
  if (!isRecord(value))
    throw new InputError({ file, line: 1 }, 'expected a JSON object (a Harbor result.json)');
  if (typeof value.trial_name === 'string') return { trial: value.trial_name, outcome: outcomeOf(value) };
  if (isRecord(value.stats)) return { jobs: [...jobRewards(value)] };
  throw new InputError(
    { file },
    'found neither "trial_name" (a trial result) nor "stats" (a job result); expected a Harbor result.json',
  );
}

/** Each trial's outcome from the result files in order: a later trial result wins; job rewards fill in. */
export function outcomesOf(files: readonly OutcomeFile[]): Map<string, Outcome> {
  const trials = new Map<string, Outcome>();
  const fromJobs = new Map<string, number>();
  for (const f of files) {
    if ('trial' in f) trials.set(f.trial, f.outcome);
    else for (const [trial, reward] of f.jobs) fromJobs.set(trial, reward);
  }
  for (const [trial, reward] of fromJobs) {
    const known = trials.get(trial);
    if (!known) trials.set(trial, { ...EMPTY_OUTCOME, reward });
    else if (known.reward === null) trials.set(trial, { ...known, reward });
  }
  return trials;
}
