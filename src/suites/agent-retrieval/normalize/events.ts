import { z } from 'zod';
import { TOOL_CATEGORIES, type EventSummary, type RetrievalEvent } from '../contract.js';
import { normalizePath } from '../paths.js';
import { classifyTool, inputSymbols, inputTargets, resultTargets, salientArguments } from '../tools.js';
import type { ToolCall } from './trace.js';
import { safeParse } from '../../../io/validate.js';

const zonedDateTime = z.iso.datetime({ offset: true });

/**
 * Retrieval events from a trace's calls, in trace order. `step_index` is the call's ordinal among all tool
 * calls, so calls that are not retrieval events (TodoWrite, …) leave gaps. Target files: those the input
 * names, then those the results name, normalized, each once per event.
 */
export function buildEvents(
  calls: readonly ToolCall[],
  groundTruthFiles: readonly string[],
): RetrievalEvent[] {
  const truth = groundTruthIndex(groundTruthFiles);
  const events: RetrievalEvent[] = [];
  calls.forEach((call, stepIndex) => {
    const tool = classifyTool(call.name);
    if (!tool) return;
    const targets = [
      ...new Set([
        ...inputTargets(call.name, call.input),
        ...call.outputs.flatMap((text) => resultTargets(call.name, text)),
      ]),
    ];
    const matched = [...new Set(targets.flatMap((t) => (truth.has(t) ? [truth.get(t)!] : [])))];
    const symbols = inputSymbols(call.name, call.input);
    events.push({
      step_index: stepIndex,
      timestamp:
        call.timestamp !== null && safeParse(zonedDateTime, call.timestamp).success ? call.timestamp : null,
      tool_name: call.name,
      tool_category: tool.category,
      is_mcp: tool.isMcp,
      arguments: salientArguments(call.input),
      target_files: targets,
      ...(symbols.length > 0 ? { target_symbols: symbols } : {}),
      hits_ground_truth: matched.length > 0,
      matched_ground_truth_files: matched,
      is_subagent: call.subagent,
      cumulative_tokens: call.cumulativeTokens,
      elapsed_seconds: call.elapsedSeconds,
    });
  });
  return events;
}

/** Normalized ground-truth path → the first ground-truth entry with it (as `matched_ground_truth_files` lists them). */
function groundTruthIndex(files: readonly string[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const file of files) {
    const p = normalizePath(file);
    if (p !== '' && !index.has(p)) index.set(p, file);
  }
  return index;
}

/** The document's `summary`, counted from its events. */
export function summarizeEvents(
  events: readonly RetrievalEvent[],
  groundTruthFiles: readonly string[],
): EventSummary {
  const truth = groundTruthIndex(groundTruthFiles);
  const files = new Set<string>();
  const hit = new Set<string>();
  let first: number | null = null;
  const byCategory = new Map<string, number>();
  for (const e of events) {
    byCategory.set(e.tool_category, (byCategory.get(e.tool_category) ?? 0) + 1);
    for (const f of e.target_files) {
      files.add(f);
      if (truth.has(f)) {
        hit.add(f);
        first ??= e.step_index;
      }
    }
  }
  const mcp = events.filter((e) => e.is_mcp).length;
  return {
    total_events: events.length,
    mcp_events: mcp,
    local_events: events.length - mcp,
    unique_files_accessed: files.size,
    ground_truth_files_hit: hit.size,
    ground_truth_files_total: truth.size,
    first_ground_truth_hit_step: first,
    events_by_category: Object.fromEntries(
      TOOL_CATEGORIES.filter((c) => byCategory.has(c)).map((c) => [c, byCategory.get(c)!]),
    ),
  };
}
