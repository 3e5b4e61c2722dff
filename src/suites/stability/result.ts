import { compareCodeUnits } from '../../io/files.js';
import { compileFieldMap, type CompiledFieldMap } from '../../io/field-map.js';
import { questionsOf } from '../../grounded-answer/questions.js';
import { itemVerdicts, type Offender, type ScoreContext, type SuiteResult } from '../types.js';
import type { GoldItem } from '../../grounded-answer/contract.js';
import { CHECKS } from './contract.js';
import type { StabilityRunsLoad } from './load.js';
import { scoreStability, tally, unstableQuestions, type QuestionScore } from './score.js';
import { stabilityMisreads, stabilityReaders } from './misread.js';
import { idMeter } from '../../grounded-answer/id-meter.js';
import { meetingWarning } from '../../grounded-answer/id-misread.js';
import { isRefusal, refusalRule } from '../../grounded-answer/refusal.js';
import type { StabilityConfig } from './config.js';

/** The suite's result from gold and the runs read: one function for a run and a merge, so they agree to the byte. */
export async function stabilityResult(
  config: StabilityConfig,
  ctx: Pick<ScoreContext, 'relative'>,
  gold: readonly GoldItem[],
  loaded: StabilityRunsLoad,
): Promise<SuiteResult> {
  const goldMap = compileFieldMap(config.fields?.gold);
  const scored = scoreStability(gold, loaded.runs, {
    refusalToken: config.refusal_token,
    ...(config.refusal && { refusal: config.refusal }),
    ...(config.citation_markers && { markers: config.citation_markers }),
    thresholds: config.thresholds,
    minRuns: config.min_runs,
  });

  const warnings: string[] = [];
  if (loaded.unknown.size > 0) {
    const ids = [...loaded.unknown.keys()].sort(compareCodeUnits);
    const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
    warnings.push(
      `${ids.length} run qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${listed(ids)}`,
    );
  }
  if (scored.counts.missing > 0) {
    warnings.push(`${scored.counts.missing} of ${scored.counts.gold} gold questions have no runs`);
  }
  // Never a silent zero (#44): runs that look read wrongly say which option or mapping reads them.
  const rule = refusalRule(config.refusal_token, config.refusal);
  const misread = stabilityMisreads(
    loaded.runs.values(),
    { total: loaded.lines, unknown: [...loaded.unknown.values()].reduce((a, b) => a + b, 0) },
    (r) => r.refused ?? isRefusal(r.claim, rule),
    stabilityReaders(config.fields?.runs, config.citation_markers),
  );
  warnings.push(...misread.map((m) => m.warning));
  // Ids that meet no gold id (docs/metrics.md): said first, as grounded-qa says it. Gold order, so that a
  // merge of partials, which rebuilds the same runs, samples the same ids.
  const meter = idMeter(gold);
  gold.forEach((g, row) => {
    for (const r of loaded.runs.get(g.qid) ?? []) meter.see(row, { retrieved_ids: r.retrieved });
  });
  const meeting = meter.meeting();
  const headline =
    meeting &&
    meetingWarning(meeting, stabilityReaders(config.fields?.runs, config.citation_markers).retrieved, {
      noun: 'run',
      searched: false,
    });
  if (headline) {
    warnings.unshift(headline);
    misread.unshift({
      warning: headline,
      metrics: ['stable_rate', 'unstable_questions', 'citation_hit_rate'],
    });
  }

  return {
    metrics: scored.metrics,
    counts: {
      ...scored.counts,
      run_lines: loaded.lines,
      superseded_runs: loaded.superseded,
      unknown_qids: loaded.unknown.size,
    },
    offenders: await offendersOf(unstableQuestions(scored.questions), ctx.relative, goldMap),
    warnings,
    ...(misread.length > 0 && { misread }),
    ...(headline && { headline }),
    items: itemVerdicts(
      scored.questions,
      (q) => q.gold.qid,
      (q) => q.labels.length === 0,
    ),
  };
}

/** The question text stays on disk until an offender needs it. */
async function offendersOf(
  questions: readonly QuestionScore[],
  relative: (file: string) => string,
  goldMap: CompiledFieldMap | undefined,
): Promise<Offender[]> {
  const texts = await questionsOf(
    questions.map((q) => q.gold),
    goldMap,
  );
  return questions.map((q, i) => toOffender(q, relative, texts[i]));
}

function toOffender(q: QuestionScore, relative: (file: string) => string, question: unknown): Offender {
  const fields: NonNullable<Offender['fields']> = {
    question: typeof question === 'string' ? question : null,
    runs: q.runs.length,
  };
  for (const check of CHECKS) fields[check] = q.values[check];
  if (q.runs.length > 0) {
    fields.claims = tally(q.runs.map((r) => r.claim));
    fields.citation_sets = tally(q.runs.map((r) => `[${r.citations.join(', ')}]`));
  }
  if (q.labels.includes('containment_rate')) fields.gold_claim_substr = q.gold.claimSubstrings;
  if (q.labels.includes('citation_hit_rate') || q.labels.includes('citation_stability')) {
    fields.gold_citations = q.gold.citations;
  }
  if (q.labels.includes('constraint_echo_consistency')) fields.constraints = q.gold.constraints;
  return {
    id: q.gold.qid,
    labels: q.labels,
    fields,
    source: { file: relative(q.gold.source.file), line: q.gold.source.line },
  };
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
