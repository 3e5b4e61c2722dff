import { InputError } from '../../errors.js';
import { compareCodeUnits } from '../../io/files.js';
import { traceInput } from '../../grounded-answer/trace-input.js';
import type { ScoreContext } from '../types.js';
import type { LatencySample } from './contract.js';
import { loadCsv, loadTraceLatencies } from './load.js';
import type { LatencyConfig } from './config.js';

/** What a latency suite read: every sample, in input order, its configurations, and lines without a time. */
export interface LatencyRead {
  samples: LatencySample[];
  configurations: string[];
  /** Trace lines read, and those without latency_ms (traces only). */
  untimed?: { untimed: number; lines: number };
}

/** The samples of a suite's csv or traces (whichever it has), after checking it has one of them. */
export async function readLatencies(config: LatencyConfig, ctx: ScoreContext): Promise<LatencyRead> {
  const { csv, traces, gold } = ctx.inputs;
  const inputs = csv ?? traces ?? [];
  if (csv && traces) {
    throw new InputError(
      { file: inputs[0]! },
      `suite "${ctx.suite}": both csv and traces are given (one by --input); expected one of them`,
    );
  }
  if (csv && gold) {
    throw new InputError(
      { file: gold[0]! },
      `suite "${ctx.suite}": gold is given (by --input) with csv, which has no answers to score; expected traces with gold`,
    );
  }
  if (csv) {
    const samples = await loadCsv(csv);
    return {
      samples,
      configurations: [...new Set(samples.map((s) => s.configuration))].sort(compareCodeUnits),
    };
  }
  const loaded = await loadTraceLatencies(
    inputs,
    ctx.relative,
    traceInput({ ...config, fields: config.fields?.traces }),
  );
  return {
    samples: loaded.samples,
    configurations: inputs.map(ctx.relative),
    untimed: { untimed: loaded.untimed, lines: loaded.lines },
  };
}
