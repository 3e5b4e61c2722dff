import {
  hasEscape,
  keyIs,
  scanLineObject,
  scanMembers,
  skipArray,
  skipNumber,
  skipString,
  skipValue,
  stringValue,
} from '../io/json-scan.js';
import { DECODE, type LeanFact, type LeanReader } from './otlp-lean.js';
import {
  DOCUMENT_DIGITS,
  doubleValueOf,
  intValueOf,
  largerIndex,
  MAX_NANO_DIGITS,
  nanosToMs,
  type SpanFacts,
} from './span-values.js';

// The OTLP JSON a file exporter writes, `{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}` a line, read
// on its bytes for the few attributes OpenInference assembling needs: a span has dozens, and the documents'
// contents and embeddings are most of the bytes. JSON.parse of the whole line took three times as long.

const ascii = (s: string) => Buffer.from(s, 'latin1');
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
const KEY = ascii('key');
const VALUE = ascii('value');
const DOCS = ascii('retrieval.documents.');
const STRING_VALUE = ascii('stringValue');
const BOOL_VALUE = ascii('boolValue');
const INT_VALUE = ascii('intValue');
const DOUBLE_VALUE = ascii('doubleValue');
const REFUSED = Symbol('refused');
const ANY_VALUE_KEYS = [
  STRING_VALUE,
  BOOL_VALUE,
  INT_VALUE,
  DOUBLE_VALUE,
  ascii('arrayValue'),
  ascii('kvlistValue'),
];
const DOC_ID = ascii('.document.id');
const DOC_METADATA = ascii('.document.metadata');
const DOT_DOCUMENT = ascii('.document.');
const PHOENIX_MEMBERS = ['context', 'parent_id', 'span_kind', 'start_time', 'end_time'].map(ascii);

const STRING_VALUE_OPEN = ascii('{"stringValue":');
const KIND_NAMES = [
  'CHAIN',
  'RETRIEVER',
  'LLM',
  'EMBEDDING',
  'RERANKER',
  'TOOL',
  'AGENT',
  'GUARDRAIL',
  'EVALUATOR',
];
const KINDS = KIND_NAMES.map((k) => ascii(`"${k}"`));
/** State.stringEnd before it is known. */
const UNKNOWN = -2;
const KEY_OPEN = ascii('{"key":');
const VALUE_NEXT = ascii(',"value":');

/** b[at, at + name.length) is `name`, within e. (A loop: Buffer.compare's native call cost more on short keys.) */
function bytesAre(b: Buffer, at: number, e: number, name: Uint8Array): boolean {
  if (at < 0 || at + name.length > e) return false;
  for (let j = 0; j < name.length; j++) if (b[at + j] !== name[j]) return false;
  return true;
}

