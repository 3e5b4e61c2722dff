import { scoreOptionsOf } from '../../grounded-answer/config.js';
import { judgeRuns, loadGold, matchesByQuestion } from '../../grounded-answer/load.js';
import { aggregate, answerableOf } from '../../grounded-answer/score.js';
import { triage } from '../../grounded-answer/triage.js';
import { stageLine } from '../../report/triage.js';
import type { Accuracy } from './score.js';
import type { LatencyConfig } from './config.js';

/** Each trace file's accuracy as a configuration, and the trace qids gold does not have. */
export interface ConfigurationAccuracy {
  byConfiguration: Map<string, Accuracy>;
  unknown: Set<string>;
}

/** Scores each trace file as its own configuration with the grounded-qa definitions. */
export async function scoreConfigurations(
  traces: readonly string[],
  goldFiles: readonly string[],
  config: LatencyConfig,
  relative: (file: string) => string,
): Promise<ConfigurationAccuracy> {
  // Latency reads precision, chr and coverage: none is at a cutoff.
  const options = scoreOptionsOf(config, []);
  const { items: gold, questions } = await loadGold(goldFiles, {
    fields: config.fields?.gold,
    questions: matchesByQuestion(traces, options.traces),
  });
  const byConfiguration = new Map<string, Accuracy>();
  const unknown = new Set<string>();
  const answerable = answerableOf(gold);
  for (const file of traces) {
    const loaded = await judgeRuns([file], gold, options, questions);
    for (const qid of loaded.unknown.keys()) unknown.add(qid);
    const { metrics: m } = aggregate(answerable, loaded.table, options);
    byConfiguration.set(relative(file), {
      precision: m.precision!.value,
      chr: m.chr!.value,
      coverage: m.coverage!.value,
      triage: stageLine(triage(answerable, loaded.table)),
    });
  }
  return { byConfiguration, unknown };
}
