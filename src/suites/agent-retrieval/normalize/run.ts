import path from 'node:path';
import type { EventDocument } from '../contract.js';
import { EMPTY_OUTCOME, jobRewards, outcomeOf, type Outcome } from '../outcomes.js';
import { discoverTrials, eventsPath } from './layout.js';
import { normalizeTrial, type NormalizeOptions } from './document.js';
import { readText } from '../../../io/utf8.js';

export interface NormalizedTask {
  doc: EventDocument;
  /** Where normalize writes it. */
  file: string;
  trialDir: string;
  outcome: Outcome;
  noGroundTruth?: string;
}

export interface NormalizedRun {
  tasks: NormalizedTask[];
  warnings: string[];
}

/**
 * Every trial of a run as a retrieval-event document, with its outcome. Documents go to
 * `{outDir}/{config_name}/{task_name}.retrieval_events.json`, `outDir` defaulting to
 * `{run}/retrieval_events`, the seed's parallel tree that leaves run artifacts alone.
 */
export async function normalizeRun(
  runDir: string,
  options: NormalizeOptions & { outDir?: string },
): Promise<NormalizedRun> {
  const { trials, warnings } = discoverTrials(runDir);
  const outDir = options.outDir ?? path.join(runDir, 'retrieval_events');
  const jobs = new Map<string, Map<string, number>>();
  const tasks: NormalizedTask[] = [];
  for (const trial of trials) {
    const { doc, noGroundTruth } = await normalizeTrial(trial, options);
    let outcome = trial.result ? outcomeOf(trial.result) : EMPTY_OUTCOME;
    if (outcome.reward === null && trial.jobResultFile) {
      let rewards = jobs.get(trial.jobResultFile);
      if (!rewards) {
        rewards = readJobRewards(trial.jobResultFile, warnings);
        jobs.set(trial.jobResultFile, rewards);
      }
      const reward = rewards.get(trial.trialName);
      if (reward !== undefined) outcome = { ...outcome, reward };
    }
    tasks.push({
      doc,
      file: eventsPath(outDir, trial.configName, trial.taskName),
      trialDir: trial.dir,
      outcome,
      ...(noGroundTruth ? { noGroundTruth } : {}),
    });
  }
  return { tasks, warnings };
}

function readJobRewards(file: string, warnings: string[]): Map<string, number> {
  try {
    return jobRewards(JSON.parse(readText(file).replace(/^\uFEFF/, '')));
  } catch {
    warnings.push(`${file}: not valid JSON; its rewards are not used`);
    return new Map();
  }
}
