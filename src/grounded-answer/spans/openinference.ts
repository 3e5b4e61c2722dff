import { readFile } from 'node:fs/promises';
import { InputError, ioError } from '../../errors.js';
import { ascii, keyIs, scanMembers, skipArray, skipSpace, skipValue } from '../../io/json-scan.js';
import {
  describeJsonError,
  isBlank,
  parseJsonLine,
  readLineBatches,
  type JsonlRecord,
  type LineBatch,
} from '../../io/jsonl.js';
import { syntaxErrorAt } from '../../io/json-where.js';
import { checkUtf8 } from '../../io/utf8.js';
import type { LeanReader } from './otlp-lean.js';
import { otlpScanner } from './otlp-scan.js';
import type { SpanFacts } from './span-values.js';

import { isSpanDocument, spanFacts } from './span-facts.js';
import { assemble, type OpenInferenceOptions, type TraceRecord } from './trace-assembly.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

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

//
// This module reads the spans of files; span-facts.ts reads a span's facts from a parsed value, and
// trace-assembly.ts assembles a trace's record from its spans.

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

/** The attribute `openinference.qid` names, when it is neither input.value nor metadata.<key>. */
export const qidAttributeOf = (options: OpenInferenceOptions): string | undefined =>
  options.qid.startsWith('metadata.') || options.qid === OPENINFERENCE.input ? undefined : options.qid;

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
