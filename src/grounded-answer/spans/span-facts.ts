import { InputError, preview } from '../../errors.js';
import { MAX_DEPTH } from '../../io/json-scan.js';
import { isoToMs } from '../../io/iso-time.js';
import { genaiDocuments, messagesText } from './genai-messages.js';
import { GENAI, GENAI_VALUES } from './vocabularies/genai.js';
import {
  DOCUMENT_DIGITS,
  doubleValueOf,
  intValueOf,
  largerIndex,
  MAX_NANO_DIGITS,
  nanosToMs,
  type SpanFacts,
} from './span-values.js';
import { isObject } from '../../io/record-shape.js';
import { TOKENS } from '../../cost/token-attributes.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// The facts of OpenInference spans read from a parsed JSON value (OTLP or Phoenix, see openinference.ts):
// the slow path beside the byte scanner (otlp-scan.ts), and the reference it is tested against.

/** A `.json` file holds one document of spans (OTLP or a Phoenix array), read whole; others hold a line each. */
export const isSpanDocument = (file: string): boolean => /\.json$/i.test(file);

/** The facts of every span in one parsed value (the slow path, and the reference the byte scanner is tested against). */
export function spanFacts(
  value: unknown,
  file: string,
  line: number,
  qidAttribute: string | undefined,
  /** Each span's own line, when known (see otlpSpanLines). */
  spanLines?: readonly number[],
  /** `openinference.document_id` (see OpenInferenceOptions). */
  documentId: string = OPENINFERENCE.documentId,
): SpanFacts[] {
  const spans = spansOf(value, file, line);
  const lines = spanLines?.length === spans.length ? spanLines : undefined;
  const idKey = documentId === OPENINFERENCE.documentId ? DOCUMENT_KEY : DOCUMENT_METADATA_KEY;
  return spans.map((raw, k) => toFacts(raw, file, lines?.[k] ?? line, qidAttribute, idKey));
}

/** The spans of one value: an OTLP request's, or the value itself when it is one span. */
export function spansOf(value: unknown, file: string, line: number): Record<string, unknown>[] {
  if (!isObject(value))
    throw new InputError(
      { file, line },
      `expected a span or an OTLP {"resourceSpans": …} object, found ${preview(value)}`,
    );
  if (!('resourceSpans' in value)) return [value];
  const out: Record<string, unknown>[] = [];
  for (const rs of objectsAt(value, 'resourceSpans', file, line))
    for (const ss of objectsAt(rs, 'scopeSpans', file, line))
      for (const span of objectsAt(ss, 'spans', file, line)) out.push(span);
  return out;
}

/** The objects of member `key` (absent: none), each checked to be an object. */
function objectsAt(
  parent: Record<string, unknown>,
  key: string,
  file: string,
  line: number,
): Record<string, unknown>[] {
  const v = parent[key];
  if (v === undefined) return [];
  if (!Array.isArray(v))
    throw new InputError({ file, line }, `${key}: expected an array, found ${preview(v)}`);
  for (const x of v)
    if (!isObject(x)) throw new InputError({ file, line }, `${key}: expected objects, found ${preview(x)}`);
  return v as Record<string, unknown>[];
}

/** A vocabulary name as a pattern matching it literally (its dots are dots). */
const literally = (name: string) => name.replaceAll('.', '\\.');
const DOCUMENTS = literally(OPENINFERENCE.documents);
/**
 * The attribute a document's id is read from, document.id or document.metadata (see
 * OpenInferenceOptions.documentId); its index as written (checked to be one, see toFacts).
 */
const DOCUMENT_KEY = new RegExp(`^${DOCUMENTS}\\.(.*)\\.${literally(OPENINFERENCE.documentId)}$`, 's');
const DOCUMENT_METADATA_KEY = new RegExp(
  `^${DOCUMENTS}\\.(.*)\\.${literally(OPENINFERENCE.documentMetadata)}$`,
  's',
);
/** Any other attribute of document N (N plainly decimal, as SpanFacts.documents holds it): it names N. */
const DOCUMENT_ATTRIBUTE = new RegExp(`^${DOCUMENTS}\\.(0|[1-9]\\d{0,${DOCUMENT_DIGITS - 1}})\\.document\\.`);
/** The first document's metadata, read beside its id to name the keys an id may be in. */
const FIRST_METADATA = `${OPENINFERENCE.documents}.0.${OPENINFERENCE.documentMetadata}`;

