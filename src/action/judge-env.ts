import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Report } from '../report/schema.js';
import { asksJudge } from '../claims/rules/index.js';

/** The judge's inputs and the variables judge-endpoint.ts reads them from: the trusted side, never gates.yaml. */
const JUDGE_INPUTS = [
  ['judge-base-url', 'GROUNDGATE_JUDGE_BASE_URL'],
  ['judge-api-key', 'GROUNDGATE_JUDGE_API_KEY'],
  ['judge-model', 'GROUNDGATE_JUDGE_MODEL'],
  ['judge-max-calls', 'GROUNDGATE_JUDGE_MAX_CALLS'],
  ['judge-concurrency', 'GROUNDGATE_JUDGE_CONCURRENCY'],
  ['judge-rpm', 'GROUNDGATE_JUDGE_RPM'],
  ['judge-max-tokens', 'GROUNDGATE_JUDGE_MAX_TOKENS'],
  ['judge-max-cost-usd', 'GROUNDGATE_JUDGE_MAX_COST_USD'],
] as const;

/** Sets the judge's variables from the inputs given; a variable the workflow set itself stays when its input is empty. */
export function judgeEnvFromInputs(getInput: (name: string) => string, env: NodeJS.ProcessEnv): void {
  for (const [input, variable] of JUDGE_INPUTS) {
    const value = getInput(input).trim();
    if (value) env[variable] = value;
  }
}

/**
 * The judgments file of every semantic suite the report scored (absolute), and how many judgments the run
 * added to them: what a later step commits or uploads.
 */
export function judgmentOutputs(report: Report, config: LoadedConfig): { files: string[]; count: number } {
  const files: string[] = [];
  let count = 0;
  for (const suite of config.suites) {
    const claims = (suite.config as { claims?: { match?: string; cache?: string } }).claims;
    const scored = report.suites[suite.name];
    if (!asksJudge(claims) || !claims.cache || !scored) continue;
    files.push(path.resolve(config.dir, claims.cache));
    count += scored.counts.new_judgments ?? 0;
  }
  return { files, count };
}
