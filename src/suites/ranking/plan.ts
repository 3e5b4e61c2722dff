import type { ScoreContext } from '../types.js';
import type { RankingOptions } from './evaluate.js';
import type { RankingConfig } from './config.js';
import { measureRequest } from './metrics.js';

/** What a ranking suite computes: the measures (the offender measure among them) and the evaluation's options. */
export function planOf(config: RankingConfig, ctx: ScoreContext) {
  const measures = ctx.metrics.map((m) => measureRequest(m.name, config.k));
  const offenderName = config.offender_metric ?? Object.keys(config.gates)[0] ?? 'map';
  let offenderIndex = measures.findIndex((m) => m.name === offenderName);
  if (offenderIndex === -1) offenderIndex = measures.push(measureRequest(offenderName, config.k)) - 1;
  const options: RankingOptions = {
    qrels: ctx.inputs.qrels!,
    run: ctx.inputs.run!,
    qrelsFormat: config.qrels_format,
    runFormat: config.run_format,
    relevanceLevel: config.relevance_level,
    complete: config.complete,
    measures,
    offender: { index: offenderIndex, k: measures[offenderIndex]!.k },
  };
  return { measures, offenderIndex, options };
}