/** An OTLP span (traceId, attributes as key/value list) or a Phoenix one (context.trace_id, attributes nested). */
function toFacts(
  raw: Record<string, unknown>,
  file: string,
  line: number,
  qidAttribute: string | undefined,
  idKey: RegExp,
): SpanFacts {
  const context = isObject(raw.context) ? raw.context : undefined;
  const traceId = raw.traceId ?? context?.trace_id;
  const spanId = raw.spanId ?? context?.span_id;
  if (typeof traceId !== 'string' || traceId === '')
    throw new InputError(
      { file, line },
      `span ${preview(raw.name)} has no traceId; expected OTLP "traceId" or Phoenix "context.trace_id"`,
    );
  if (typeof spanId !== 'string' || spanId === '')
    throw new InputError(
      { file, line },
      `span ${preview(raw.name)} has no spanId; expected OTLP "spanId" or Phoenix "context.span_id"`,
    );
  const parent = raw.parentSpanId ?? raw.parent_id;
  const attrs = new Map<string, unknown>();
  const otlp = Array.isArray(raw.attributes);
  if (Array.isArray(raw.attributes)) {
    // Each AnyValue is read when assembling wants it (see valueOf): others may hold anything.
    for (const kv of raw.attributes) {
      if (!isObject(kv) || typeof kv.key !== 'string')
        throw new InputError(
          { file, line },
          `span ${preview(raw.name)}: an attribute is ${preview(kv)}; expected {"key": "…", "value": {…}}`,
        );
      // Two values of one document would keep one silently (the Map keeps the last): a retrieved id lost.
      if (attrs.has(kv.key) && idKey.test(kv.key))
        throw new InputError(
          { file, line },
          `span ${preview(raw.name)}: attribute ${preview(kv.key)} given twice; expected each document once`,
        );
      attrs.set(kv.key, kv.value);
    }
  } else if (isObject(raw.attributes)) {
    flatten(raw.attributes, '', attrs);
  } else if (raw.attributes !== undefined && raw.attributes !== null) {
    throw new InputError(
      { file, line },
      `span ${preview(raw.name)}: attributes is ${preview(raw.attributes)}; expected an array of {"key", "value"} (OTLP) or an object (Phoenix)`,
    );
  }
  const valueOf = (key: string, intsAsText = false): unknown =>
    otlp
      ? anyValue(attrs.get(key), intsAsText, (member, found) => {
          throw new InputError(
            { file, line },
            `span ${preview(raw.name)}: attribute ${preview(key)} has ${member} ${preview(found)}; expected ${member === 'intValue' ? 'an int64: an integer, or its decimal digits in a string (as OTLP JSON writes it)' : 'a number, or one in a string ("1.5", "NaN")'}`,
          );
        })
      : attrs.get(key);
  const kind = valueOf(OPENINFERENCE.kind) ?? raw.span_kind;
  // Without an OpenInference kind, a span of the GenAI conventions is read by them (see vocabularies/genai.ts).
  if (kind === undefined && attrs.has(GENAI.operation))
    return genaiFacts(
      {
        traceId,
        spanId,
        parentId: typeof parent === 'string' && parent !== '' ? parent : undefined,
        name: typeof raw.name === 'string' ? raw.name : undefined,
        kind: '',
        start: time(raw, 'start', file, line),
        end: time(raw, 'end', file, line),
        documents: [],
        genai: true,
        line,
        file,
      },
      attrs,
      valueOf,
      qidAttribute,
      idKey === DOCUMENT_KEY,
    );
  const documents: unknown[] = [];
  let documentPast: string | undefined;
  let named = 0;
  let firstMetadata: unknown;
  const idAttribute = idKey === DOCUMENT_KEY ? 'id' : 'metadata';
  for (const key of attrs.keys()) {
    const m = idKey.exec(key);
    if (!m) {
      const other = DOCUMENT_ATTRIBUTE.exec(key);
      if (other) named = Math.max(named, Number(other[1]) + 1);
      if (key === FIRST_METADATA) firstMetadata = valueOf(key);
      continue;
    }
    // `.+0.`, `.05.` or `.x.` were skipped, or read as another key's document: ids lost without a word.
    if (!/^(?:0|[1-9]\d*)$/.test(m[1]!))
      throw new InputError(
        { file, line },
        `span ${preview(raw.name)}: attribute ${preview(key)}; expected retrieval.documents.N.document.${idAttribute} with N a decimal index without leading zeros (0, 1, 2, …)`,
      );
    // Every index is read: one too large to hold (see DOCUMENT_DIGITS) is a gap to documentIds.
    if (m[1]!.length <= DOCUMENT_DIGITS) documents[Number(m[1])] = valueOf(key);
    else documentPast = largerIndex(documentPast, m[1]!);
  }
  const facts: SpanFacts = {
    traceId,
    spanId,
    parentId: typeof parent === 'string' && parent !== '' ? parent : undefined,
    name: typeof raw.name === 'string' ? raw.name : undefined,
    kind: typeof kind === 'string' ? kind.toUpperCase() : '',
    start: time(raw, 'start', file, line),
    end: time(raw, 'end', file, line),
    documents,
    line,
    file,
  };
  if (documentPast !== undefined) facts.documentPast = documentPast;
  if (named > 0) facts.documentsNamed = named;
  if (firstMetadata !== undefined) facts.firstMetadata = firstMetadata;
  for (const [fact, key] of [
    ['input', OPENINFERENCE.input],
    ['output', OPENINFERENCE.output],
    ['metadata', OPENINFERENCE.metadata],
    ['qid', qidAttribute],
    ['tokensIn', TOKENS.in],
    ['tokensOut', TOKENS.out],
    ['tokensCached', TOKENS.cached],
    ['model', TOKENS.model],
  ] as const)
    if (key !== undefined && attrs.has(key)) facts[fact] = valueOf(key, fact === 'qid');
  return facts;
}

