import { existsSync } from 'node:fs';
import { epochMicros, secondsBetween } from '../time.js';
import { readsResults } from '../tools.js';
import {
  isRecord,
  num,
  resultText,
  toolInput,
  type ParsedTrace,
  type ToolCall,
  type TraceFile,
} from './trace.js';
import { readText } from '../../../io/utf8.js';

/** Reads `agent/trajectory.json` (ATIF: `steps[].tool_calls[]`, `observation.results[]`, `metrics`). */
export function readTrajectory(file: string): TraceFile {
  if (!existsSync(file)) return { status: 'missing' };
  let value: unknown;
  try {
    value = JSON.parse(readText(file).replace(/^\uFEFF/, ''));
  } catch (err) {
    return { status: 'unparseable', reason: `agent/trajectory.json is not JSON (${(err as Error).message})` };
  }
  const trace = parseTrajectory(value);
  return trace
    ? { status: 'parsed', trace }
    : { status: 'unparseable', reason: 'agent/trajectory.json has no steps array' };
}

/**
 * Tool calls of an ATIF trajectory in step order, each with its step's timestamp and the results whose
 * `source_call_id` is its id. Elapsed time counts from the first step (the task prompt). Tokens: Claude
 * Code splits one API message into several steps (thinking, text, tool use) that repeat its metrics, so a
 * step whose metrics equal the previous metrics-bearing step's continues that message and adds nothing.
 * A message consumed `prompt_tokens` (input plus cache reads: `cached_tokens` is part of it) +
 * `completion_tokens` + `extra.cache_creation_input_tokens`, the same total as the transcript's usage.
 */
export function parseTrajectory(value: unknown): ParsedTrace | undefined {
  if (!isRecord(value) || !Array.isArray(value.steps)) return undefined;
  const steps = value.steps.filter(isRecord);
  const results = new Map<string, string[]>();
  for (const step of steps) {
    const observation = isRecord(step.observation) ? step.observation : undefined;
    for (const result of Array.isArray(observation?.results) ? observation.results : []) {
      if (!isRecord(result) || typeof result.source_call_id !== 'string') continue;
      const list = results.get(result.source_call_id) ?? [];
      list.push(resultText(result.content));
      results.set(result.source_call_id, list);
    }
  }

  const start = steps.map((s) => epochMicros(s.timestamp)).find((t) => t !== undefined);
  const calls: ToolCall[] = [];
  let tokens: number | null = null;
  let lastMetrics: string | undefined;
  for (const step of steps) {
    if (isRecord(step.metrics)) {
      const used = metricsTokens(step.metrics);
      const key = JSON.stringify(step.metrics);
      if (used !== undefined && key !== lastMetrics) tokens = (tokens ?? 0) + used;
      lastMetrics = key;
    }
    const at = epochMicros(step.timestamp);
    for (const call of Array.isArray(step.tool_calls) ? step.tool_calls : []) {
      if (!isRecord(call)) continue;
      const name = typeof call.function_name === 'string' ? call.function_name : call.name;
      if (typeof name !== 'string' || name === '') continue;
      const id =
        typeof call.tool_call_id === 'string' && call.tool_call_id !== '' ? call.tool_call_id : undefined;
      calls.push({
        ...(id ? { id } : {}),
        name,
        input: toolInput(call.arguments),
        outputs: id && readsResults(name) ? (results.get(id) ?? []) : [],
        timestamp: at === undefined ? null : (step.timestamp as string),
        elapsedSeconds: at === undefined || start === undefined ? null : secondsBetween(start, at),
        cumulativeTokens: tokens,
        subagent: false,
      });
    }
  }
  const agent = isRecord(value.agent) ? value.agent : undefined;
  const model = typeof agent?.model_name === 'string' ? agent.model_name : undefined;
  return { calls, ...(model ? { model } : {}), problems: [] };
}

function metricsTokens(metrics: Record<string, unknown>): number | undefined {
  const prompt = num(metrics.prompt_tokens);
  const completion = num(metrics.completion_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const extra = isRecord(metrics.extra) ? metrics.extra : {};
  return (prompt ?? 0) + (completion ?? 0) + (num(extra.cache_creation_input_tokens) ?? 0);
}
