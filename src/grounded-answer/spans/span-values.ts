// What assembling reads of a span, and OTLP JSON's encodings of its values (times in nanoseconds, int64s
// and doubles in strings, documents by index), as both readers of spans decode them: the byte scanner
// (otlp-scan.ts) and the parsed-value reader (span-facts.ts).

/** What assembling reads of one span (see openinference.ts). */
export interface SpanFacts {
  traceId: string;
  spanId: string;
  parentId: string | undefined;
  name: string | undefined;
  /** openinference.span.kind, upper case; '' when absent. */
  kind: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  input?: unknown;
  output?: unknown;
  metadata?: unknown;
  /** The attribute holding the qid, when it is neither input.value nor metadata.<key>. */
  qid?: unknown;
  /** Read by the GenAI conventions (see vocabularies/genai.ts), not OpenInference's. */
  genai?: true;
  /**
   * A model call's token counts and model as written (checked where they are summed, see cost/usage.ts):
   * OpenInference's llm.token_count.prompt / .completion / .prompt_details.cache_read and llm.model_name,
   * GenAI's gen_ai.usage.input_tokens / output_tokens / cache_read.input_tokens and gen_ai.response.model (else
   * gen_ai.request.model).
   */
  tokensIn?: unknown;
  tokensOut?: unknown;
  tokensCached?: unknown;
  model?: unknown;
  /** A GenAI retrieval's gen_ai.retrieval.query.text: the question, when the root has no input. */
  query?: string;
  /**
   * By N, for N of at most DOCUMENT_DIGITS digits, the attribute documents' ids are read from (see
   * OpenInferenceOptions.documentId): retrieval.documents.N.document.id, or its document.metadata.
   */
  documents: unknown[];
  /**
   * 1 + the largest N of any other retrieval.documents.N.document.* attribute (N plainly decimal, of at most
   * DOCUMENT_DIGITS digits), when there is one: document N is there, and must have an id.
   */
  documentsNamed?: number;
  /** The first document's document.metadata, when ids are read from document.id (for an error to name its keys). */
  firstMetadata?: unknown;
  /**
   * The largest N of more digits (as written), when a key names one: such a span cannot number its
   * documents without a gap (see documentIds in openinference.ts).
   */
  documentPast?: string;
  /**
   * Read leanly (see otlp-lean.ts), where the JSON strings of the output and of document N are in the file,
   * when they are plain stringValues: outputAt and outputLength; documentsAt[2N] and [2N + 1].
   */
  outputAt?: number;
  outputLength?: number;
  documentsAt?: number[];
  line: number;
  file: string;
}

/**
 * Nanoseconds are at most 19 digits: any time before 2286 (OTLP's fixed64 would reach 2554; no tracer writes
 * a time that late, and a 20-digit one is more likely a unit or a field mixed up).
 */
export const MAX_NANO_DIGITS = 19;

/**
 * Epoch milliseconds from OTLP's nanoseconds: decimal digits in a string (as OTLP JSON writes a fixed64) or a
 * JSON integer, at least 0 and at most MAX_NANO_DIGITS digits; undefined for anything else.
 */
export function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'string')
    return v.length <= MAX_NANO_DIGITS && /^\d+$/.test(v)
      ? Number(v.slice(0, -6) || '0') + Number(v.slice(-6)) / 1e6
      : undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 10 ** MAX_NANO_DIGITS) return v / 1e6;
  return undefined;
}

/** An int64's digits, leading zeros apart, and the largest it may have. */
const INT_TEXT = /^(-?)0*(\d{1,19})$/;
const INT64_MAX = '9223372036854775807';
const INT64_MIN = '9223372036854775808';

/**
 * An OTLP intValue: a JSON integer, or an int64's decimal digits in a string, as OTLP JSON writes one; with
 * `asText`, a string's value as its digits (exact: 9007199254740993 is no double), else as a number.
 * Undefined for anything else.
 */
export function intValueOf(v: unknown, asText: boolean): number | string | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  const m = typeof v === 'string' ? INT_TEXT.exec(v) : null;
  if (!m) return undefined;
  const [, minus, digits] = m as unknown as [string, string, string];
  if (digits.length === 19 && digits > (minus ? INT64_MIN : INT64_MAX)) return undefined;
  const text = minus && digits !== '0' ? `-${digits}` : digits;
  return asText ? text : Number(text);
}

/** A number in a string, as protobuf's JSON writes a double (NaN and the infinities by name). */
const DOUBLE_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^-?Infinity$|^NaN$/;

/** An OTLP doubleValue: a JSON number, or one in a string; undefined for anything else. */
export function doubleValueOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  return typeof v === 'string' && DOUBLE_TEXT.test(v) ? Number(v) : undefined;
}

/**
 * retrieval.documents.N is held by N when N has at most this many digits; a larger N is noted as
 * SpanFacts.documentPast (a span of a billion documents, each numbered, would not fit in a line).
 */
export const DOCUMENT_DIGITS = 9;

/** The larger of two indexes given as digits without leading zeros (either may be absent). */
export const largerIndex = (a: string | undefined, b: string): string =>
  a === undefined || b.length > a.length || (b.length === a.length && b > a) ? b : a;