/**
 * The facts of a span of the OpenTelemetry GenAI conventions: its operation read as a kind, a retrieval's
 * documents (each one's `id`, or with ids from metadata the document object, whose keys `metadata.<key>`
 * names), the text of its input and output messages, and its retrieval query.
 */
function genaiFacts(
  facts: SpanFacts,
  attrs: ReadonlyMap<string, unknown>,
  valueOf: (key: string, intsAsText?: boolean) => unknown,
  qidAttribute: string | undefined,
  idsAreIds: boolean,
): SpanFacts {
  const operation = valueOf(GENAI.operation);
  const kind = (typeof operation === 'string' && GENAI.kinds[operation]) || '';
  facts.kind = kind;
  const where = { file: facts.file, line: facts.line };
  if (kind === 'RETRIEVER' && attrs.has(GENAI.documents))
    facts.documents = genaiDocuments(valueOf(GENAI.documents), where, preview(facts.name)).map((d) =>
      idsAreIds ? d.id : d,
    );
  const query = valueOf(GENAI.query);
  if (typeof query === 'string') facts.query = query;
  const input = attrs.has(GENAI.input) ? messagesText(valueOf(GENAI.input), 'input') : undefined;
  if (input !== undefined) facts.input = input;
  const output = attrs.has(GENAI.output) ? messagesText(valueOf(GENAI.output), 'output') : undefined;
  if (output !== undefined) facts.output = output;
  if (qidAttribute !== undefined && attrs.has(qidAttribute)) facts.qid = valueOf(qidAttribute, true);
  if (attrs.has(GENAI.tokensIn)) facts.tokensIn = valueOf(GENAI.tokensIn);
  if (attrs.has(GENAI.tokensOut)) facts.tokensOut = valueOf(GENAI.tokensOut);
  if (attrs.has(GENAI.tokensCached)) facts.tokensCached = valueOf(GENAI.tokensCached);
  const model = attrs.has(GENAI.responseModel) ? GENAI.responseModel : GENAI.requestModel;
  if (attrs.has(model)) facts.model = valueOf(model);
  return facts;
}

