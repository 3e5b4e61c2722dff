import { readFile } from 'node:fs/promises';
import { InputError, formatWhere, ioError, preview } from '../errors.js';
import { ascii, keyIs, MAX_DEPTH, scanMembers, skipArray, skipSpace, skipValue } from '../io/json-scan.js';
import {
  describeJsonError,
  isBlank,
  parseJsonLine,
  readLineBatches,
  type JsonlRecord,
  type LineBatch,
} from '../io/jsonl.js';
import { isoToMs } from '../io/iso-time.js';
import { syntaxErrorAt } from '../io/json-where.js';
import { checkUtf8 } from '../io/utf8.js';
import type { LeanReader } from './otlp-lean.js';
import {
  DOCUMENT_DIGITS,
  doubleValueOf,
  intValueOf,
  largerIndex,
  MAX_NANO_DIGITS,
  nanosToMs,
  otlpScanner,
  type SpanFacts,
} from './otlp-scan.js';

// Traces as OpenTelemetry spans under the OpenInference semantic conventions (Arize Phoenix, the LangChain and
// LlamaIndex instrumentors), assembled into one grounded-answer trace per traceId:
//
//   trace member     from
//   qid              `openinference.qid`: the root span's input.value (matched to a gold question by the
//                    caller), metadata.<key> (the root span's metadata), or another attribute of the root span
//   q                the root span's input.value
//   retrieved_ids    each document's id of every RETRIEVER span, spans by start time, N in order: where
//                    `openinference.document_id` says, retrieval.documents.N.document.id, or a key of
//                    retrieval.documents.N.document.metadata (LangChain writes no document.id)
//   answer_json      the answer: the root span's output.value, else the last LLM span's; JSON output as it is
//                    (its claim and citations), text as {claim: text, citations: []}
//   output           that output, parsed when it is JSON (for `fields:` to map, e.g. /output/sources)
//   metadata         the root span's metadata, parsed when it is JSON
//   ts               the root span's start, epoch seconds
//   latency_ms       the root span's end − start
//
// Spans are read from OTLP JSON (the file exporter's `{"resourceSpans": …}` a line, or such a document in a
// `.json` file) or as Phoenix exports them (a span object a line, or a `.json` array of them, attributes
// nested or flat). Other span kinds (EMBEDDING, TOOL, …) are read for nothing but the tree.

export interface OpenInferenceOptions {
  qid: string;
  /** `openinference.document_id`: `document.id` (the default) or `metadata.<key>`, nested keys dotted. */
  documentId?: string;
  /** `citation_markers:` is set: a text output's citations are its markers, not a list made for it. */
  markers?: boolean;
}

/** A trace record and the file its root span is in. */
export interface TraceRecord {
  file: string;
  line: number;
  value: unknown;
  /** The trace's id, for a record assembled from spans. */
  traceId?: string;
  /** The spans its members came from, for a record assembled from spans. */
  spans?: TraceSpans;
}

/**
 * Reads the spans of every file (one input: a trace's spans may be in several, as a file exporter rotates)
 * and yields one trace record per traceId, in the order of each trace's first span.
 */
export async function* readOpenInference(
  files: readonly string[],
  options: OpenInferenceOptions,
): AsyncGenerator<TraceRecord> {
  const traces = new Map<string, SpanFacts[]>();
  const add = (s: SpanFacts) => {
    const list = traces.get(s.traceId);
    if (list) list.push(s);
    else traces.set(s.traceId, [s]);
  };
  const qidAttribute = qidAttributeOf(options);
  for (const file of files) {
    if (isSpanDocument(file)) {
      for await (const { line, value, spanLines } of spanDocuments(file))
        for (const s of spanFacts(value, file, line, qidAttribute, spanLines, options.documentId)) add(s);
      continue;
    }
    const spans = lineSpans(qidAttribute, undefined, options.documentId);
    for await (const batch of readLineBatches(file)) {
      for (let i = 0; i < batch.length; i++) {
        if (batch.blank(i)) continue;
        for (const s of spans(batch.buf, afterBom(batch, i), batch.end(i), batch.line(i), file)) add(s);
      }
    }
  }
  for (const spans of traces.values()) yield assemble(spans, options);
}