/** The number the ASCII digits b[i, e) spell, or -1 when there are none or something else is among them. */
function digitsValue(b: Buffer, i: number, e: number): number {
  if (i >= e) return -1;
  let n = 0;
  for (; i < e; i++) {
    const c = b[i]! - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * nanosToMs of the string of digits b[i, e) without making it: the same sum of the same two exact parts,
 * when the part above the last six digits is exact as a number (undefined otherwise: the caller then decodes).
 */
function nanosToMsAt(b: Buffer, i: number, e: number): number | undefined {
  const cut = Math.max(i, e - 6);
  if (cut - i > 15) return undefined;
  const high = cut > i ? digitsValue(b, i, cut) : 0;
  const low = digitsValue(b, cut, e);
  return high < 0 || low < 0 ? undefined : high + low / 1e6;
}

/** A JSON number's value, or a JSON string's, at b[x, end). */
const numberOrText = (b: Buffer, x: number, end: number): unknown =>
  b[x] === 0x22 ? stringValue(b, x, end) : Number(b.toString('latin1', x, end));

/** The wanted attribute keys, as bytes, and which fact each fills. */
function wanted(qidAttribute: string | undefined): [Buffer, keyof SpanFacts][] {
  const keys: [Buffer, keyof SpanFacts][] = [
    [ascii('openinference.span.kind'), 'kind'],
    [ascii('input.value'), 'input'],
    [ascii('output.value'), 'output'],
    [ascii('metadata'), 'metadata'],
  ];
  if (qidAttribute) keys.push([Buffer.from(qidAttribute, 'utf8'), 'qid']);
  return keys;
}

interface State {
  spans: SpanFacts[];
  span: SpanFacts;
  keyAt: number;
  keyEnd: number;
  valueAt: number;
  valueEnd: number;
  /** Where the string of a `{"stringValue":"…"}` value at valueAt ends; -1 for another value, or UNKNOWN. */
  stringEnd: number;
  line: number;
  file: string;
  /** The place in the file of the line's b[0], or NaN when not known. */
  base: number;
  /** The span being read has had its attributes. */
  attributes: boolean;
  /** Set when a member the reader collects appears twice in one object: JSON.parse keeps the last, this refuses. */
  repeated: boolean;
}

/**
 * The spans of the OTLP export at b[start, end), or undefined when the line is not one this reader is sure
 * of (another shape, escapes in keys, a span without ids or times): the caller then parses it.
 */
export function otlpScanner(qidAttribute: string | undefined, lean?: LeanReader, documentId = 'document.id') {
  const attrs = wanted(qidAttribute);
  /** The attribute of document N its id is read from (see SpanFacts.documents). */
  const idsFromMetadata = documentId !== 'document.id';
  const idSuffix = idsFromMetadata ? DOC_METADATA : DOC_ID;
  /** Whether a wanted key has this length: most keys are told apart by it. */
  const wantedLength: boolean[] = [];
  for (const [name] of attrs) wantedLength[name.length] = true;
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

  /**
   * An AnyValue of one member, {"stringValue": "…"}, {"intValue": "42"}, {"boolValue": true} or
   * {"doubleValue": 1.5}, as openinference.ts reads it (undefined for a member it does not know; an intValue
   * as its digits `asText`); REFUSED for any other, and for a number that is none (the line is then parsed,
   * and the error worded there).
   */
  const anyValue = (b: Buffer, v: number, e: number, asText: boolean): unknown => {
    let out: unknown = REFUSED;
    let members = 0;
    const close = scanMembers(b, v, e, null, (b, k, x, e) => {
      members++;
      const c = b[x]!;
      const end = skipValue(b, x, e, 4);
      if (end < 0) return -1;
      if (keyIs(b, k, STRING_VALUE) && c === 0x22) out = stringValue(b, x, end);
      else if (keyIs(b, k, BOOL_VALUE) && (c === 0x74 || c === 0x66)) out = c === 0x74;
      else if (keyIs(b, k, INT_VALUE) || keyIs(b, k, DOUBLE_VALUE)) {
        const found = c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39) ? numberOrText(b, x, end) : null;
        out = keyIs(b, k, INT_VALUE) ? intValueOf(found, asText) : doubleValueOf(found);
        if (out === undefined) return -1;
      } else if (!ANY_VALUE_KEYS.some((name) => keyIs(b, k, name))) out = undefined; // no value it knows
      return end;
    });
    return close < 0 || members !== 1 ? REFUSED : out;
  };

  /** Where the string of `{"stringValue":"…"}` at b[v, e) ends, as exporters write it; -1 for any other value. */
  const plainString = (b: Buffer, v: number, e: number): number => {
    if (!bytesAre(b, v, e, STRING_VALUE_OPEN)) return -1;
    const end = skipString(b, v + STRING_VALUE_OPEN.length, e);
    return end > 0 && end + 1 === e && b[end] === 0x7d ? end : -1;
  };

  /**
   * A wanted attribute's value for `fact`, the AnyValue at b[s.valueAt, s.valueEnd): its placeholder when lean
   * reading has one (see otlp-lean.ts).
   */
  const factValue = (
    b: Buffer,
    s: State,
    fact: LeanFact | 'qid' | 'kind' | 'metadata of a document',
  ): unknown => {
    const v = s.valueAt;
    const e = s.valueEnd;
    if (s.stringEnd === UNKNOWN) s.stringEnd = plainString(b, v, e);
    const end = s.stringEnd;
    if (end > 0) {
      const at = v + STRING_VALUE_OPEN.length;
      if (fact === 'kind') {
        // The few kinds OpenInference names, without making a string of each span's.
        for (let j = 0; j < KINDS.length; j++)
          if (end - at === KINDS[j]!.length && bytesAre(b, at, end, KINDS[j]!)) return KIND_NAMES[j];
      } else if (lean && fact !== 'qid' && fact !== 'metadata of a document') {
        const placeholder = lean(fact, b, at, end);
        if (placeholder !== DECODE) return placeholder;
      }
      return stringValue(b, at, end);
    }
    return anyValue(b, v, e, fact === 'qid');
  };

  /**
   * `{"key":"…","value":{…}}` with nothing else, no space and no escape in the key, as exporters write it:
   * its end, or -1. A `{"stringValue":"…"}` value's string is found on the way.
   */
  const plainAttribute = (b: Buffer, i: number, e: number, s: State): number => {
    if (!bytesAre(b, i, e, KEY_OPEN)) return -1;
    const keyAt = i + KEY_OPEN.length;
    if (b[keyAt] !== 0x22) return -1;
    let keyEnd = keyAt + 1;
    for (; keyEnd < e; keyEnd++) {
      const c = b[keyEnd]!;
      if (c === 0x22) break;
      if (c === 0x5c || c < 0x20) return -1;
    }
    keyEnd++;
    if (keyEnd > e || !bytesAre(b, keyEnd, e, VALUE_NEXT)) return -1;
    const valueAt = keyEnd + VALUE_NEXT.length;
    let valueEnd: number;
    if (bytesAre(b, valueAt, e, STRING_VALUE_OPEN)) {
      const end = skipString(b, valueAt + STRING_VALUE_OPEN.length, e);
      if (end < 0 || b[end] !== 0x7d) return -1;
      s.stringEnd = end;
      valueEnd = end + 1;
    } else {
      s.stringEnd = -1;
      valueEnd = skipValue(b, valueAt, e, 3);
      if (valueEnd < 0) return -1;
    }
    if (b[valueEnd] !== 0x7d) return -1;
    s.keyAt = keyAt;
    s.keyEnd = keyEnd;
    s.valueAt = valueAt;
    s.valueEnd = valueEnd;
    return valueEnd + 1;
  };

  const attribute = (b: Buffer, i: number, e: number, s: State): number => {
    s.keyAt = -1;
    s.valueAt = -1;
    let close = plainAttribute(b, i, e, s);
    if (close < 0) {
      s.keyAt = -1;
      s.valueAt = -1;
      s.stringEnd = UNKNOWN;
      close = scanMembers(b, i, e, s, (b, k, v, e, s) => {
        if (keyIs(b, k, KEY)) {
          s.keyAt = v;
          return (s.keyEnd = skipString(b, v, e));
        }
        if (keyIs(b, k, VALUE)) {
          s.valueAt = v;
          return (s.valueEnd = skipValue(b, v, e, 3));
        }
        return skipValue(b, v, e, 3);
      });
      if (close >= 0 && s.keyAt >= 0 && hasEscape(b, s.keyAt + 1, s.keyEnd - 1)) return -1;
    }
    // An attribute without a key is an error the parsing reader names.
    if (close < 0 || s.keyAt < 0) return -1;
    // (A key written with escapes may spell one wanted: such a line was refused above, for JSON.parse.)
    const k0 = s.keyAt + 1;
    const k1 = s.keyEnd - 1;
    const len = k1 - k0;
    let facts: (keyof SpanFacts)[] | undefined;
    if (len < wantedLength.length && wantedLength[len])
      for (const [name, f] of attrs)
        if (len === name.length && bytesAre(b, k0, k1, name)) (facts ??= []).push(f);
    let doc = -1;
    let firstMetadata = false;
    if (len > DOCS.length && bytesAre(b, k0, k1, DOCS)) {
      const d0 = k0 + DOCS.length;
      if (len >= DOCS.length + idSuffix.length && bytesAre(b, k1 - idSuffix.length, k1, idSuffix)) {
        const d1 = k1 - idSuffix.length;
        const digits = digitsValue(b, d0, Math.min(d1, d0 + DOCUMENT_DIGITS));
        // An index that is not plain decimal (`+0`, `05`, `x`) is an error openinference.ts words: left to it.
        const rest = d1 - d0 > DOCUMENT_DIGITS ? digitsValue(b, d0 + DOCUMENT_DIGITS, d1) : 0;
        if (digits < 0 || rest < 0 || (b[d0] === 0x30 && d1 - d0 > 1)) return -1;
        if (d1 - d0 <= DOCUMENT_DIGITS) doc = digits;
        else s.span.documentPast = largerIndex(s.span.documentPast, b.toString('latin1', d0, d1));
      } else {
        // Another attribute of a document: it names N (as DOCUMENT_ATTRIBUTE in openinference.ts reads it).
        let d1 = d0;
        while (d1 < k1 && d1 - d0 <= DOCUMENT_DIGITS && b[d1]! >= 0x30 && b[d1]! <= 0x39) d1++;
        const digits = d1 - d0;
        if (
          digits > 0 &&
          digits <= DOCUMENT_DIGITS &&
          !(b[d0] === 0x30 && digits > 1) &&
          bytesAre(b, d1, k1, DOT_DOCUMENT)
        ) {
          const n = digitsValue(b, d0, d1) + 1;
          if (n > (s.span.documentsNamed ?? 0)) s.span.documentsNamed = n;
          firstMetadata =
            !idsFromMetadata &&
            n === 1 &&
            k1 - d1 === DOC_METADATA.length &&
            bytesAre(b, d1, k1, DOC_METADATA);
        }
      }
    }
    if (facts === undefined && doc < 0 && !firstMetadata) return close;
    // A wanted attribute whose value is not an AnyValue this reader knows: the line is parsed instead.
    if (s.valueAt < 0 || b[s.valueAt] !== 0x7b) return -1;
    for (const fact of facts ?? []) {
      const value = factValue(b, s, fact as LeanFact | 'qid' | 'kind');
      if (value === REFUSED) return -1;
      if (fact === 'kind') s.span.kind = typeof value === 'string' ? value.toUpperCase() : '';
      else (s.span as unknown as Record<string, unknown>)[fact] = value;
      if (fact === 'output' && lean) {
        // A later output.value replaces this one, place and all; one that is not a plain string has none.
        const plain = s.stringEnd > 0;
        s.span.outputAt = plain ? s.base + s.valueAt + STRING_VALUE_OPEN.length : NaN;
        s.span.outputLength = plain ? s.stringEnd - s.valueAt - STRING_VALUE_OPEN.length : NaN;
      }
    }
    if (firstMetadata) {
      const value = factValue(b, s, 'metadata of a document');
      if (value === REFUSED) return -1;
      if (value === undefined) delete s.span.firstMetadata;
      else s.span.firstMetadata = value;
    }
    if (doc >= 0) {
      // A document given twice is an error openinference.ts words.
      if (doc in s.span.documents) return -1;
      const value = factValue(b, s, idsFromMetadata ? 'metadata of a document' : 'document');
      if (value === REFUSED) return -1;
      s.span.documents[doc] = value;
      if (lean && !idsFromMetadata) {
        const at = (s.span.documentsAt ??= []);
        const plain = s.stringEnd > 0;
        at[2 * doc] = plain ? s.base + s.valueAt + STRING_VALUE_OPEN.length : NaN;
        at[2 * doc + 1] = plain ? s.stringEnd - s.valueAt - STRING_VALUE_OPEN.length : NaN;
      }
    }
    return close;
  };

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
