import { existsSync } from 'node:fs';
import { readLines } from '../../../io/jsonl.js';
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

/** Reads `agent/claude-code.txt`: Claude Code's stream-json output, one JSON object a line, streamed. */
export async function readTranscript(file: string): Promise<TraceFile> {
  if (!existsSync(file)) return { status: 'missing' };
  const reader = new TranscriptReader();
  let objects = 0;
  let skipped = 0;
  for await (const { text } of readLines(file)) {
    if (text.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      skipped++;
      continue;
    }
    if (isRecord(entry)) objects++;
    reader.push(entry);
  }
  if (objects === 0) {
    return { status: 'unparseable', reason: 'agent/claude-code.txt has no JSON object line' };
  }
  const trace = reader.trace();
  if (skipped > 0) {
    trace.problems.push(
      `agent/claude-code.txt: ${skipped} line${skipped === 1 ? ' is' : 's are'} not JSON (skipped)`,
    );
  }
  return { status: 'parsed', trace };
}

export function parseTranscript(entries: readonly unknown[]): ParsedTrace {
  const reader = new TranscriptReader();
  for (const entry of entries) reader.push(entry);
  return reader.trace();
}

/**
 * Tool calls of a stream-json transcript, in order: `tool_use` blocks of assistant messages, joined by id
 * with the `tool_result` blocks of user messages. A call made inside a subagent (a line with a
 * `parent_tool_use_id`) is marked as such. Tokens: each API message counts once (a message is split over
 * several lines that repeat its usage), as input + cache creation + cache read + output tokens; the
 * running total includes subagent messages, which consume tokens too. Only the results targets are read
 * from are kept, so a transcript full of file contents is read in little memory.
 */
class TranscriptReader {
  private readonly calls: ToolCall[] = [];
  private readonly byId = new Map<string, ToolCall>();
  private readonly usageById = new Map<string, number>();
  private tokens: number | null = null;
  private start: number | undefined;
  private model: string | undefined;

  push(entry: unknown): void {
    if (!isRecord(entry)) return;
    const at = epochMicros(entry.timestamp);
    if (this.start === undefined && at !== undefined) this.start = at;
    if (entry.type === 'system' && typeof entry.model === 'string') this.model ??= entry.model;
    const message = isRecord(entry.message) ? entry.message : undefined;

    if (entry.type === 'assistant' && message) {
      if (typeof message.model === 'string') this.model ??= message.model;
      const used = usageTokens(message.usage);
      if (used !== undefined) {
        const id = typeof message.id === 'string' ? message.id : undefined;
        const before = id === undefined ? 0 : (this.usageById.get(id) ?? 0);
        if (id !== undefined) this.usageById.set(id, used);
        this.tokens = (this.tokens ?? 0) + used - before;
      }
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (isRecord(block) && block.type === 'tool_use')
          this.addCall(entry, block.id, block.name, block.input);
      }
    } else if (entry.type === 'user' && message) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (isRecord(block) && block.type === 'tool_result') this.addResult(block.tool_use_id, block.content);
      }
    } else if (entry.type === 'tool_use') {
      this.addCall(entry, entry.id, entry.name ?? entry.tool_name, entry.input ?? entry.tool_input);
    } else if (entry.type === 'tool_result') {
      this.addResult(entry.tool_use_id, entry.content ?? entry.result);
    }
  }

  trace(): ParsedTrace {
    return { calls: this.calls, ...(this.model ? { model: this.model } : {}), problems: [] };
  }

  private addCall(entry: Record<string, unknown>, id: unknown, name: unknown, input: unknown): void {
    if (typeof name !== 'string' || name === '') return;
    const at = epochMicros(entry.timestamp);
    const call: ToolCall = {
      ...(typeof id === 'string' && id !== '' ? { id } : {}),
      name,
      input: toolInput(input),
      outputs: [],
      timestamp: at === undefined ? null : (entry.timestamp as string),
      elapsedSeconds: at === undefined || this.start === undefined ? null : secondsBetween(this.start, at),
      cumulativeTokens: this.tokens,
      subagent: typeof entry.parent_tool_use_id === 'string' && entry.parent_tool_use_id !== '',
    };
    this.calls.push(call);
    if (call.id) this.byId.set(call.id, call);
  }

  private addResult(id: unknown, content: unknown): void {
    const call = typeof id === 'string' ? this.byId.get(id) : undefined;
    if (call && readsResults(call.name)) call.outputs.push(resultText(content));
  }
}

/** Tokens one API message consumed; undefined when its usage has no count. */
function usageTokens(usage: unknown): number | undefined {
  if (!isRecord(usage)) return undefined;
  const parts = [
    usage.input_tokens,
    usage.cache_creation_input_tokens,
    usage.cache_read_input_tokens,
    usage.output_tokens,
  ].map(num);
  if (parts.every((p) => p === undefined)) return undefined;
  return parts.reduce<number>((a, b) => a + (b ?? 0), 0);
}