/**
 * An OTLP AnyValue as a plain value; an intValue as its digits `intsAsText` (a qid), else as a number. `bad`
 * throws for an intValue or a doubleValue that is no number.
 */
function anyValue(
  v: unknown,
  intsAsText: boolean,
  bad: (member: string, found: unknown) => never,
  depth = 0,
): unknown {
  if (!isObject(v)) return v;
  // Deeper values are no attribute OpenInference defines: left out, rather than recursed into without end.
  if (depth > MAX_DEPTH) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return intValueOf(v.intValue, intsAsText) ?? bad('intValue', v.intValue);
  if ('doubleValue' in v) return doubleValueOf(v.doubleValue) ?? bad('doubleValue', v.doubleValue);
  if ('arrayValue' in v)
    return isObject(v.arrayValue) && Array.isArray(v.arrayValue.values)
      ? v.arrayValue.values.map((x) => anyValue(x, false, bad, depth + 1))
      : [];
  if ('kvlistValue' in v) {
    const out: Record<string, unknown> = {};
    const values = isObject(v.kvlistValue) && Array.isArray(v.kvlistValue.values) ? v.kvlistValue.values : [];
    for (const kv of values)
      if (isObject(kv) && typeof kv.key === 'string')
        Object.defineProperty(out, kv.key, {
          value: anyValue(kv.value, false, bad, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    return out;
  }
  return undefined;
}

/** Phoenix's nested attributes as OpenInference's flat keys: retrieval.documents.0.document.id. */
function flatten(v: unknown, prefix: string, out: Map<string, unknown>, depth = 0): void {
  if (depth > MAX_DEPTH) return; // no attribute OpenInference defines is this deep
  // Metadata is one value (JSON text in OTLP), the span's or a document's: its keys are no attributes.
  if (
    isObject(v) &&
    !(prefix === 'metadata' || prefix.endsWith('.document.metadata') || GENAI_VALUES.has(prefix))
  ) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else if (Array.isArray(v) && v.some((x) => isObject(x)) && !GENAI_VALUES.has(prefix)) {
    v.forEach((x, i) => flatten(x, `${prefix}.${i}`, out, depth + 1));
  } else {
    out.set(prefix, v);
  }
}

/**
 * A span's start or end in epoch milliseconds: OTLP's nanoseconds (see nanosToMs), or Phoenix's time, ISO-8601
 * (see isoToMs) or nanoseconds.
 */
function time(raw: Record<string, unknown>, which: 'start' | 'end', file: string, line: number): number {
  const otlpKey = `${which}TimeUnixNano`;
  const phoenixKey = `${which}_time`;
  const key = raw[otlpKey] !== undefined && raw[otlpKey] !== null ? otlpKey : phoenixKey;
  const v = raw[key];
  const ms = key === phoenixKey && typeof v === 'string' ? (isoToMs(v) ?? nanosToMs(v)) : nanosToMs(v);
  if (ms !== undefined) return ms;
  const nanos = `nanoseconds since 1970 as decimal digits (at most ${MAX_NANO_DIGITS}, in a string as OTLP JSON writes them)`;
  const iso = 'ISO-8601 (UTC when it has no offset)';
  throw new InputError(
    { file, line },
    v === undefined || v === null
      ? `span ${preview(raw.name)} has no ${which} time; expected OTLP ${otlpKey} (${nanos}) or Phoenix ${phoenixKey} (${iso})`
      : `span ${preview(raw.name)}: ${key} ${preview(v)}; expected ${key === otlpKey ? nanos : `${iso}, or ${nanos}`}`,
  );
}

/** A JSON text parsed, or the text itself. */
export function parsedOrText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}
