/** One tool call of an agent trace, as both trace formats are read into. */
export interface ToolCall {
  /** The call id (`toolu_…`) both formats carry; it joins them when merging. */
  id?: string;
  name: string;
  input: Record<string, unknown>;
  /** Text of the call's results (a merged call has the trajectory's and the transcript's). */
  outputs: string[];
  timestamp: string | null;
  elapsedSeconds: number | null;
  /** Tokens consumed up to and including the model message that made the call. */
  cumulativeTokens: number | null;
  subagent: boolean;
}

export interface ParsedTrace {
  calls: ToolCall[];
  model?: string;
  /** Why the trace may be incomplete (lines that were not JSON), for `degraded_reason`. */
  problems: string[];
}

/** A trace file: absent, present but unusable (why), or parsed. */
export type TraceFile =
  | { status: 'missing' }
  | { status: 'unparseable'; reason: string }
  | { status: 'parsed'; trace: ParsedTrace };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A tool input: an object, or a JSON string holding one (some harnesses store arguments as text). */
export function toolInput(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON: no arguments to read
    }
  }
  return {};
}

/** A tool result's text: a string, or the text blocks of a content array, one per line. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof block === 'string' ? block : isRecord(block) ? String(block.text ?? '') : ''))
      .join('\n');
  }
  return '';
}
