import { isSpanDocument } from '../../spans/span-facts.js';
import { SPAN_READS } from '../../spans/span-reads.js';
import { candidates, type OtlpWinners } from './otlp-pick.js';
import { readBack } from './otlp-read-back.js';
import { scanOtlpRuns, type OtlpScan } from './otlp-runs.js';
import { readAndJudge } from './otlp-winners.js';
import type { TraceSource } from '../source.js';

// OpenInference traces in OTLP lines, read like JSON Lines runs are: threads read chunks of lines and
// assemble and check the traces they find there (otlp-runs.ts); this thread offers the pick each trace, in
// the order a single pass over all spans meets them (otlp-pick.ts), and reads back only the winners' lines
// for the judge, with the helpers, each its stretch of the input (otlp-read-back.ts). Helpers stay for that,
// so the first of them digests gold between its scan and its share, while this thread picks (on this thread
// the digest would lengthen the scan: BENCHMARKS.md).

/**
 * A thread holds a chunk's spans until its end, where it assembles them: small chunks keep that in the young
 * generation. (A trace cut by a chunk's end is assembled again by the main thread: rare at this size.) The
 * size was chosen by the formats benchmark (BENCHMARKS.md).
 */
const OTLP_CHUNK_BYTES = 256 * 1024;

export const otlpSource: TraceSource<OtlpScan, OtlpWinners> = {
  name: 'otlp',
  explanation:
    'OTLP JSON Lines of OpenInference or GenAI spans (format: openinference or otel, no .json file)',
  formats: ['openinference', 'otel'],
  // A `.json` document of spans is read whole (see records-source.ts).
  accepts: (files, input) => input.format === 'openinference' && !files.some(isSpanDocument),
  byQuestion: (input) => input.qid === 'input.value',
  readsSpans: () => true,
  layout: { chunks: { linesUpTo: OTLP_CHUNK_BYTES }, heap: 'records' },
  scan: scanOtlpRuns,
  candidates,
  readBack,
  readBackOnHelper: readAndJudge,
  reads: () => SPAN_READS,
};
