import type { ToolCall } from './trace.js';

/**
 * Both traces as one call list (`trace_source: merged`). The trajectory is preferred for the calls it has
 * (name, arguments, timestamps); a call both have gets the transcript's results too (targets are the
 * union), its subagent flag and its running token total, which counts subagent messages the trajectory
 * leaves out (so the total stays monotonic across recovered calls). Calls only the transcript has (subagent calls, which the trajectory
 * leaves out) are recovered and placed right after the call the transcript had before them, so both
 * traces' orders are kept.
 */
export function mergeTraces(trajectory: readonly ToolCall[], transcript: readonly ToolCall[]): ToolCall[] {
  const inTrajectory = new Set(trajectory.flatMap((c) => (c.id ? [c.id] : [])));
  const fromTranscript = new Map(transcript.flatMap((c) => (c.id ? [[c.id, c] as const] : [])));
  const recovered = new Map<string | undefined, ToolCall[]>();
  let anchor: string | undefined;
  for (const call of transcript) {
    if (call.id && inTrajectory.has(call.id)) {
      anchor = call.id;
      continue;
    }
    const list = recovered.get(anchor) ?? [];
    list.push(call);
    recovered.set(anchor, list);
  }

  const merged: ToolCall[] = [...(recovered.get(undefined) ?? [])];
  for (const call of trajectory) {
    const other = call.id ? fromTranscript.get(call.id) : undefined;
    merged.push(other ? combine(call, other) : call);
    if (call.id) merged.push(...(recovered.get(call.id) ?? []));
  }
  return merged;
}

function combine(trajectory: ToolCall, transcript: ToolCall): ToolCall {
  return {
    ...trajectory,
    outputs: [...trajectory.outputs, ...transcript.outputs],
    timestamp: trajectory.timestamp ?? transcript.timestamp,
    elapsedSeconds: trajectory.elapsedSeconds ?? transcript.elapsedSeconds,
    cumulativeTokens: transcript.cumulativeTokens ?? trajectory.cumulativeTokens,
    subagent: trajectory.subagent || transcript.subagent,
  };
}
