import {
  keyIs,
  scanLineObject,
  scanMembers,
  skipArray,
  skipNumber,
  skipString,
  skipValue,
  stringValue,
} from '../../io/json-scan.js';
import { attributeReader, type AttributeState } from './otlp-attributes.js';
import type { LeanReader } from './otlp-lean.js';
import { ascii, nanosToMsAt, UNKNOWN } from './otlp-values.js';
import { MAX_NANO_DIGITS, nanosToMs, type SpanFacts } from './span-values.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// The OTLP JSON a file exporter writes, `{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}` a line, read
// on its bytes for the few attributes OpenInference assembling needs: a span has dozens, and the documents'
// contents and embeddings are most of the bytes. JSON.parse of the whole line took three times as long.

const RESOURCE_SPANS = ascii('resourceSpans');
const SCOPE_SPANS = ascii('scopeSpans');
const SPANS = ascii('spans');
const TRACE_ID = ascii('traceId');
const SPAN_ID = ascii('spanId');
const PARENT_SPAN_ID = ascii('parentSpanId');
const NAME = ascii('name');
const START = ascii('startTimeUnixNano');
const END = ascii('endTimeUnixNano');
const ATTRIBUTES = ascii('attributes');
const PHOENIX_MEMBERS = ['context', 'parent_id', 'span_kind', 'start_time', 'end_time'].map(ascii);

interface State extends AttributeState {
  spans: SpanFacts[];
  line: number;
  file: string;
  /** The span being read has had its attributes. */
  attributes: boolean;
  /** Set when a member the reader collects appears twice in one object: JSON.parse keeps the last, this refuses. */
  repeated: boolean;
}

/**
 * The spans of the OTLP export at b[start, end), or undefined when the line is not one this reader is sure
 * of (another shape, escapes in keys, a span without ids or times): the caller then parses it.
 */
export function otlpScanner(
  qidAttribute: string | undefined,
  lean?: LeanReader,
  documentId: string = OPENINFERENCE.documentId,
) {
  const attribute = attributeReader(qidAttribute, lean, documentId);
  const fresh = (line: number, file: string): SpanFacts => ({
    traceId: '',
    spanId: '',
    parentId: undefined,
    name: undefined,
    kind: '',
    start: NaN,
    end: NaN,
    documents: [],
    line,
    file,
  });

  /** A time member, nanoseconds as a string (or a number), as epoch milliseconds (see nanosToMs); undefined if it is not. */
  const timeAt = (b: Buffer, v: number, end: number): number | undefined =>
    b[v] === 0x22
      ? end - v - 2 <= MAX_NANO_DIGITS
        ? nanosToMsAt(b, v + 1, end - 1)
        : undefined
      : nanosToMs(Number(b.toString('latin1', v, end)));

  const idMember = (b: Buffer, v: number, e: number, s: State, which: 0 | 1 | 2 | 3): number => {
    const end = skipString(b, v, e);
    if (end < 0) return -1;
    const text = stringValue(b, v, end);
    if (which === 0) s.span.traceId = text;
    else if (which === 1) s.span.spanId = text;
    else if (which === 2) s.span.parentId = text === '' ? undefined : text;
    else s.span.name = text;
    return end;
  };

  const timeMember = (b: Buffer, v: number, e: number, s: State, start: boolean): number => {
    const end = b[v] === 0x22 ? skipString(b, v, e) : skipNumber(b, v, e);
    if (end < 0) return -1;
    const ms = timeAt(b, v, end);
    if (ms === undefined) return -1;
    if (start) s.span.start = ms;
    else s.span.end = ms;
    return end;
  };

  const attributeElement = (b: Uint8Array, j: number, e: number) => attribute(b as Buffer, j, e, state);

  /** A member of a span, told by its key's first letter before its name is compared. */
  const spanMember = (b: Buffer, k: number, v: number, e: number, s: State): number => {
    switch (b[k + 1]) {
      case 0x61: // a
        if (keyIs(b, k, ATTRIBUTES)) {
          if (s.attributes) s.repeated = true;
          s.attributes = true;
          return b[v] === 0x5b ? skipArray(b, v, e, 4, attributeElement) : -1;
        }
        break;
      case 0x74: // t
        if (keyIs(b, k, TRACE_ID)) return idMember(b, v, e, s, 0);
        break;
      case 0x73: // s
        if (keyIs(b, k, SPAN_ID)) return idMember(b, v, e, s, 1);
        if (keyIs(b, k, START)) return timeMember(b, v, e, s, true);
        break;
      case 0x70: // p
        if (keyIs(b, k, PARENT_SPAN_ID)) return idMember(b, v, e, s, 2);
        break;
      case 0x6e: // n
        if (keyIs(b, k, NAME)) return idMember(b, v, e, s, 3);
        break;
      case 0x65: // e
        if (keyIs(b, k, END)) return timeMember(b, v, e, s, false);
        break;
    }
    // Phoenix's names for what OTLP calls otherwise: such a span is read by openinference.ts.
    for (const name of PHOENIX_MEMBERS) if (keyIs(b, k, name)) return -1;
    return skipValue(b, v, e, 4);
  };

  const span = (b: Buffer, i: number, e: number, s: State): number => {
    s.span = fresh(s.line, s.file);
    s.attributes = false;
    const close = scanMembers(b, i, e, s, spanMember);
    if (close < 0 || s.span.traceId === '' || s.span.spanId === '' || Number.isNaN(s.span.start + s.span.end))
      return -1;
    s.spans.push(s.span);
    return close;
  };

  const list =
    (key: Buffer, element: (b: Buffer, i: number, e: number, s: State) => number, depth: number) =>
    (b: Buffer, i: number, e: number, s: State): number => {
      let seen = false;
      return scanMembers(b, i, e, s, (b, k, v, e, s) => {
        if (!keyIs(b, k, key)) return skipValue(b, v, e, depth);
        if (seen) s.repeated = true;
        seen = true;
        return b[v] === 0x5b ? skipArray(b, v, e, depth, (b, j, e) => element(b as Buffer, j, e, s)) : -1;
      });
    };
  const scope = list(SPANS, span, 3);
  const resource = list(SCOPE_SPANS, scope, 2);
  const state: State = {
    spans: [],
    span: fresh(0, ''),
    file: '',
    base: NaN,
    keyAt: -1,
    keyEnd: -1,
    valueAt: -1,
    valueEnd: -1,
    stringEnd: UNKNOWN,
    attributes: false,
    line: 0,
    repeated: false,
  };
  let sawResourceSpans = false;
  const top = (b: Buffer, k: number, v: number, e: number, s: State): number => {
    if (!keyIs(b, k, RESOURCE_SPANS)) return skipValue(b, v, e, 1);
    if (sawResourceSpans) s.repeated = true;
    sawResourceSpans = true;
    return b[v] === 0x5b ? skipArray(b, v, e, 1, (b, j, e) => resource(b as Buffer, j, e, s)) : -1;
  };
  return (
    b: Buffer,
    start: number,
    end: number,
    line: number,
    file = '',
    base = NaN,
  ): SpanFacts[] | undefined => {
    state.spans = [];
    state.line = line;
    state.file = file;
    state.base = base;
    state.repeated = false;
    sawResourceSpans = false;
    const ok = scanLineObject(b, start, end, state, top);
    return ok && sawResourceSpans && !state.repeated ? state.spans : undefined;
  };
}