/** Where line i's content starts: after the BOM when it starts the file (as LineBatch.text drops it). */
export function afterBom(batch: LineBatch, i: number): number {
  const b = batch.buf;
  const at = batch.start(i);
  return batch.offset(i) === 0 && b[at] === 0xef && b[at + 1] === 0xbb && b[at + 2] === 0xbf ? at + 3 : at;
}

/** A `.json` file holds one document of spans (OTLP or a Phoenix array), read whole; others hold a line each. */
export const isSpanDocument = (file: string): boolean => /\.json$/i.test(file);

/** The attribute `openinference.qid` names, when it is neither input.value nor metadata.<key>. */
export const qidAttributeOf = (options: OpenInferenceOptions): string | undefined =>
  options.qid.startsWith('metadata.') || options.qid === 'input.value' ? undefined : options.qid;

/**
 * Reads the spans of one line, b[start, end): on its bytes when the scanner is sure of it, else parsed. No
 * spans for a line that is blank once decoded (a BOM alone). With `lean`, values stand in for what they
 * would assemble to where they can (see otlp-lean.ts), and, given `base` (the place of b[0] in the file), the
 * spans say where the strings of outputs and documents are (see SpanFacts.outputAt). Documents are read
 * for their ids where `documentId` says (see OpenInferenceOptions).
 */
export function lineSpans(qidAttribute: string | undefined, lean?: LeanReader, documentId?: string) {
  const scan = otlpScanner(qidAttribute, lean, documentId);
  return (b: Buffer, start: number, end: number, line: number, file: string, base?: number): SpanFacts[] => {
    const fast = scan(b, start, end, line, file, base);
    if (fast) return fast;
    const text = b.toString('utf8', start, end);
    if (isBlank(text)) return [];
    return spanFacts(parseJsonLine(file, line, text), file, line, qidAttribute, undefined, documentId);
  };
}

/** The JSON values spans come in, with the line each starts on (and, in an OTLP document, each span's). */
async function* spanDocuments(file: string): AsyncGenerator<JsonlRecord & { spanLines?: number[] }> {
  const buf = await readFile(file).catch((err: unknown) => {
    throw ioError(file, err, 'an OpenInference JSON file');
  });
  checkUtf8(file, buf, 0, buf.length, 0);
  const text = buf.toString('utf8').replace(/^\ufeff/, '');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const { reason } = describeJsonError(err, text);
    throw new InputError(
      { file, ...syntaxErrorAt(text) },
      `invalid JSON: ${reason === 'unexpected end of line' ? 'unexpected end of the file' : reason}; expected OTLP JSON or an array of spans`,
    );
  }
  if (!Array.isArray(doc)) {
    yield { line: 1, value: doc, spanLines: otlpSpanLines(buf) };
    return;
  }
  // Each element's line, found on the bytes: an error then names the span's own line.
  const lines = elementLines(buf);
  for (let i = 0; i < doc.length; i++) yield { line: lines[i] ?? 1, value: doc[i] };
}

function elementLines(b: Buffer): number[] {
  const out: number[] = [];
  const lineAt = lineCounter(b);
  let i = skipSpace(b, b[0] === 0xef ? 3 : 0, b.length);
  if (b[i] !== 0x5b) return out;
  i = skipSpace(b, i + 1, b.length);
  while (i > 0 && i < b.length && b[i] !== 0x5d) {
    out.push(lineAt(i));
    i = skipValue(b, i, b.length, 1);
    if (i < 0) break;
    i = skipSpace(b, i, b.length);
    if (b[i] === 0x2c) i = skipSpace(b, i + 1, b.length);
  }
  return out;
}

/** A counter of lines up to a position, moving forward only. */
function lineCounter(b: Buffer): (pos: number) => number {
  let line = 1;
  let counted = 0;
  return (pos) => {
    for (; counted < pos; counted++) if (b[counted] === 0x0a) line++;
    return line;
  };
}

const RESOURCE_SPANS = ascii('resourceSpans');
const SCOPE_SPANS = ascii('scopeSpans');
const SPANS = ascii('spans');

/**
 * The line each span of an OTLP document starts on, in the order spansOf lists them, found on the bytes (a
 * pretty-printed export spans thousands of lines); undefined when the walk is unsure (a key written with
 * escapes or given twice, which JSON.parse reads otherwise): errors then name line 1.
 */
