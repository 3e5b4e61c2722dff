import type { SpanFacts } from '../../grounded-answer/spans/span-values.js';
import type { Stage } from './contract.js';

// A request's stage times read off its trace's spans, as a latency CSV's stage columns give them: the time the
// request spent in each stage of the pipeline.

/** The span kinds that time each stage (OpenInference's; a GenAI operation is read as one, see span-facts.ts). */
export const STAGE_KINDS: Readonly<Record<Stage, readonly string[]>> = {
  retrieval: ['RETRIEVER'],
  rerank: ['RERANKER'],
  llm: ['LLM'],
  guard: ['GUARDRAIL'],
};

/**
 * Each stage's milliseconds in one trace: the length of the union of its spans' [start, end] intervals, so that
 * spans of a stage run side by side, or one inside another, count their common time once, and a stage run
 * twice in a row counts both runs. A stage without a span is absent (it did not run), as an empty CSV cell is.
 */
export function spanStages(spans: readonly SpanFacts[]): Partial<Record<Stage, number>> {
  const out: Partial<Record<Stage, number>> = {};
  for (const [stage, kinds] of Object.entries(STAGE_KINDS) as [Stage, readonly string[]][]) {
    const intervals = spans
      .filter((s) => kinds.includes(s.kind))
      .map((s) => [s.start, Math.max(s.start, s.end)] as const)
      .sort((a, b) => a[0] - b[0]);
    if (intervals.length === 0) continue;
    let total = 0;
    let [from, to] = intervals[0]!;
    for (const [start, end] of intervals.slice(1)) {
      if (start > to) {
        total += to - from;
        from = start;
      }
      to = Math.max(to, end);
    }
    out[stage] = total + (to - from);
  }
  return out;
}