function otlpSpanLines(b: Buffer): number[] | undefined {
  const out: number[] = [];
  const lineAt = lineCounter(b);
  let unsure = false;
  // The elements of the array at member `key` of the object at i, each handed to `element`; other members skipped.
  const within = (i: number, depth: number, key: Uint8Array, element: (j: number) => number): number => {
    let seen = false;
    return scanMembers(b, i, b.length, null, (b, k, v, e) => {
      if (!keyIs(b, k, key)) return skipValue(b, v, e, depth);
      if (seen) unsure = true;
      seen = true;
      return b[v] === 0x5b ? skipArray(b, v, e, depth, (_, j) => element(j)) : skipValue(b, v, e, depth);
    });
  };
  const span = (j: number) => {
    out.push(lineAt(j));
    return skipValue(b, j, b.length, 4);
  };
  const scope = (j: number) => (b[j] === 0x7b ? within(j, 3, SPANS, span) : skipValue(b, j, b.length, 3));
  const resource = (j: number) =>
    b[j] === 0x7b ? within(j, 2, SCOPE_SPANS, scope) : skipValue(b, j, b.length, 2);
  const start = skipSpace(b, b[0] === 0xef ? 3 : 0, b.length);
  const end = within(start, 1, RESOURCE_SPANS, resource);
  return end > 0 && !unsure ? out : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The facts of every span in one parsed value (the slow path, and the reference the byte scanner is tested against). */
export function spanFacts(
  value: unknown,
  file: string,
  line: number,
  qidAttribute: string | undefined,
  /** Each span's own line, when known (see otlpSpanLines). */
  spanLines?: readonly number[],
  /** `openinference.document_id` (see OpenInferenceOptions). */
  documentId = 'document.id',
): SpanFacts[] {
  const spans = spansOf(value, file, line);
  const lines = spanLines?.length === spans.length ? spanLines : undefined;
  const idKey = documentId === 'document.id' ? DOCUMENT_KEY : DOCUMENT_METADATA_KEY;
  return spans.map((raw, k) => toFacts(raw, file, lines?.[k] ?? line, qidAttribute, idKey));
}

/** The spans of one value: an OTLP request's, or the value itself when it is one span. */
function spansOf(value: unknown, file: string, line: number): Record<string, unknown>[] {
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

/**
 * The attribute a document's id is read from, document.id or document.metadata (see
 * OpenInferenceOptions.documentId); its index as written (checked to be one, see toFacts).
 */
const DOCUMENT_KEY = /^retrieval\.documents\.(.*)\.document\.id$/s;
const DOCUMENT_METADATA_KEY = /^retrieval\.documents\.(.*)\.document\.metadata$/s;
/** Any other attribute of document N (N plainly decimal, as SpanFacts.documents holds it): it names N. */
const DOCUMENT_ATTRIBUTE = new RegExp(
  `^retrieval\\.documents\\.(0|[1-9]\\d{0,${DOCUMENT_DIGITS - 1}})\\.document\\.`,
);
/** The first document's metadata, read beside its id to name the keys an id may be in. */
const FIRST_METADATA = 'retrieval.documents.0.document.metadata';

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
  const kind = valueOf('openinference.span.kind') ?? raw.span_kind;
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
    ['input', 'input.value'],
    ['output', 'output.value'],
    ['metadata', 'metadata'],
    ['qid', qidAttribute],
  ] as const)
    if (key !== undefined && attrs.has(key)) facts[fact] = valueOf(key, fact === 'qid');
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
  if (isObject(v) && !(prefix === 'metadata' || prefix.endsWith('.document.metadata'))) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else if (Array.isArray(v) && v.some((x) => isObject(x))) {
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
function parsedOrText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** The spans a trace's record comes from (see assemble). */
export interface TraceSpans {
  /** The earliest span without a parent in the trace. */
  root: SpanFacts;
  /** Its RETRIEVER spans, by start time. */
  retrievers: SpanFacts[];
  /** The root, when it has an output, else the last LLM span that has one. */
  answering: SpanFacts | undefined;
}

/**
 * Picks the spans of a trace that make its record; undefined when it has no root (a cycle). A span whose
 * parent is not in the trace (not exported, or sampled out) may be its root; two spans without any parent,
 * or one span twice, are an error: the same trace id in two runs, or one export read twice, is not one trace;
 * so are spans whose parents lead round in a cycle beside the root: they descend from no root.
 */
export function traceSpans(spans: SpanFacts[]): TraceSpans | undefined {
  /** Each span's parent by its id; null once its line of parents is known to end (see checkAcyclic). */
  const ids = new Map<string, string | undefined | null>();
  let parentless: SpanFacts | undefined;
  for (const s of spans) {
    if (ids.has(s.spanId)) {
      const first = spans.find((x) => x.spanId === s.spanId)!;
      throw new InputError(
        { file: s.file, line: s.line },
        `trace ${preview(s.traceId)}: span ${preview(s.spanId)} again (first at ${formatWhere(first)}); expected each span once (one export read twice?)`,
      );
    }
    ids.set(s.spanId, s.parentId);
    if (s.parentId !== undefined) continue;
    if (parentless)
      throw new InputError(
        { file: s.file, line: s.line },
        `trace ${preview(s.traceId)}: a second span without a parent, ${preview(s.name ?? s.spanId)} (the first, ${preview(parentless.name ?? parentless.spanId)}, at ${formatWhere(parentless)}); expected one root span a trace (the same trace id in two runs?)`,
      );
    parentless = s;
  }
  const roots = spans.filter((s) => s.parentId === undefined || !ids.has(s.parentId));
  const byStart = (a: SpanFacts, b: SpanFacts) => a.start - b.start || a.line - b.line;
  const root = roots.sort(byStart)[0];
  if (!root) return undefined;
  checkAcyclic(spans, ids);
  const retrievers = spans.filter((x) => x.kind === 'RETRIEVER').sort(byStart);
  const answering =
    root.output !== undefined
      ? root
      : spans
          .filter((x) => x.kind === 'LLM' && x.output !== undefined)
          .sort((a, b) => a.end - b.end || a.line - b.line)
          .at(-1);
  return { root, retrievers, answering };
}

/** Throws when following the parents from a span comes back to one already on the way (a cycle). */
function checkAcyclic(spans: readonly SpanFacts[], parents: Map<string, string | undefined | null>): void {
  for (const s of spans) {
    // More steps than spans: the line of parents went round. Each line is walked to its end once.
    let id: string | undefined | null = s.spanId;
    for (let steps = 0; id && parents.get(id); steps++) {
      if (steps > spans.length) throw cycleAt(spans, parents, id);
      id = parents.get(id);
    }
    for (id = s.spanId; id && parents.get(id);) {
      const next: string | null | undefined = parents.get(id);
      parents.set(id, null);
      id = next;
    }
  }
}

/** The error for a cycle through span `id`: named by its span read first. */
function cycleAt(
  spans: readonly SpanFacts[],
  parents: ReadonlyMap<string, string | undefined | null>,
  id: string,
): InputError {
  const on = new Set<string>();
  for (let at: string = id; !on.has(at); at = parents.get(at)!) on.add(at);
  const s = spans.find((x) => on.has(x.spanId))!;
  return new InputError(
    { file: s.file, line: s.line },
    `trace ${preview(s.traceId)}: span ${preview(s.name ?? s.spanId)} is its own ancestor (its parentSpanId ${preview(s.parentId)} leads back to it: a cycle); expected the parents of every span to end at the root`,
  );
}

/** Visits the retrieved ids by their span and place: every RETRIEVER span's documents in order. */
export function forEachRetrieved(
  retrievers: readonly SpanFacts[],
  each: (s: SpanFacts, n: number) => void,
): void {
  for (const s of retrievers) for (let n = 0; n < s.documents.length; n++) each(s, n);
}

/**
 * The ids of a RETRIEVER span's documents, read where `documentId` says (see OpenInferenceOptions). Documents
 * are numbered from 0 without a gap and every document the span names has an id, a string (in metadata, an
 * integer too, as its decimal digits), as the canonical retrieved_ids are: a document left out, or ids read
 * where the exporter wrote none, would score recall and precision 0 without a word.
 */
function documentIds(s: SpanFacts, documentId: string): readonly unknown[] {
  const docs = s.documents;
  const fromMetadata = documentId !== 'document.id';
  // The canonical case, checked without making anything: every trace of a large export comes here.
  if (!fromMetadata && s.documentPast === undefined && (s.documentsNamed ?? 0) <= docs.length) {
    let n = 0;
    while (n < docs.length && typeof docs[n] === 'string') n++;
    if (n === docs.length) return docs;
  }
  const attribute = fromMetadata ? 'metadata' : 'id';
  const named = Math.max(docs.length, s.documentsNamed ?? 0);
  if (named === 0 && s.documentPast === undefined) return [];
  const where = { file: s.file, line: s.line };
  const span = () => `span ${preview(s.name ?? s.spanId)} (RETRIEVER)`;
  const last = s.documentPast ?? String(docs.length - 1);
  const gap = (n: number) =>
    new InputError(
      where,
      `retriever span ${preview(s.name ?? s.spanId)} has no retrieval.documents.${n}.document.${attribute}, but one numbered ${last}; expected documents numbered from 0 without a gap`,
    );
  const path = fromMetadata ? documentId.split('.').slice(1) : [];
  const idOf = (n: number): unknown => (fromMetadata ? keyAt(parsedOrText(docs[n]), path) : docs[n]);
  // Without an id where it looks for one, no document has: the error says where they may be.
  let any = !fromMetadata && docs.length > 0;
  for (let n = 0; n < docs.length && !any; n++) any = n in docs && idOf(n) !== undefined;
  if (!any && s.documentPast === undefined) {
    const first = fromMetadata ? docs[0] : s.firstMetadata;
    const hint = metadataKeys(first);
    // Set to a metadata key, the documents may carry document.id all along (openinference-core writes it).
    const orDefault = fromMetadata
      ? '; or leave openinference.document_id unset if they carry document.id'
      : '';
    throw new InputError(where, `${span()}: its documents have no ${documentId}; ${hint}${orDefault}`);
  }
  const ids: string[] = [];
  for (let n = 0; n < docs.length; n++) {
    if (!(n in docs)) throw gap(n);
    const id = idOf(n);
    if (typeof id === 'string') {
      ids.push(id);
      continue;
    }
    if (!fromMetadata)
      throw new InputError(
        where,
        `retriever span ${preview(s.name ?? s.spanId)} has retrieval.documents.${n}.document.id ${preview(id)}; expected a string`,
      );
    if (id === undefined) {
      const keys = describeKeys(parsedOrText(docs[n]));
      throw new InputError(
        where,
        `${span()}: its document ${n} has no ${documentId} (its document.metadata ${keys ? `has ${keys}` : `is ${preview(docs[n])}`}); expected every document's id there (see openinference.document_id)`,
      );
    }
    // A JSON number past 2^53 was rounded when parsed: another document's id, maybe.
    if (typeof id === 'number' && Number.isSafeInteger(id)) ids.push(String(id));
    else
      throw new InputError(
        where,
        `${span()}: its document ${n} has ${documentId} ${preview(id)}; expected a string, or an integer of at most 2^53 (read as its decimal digits)`,
      );
  }
  if (s.documentPast !== undefined) throw gap(docs.length);
  if (named > docs.length)
    throw new InputError(
      where,
      `${span()}: its document ${docs.length} has no ${fromMetadata ? 'document.metadata' : 'document.id'}, though the documents before it have; expected every document's id (see openinference.document_id)`,
    );
  return ids;
}

/** The value at `path` in a JSON object (own keys only); undefined where a key is missing. */
function keyAt(v: unknown, path: readonly string[]): unknown {
  for (const key of path) {
    if (!isObject(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/** At most this many of a metadata's keys are named in an error. */
const KEYS_NAMED = 10;

/** A metadata object's keys, listed for an error; undefined for anything else. */
function describeKeys(metadata: unknown): string | undefined {
  if (!isObject(metadata)) return undefined;
  const keys = Object.keys(metadata);
  if (keys.length === 0) return 'no keys';
  const more = keys.length > KEYS_NAMED ? `, … (${keys.length} in all)` : '';
  return keys.slice(0, KEYS_NAMED).join(', ') + more;
}

/**
 * What the first document's metadata (as written) holds, and the openinference.document_id that would read
 * its ids: its key `id`, else one named like an id (doc_id, chunkId), when it holds a string or an integer.
 */
function metadataKeys(raw: unknown): string {
  const expected =
    'expected retrieval.documents.N.document.id, or openinference.document_id: metadata.<key> naming the key of document.metadata that holds each document’s id';
  if (raw === undefined) return `its first document has no document.metadata either; ${expected}`;
  const metadata = parsedOrText(raw);
  if (!isObject(metadata)) return `its document.metadata is ${preview(raw)}, not a JSON object; ${expected}`;
  if (Object.keys(metadata).length === 0) return `its document.metadata has no keys; ${expected}`;
  const idLike = (k: string) => k === 'id' || /[_-]id$/i.test(k) || /[a-z]Id$/.test(k);
  const idValue = (v: unknown) => typeof v === 'string' || Number.isSafeInteger(v);
  const key =
    Object.keys(metadata).find((k) => k === 'id' && idValue(metadata[k])) ??
    Object.keys(metadata).find((k) => idLike(k) && idValue(metadata[k]));
  return key !== undefined && !key.includes('.')
    ? `its document.metadata has ${describeKeys(metadata)}: set openinference.document_id: metadata.${key}`
    : `its document.metadata has ${describeKeys(metadata)}: set openinference.document_id: metadata.<key>, the key that holds each document’s id`;
}

/**
 * One trace from all its spans, in the order they were read: its root (the earliest span without a parent
 * in the trace) gives the question, qid, time and latency, its RETRIEVER spans the retrieved ids, and the
 * root's or the last LLM span's output the answer.
 */
export function assemble(spans: SpanFacts[], options: OpenInferenceOptions): TraceRecord {
  const picked = traceSpans(spans);
  if (!picked)
    throw new InputError(
      { file: spans[0]!.file, line: spans[0]!.line },
      `trace ${preview(spans[0]!.traceId)} has no root span: every span's parentSpanId names another span of the trace (a cycle); expected one span without a parent`,
    );
  const { root, retrievers, answering } = picked;
  const where = { file: root.file, line: root.line };
  const traceId = root.traceId;
  const documentId = options.documentId ?? 'document.id';
  const retrieved: unknown[] = [];
  for (const s of retrievers) for (const id of documentIds(s, documentId)) retrieved.push(id);
  const record: Record<string, unknown> = { retrieved_ids: retrieved };
  if (answering) {
    const output = parsedOrText(answering.output);
    record.output = output;
    record.answer_json = isObject(output)
      ? output
      : { claim: output, ...(!options.markers && { citations: [] }) };
  }
  if (root.input !== undefined) record.q = root.input;
  const metadata = parsedOrText(root.metadata);
  if (metadata !== undefined) record.metadata = metadata;
  record.ts = root.start / 1000;
  if (root.end < root.start)
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} ends before it starts (${root.end - root.start} ms); expected endTimeUnixNano at or after startTimeUnixNano`,
    );
  record.latency_ms = root.end - root.start;

  const qid = options.qid;
  let id: unknown;
  if (qid === 'input.value') id = root.input;
  else if (qid.startsWith('metadata.')) {
    const key = qid.slice('metadata.'.length);
    id = isObject(metadata) && Object.hasOwn(metadata, key) ? metadata[key] : undefined;
  } else id = root.qid;
  // A JSON number past 2^53 was rounded when parsed: another question's id, maybe.
  if (typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id))
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} has ${qid} as a JSON number past 2^53 (read as ${id}, maybe not the digits written: JSON numbers do not hold such integers exactly); expected the id as a string (or an intValue's digits in a string)`,
    );
  if (typeof id === 'number') id = String(id);
  if (typeof id !== 'string' || id === '') {
    const found = id === undefined ? 'no' : id === '' ? 'an empty' : `a non-string (${preview(id)})`;
    throw new InputError(
      where,
      `trace ${preview(traceId)}: its root span ${preview(root.name ?? root.spanId)} has ${found} ${qid}; expected the question ${qid === 'input.value' ? 'text of a gold item' : 'id'} (see openinference.qid)`,
    );
  }
  record.qid = id;
  return { file: root.file, line: root.line, value: record, traceId, spans: picked };
}
