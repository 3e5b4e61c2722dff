import { hasEscape, keyIs, scanMembers, skipString, skipValue, stringValue } from '../../io/json-scan.js';
import { DECODE, type LeanFact, type LeanReader } from './otlp-lean.js';
import {
  anyValue,
  ascii,
  bytesAre,
  digitsValue,
  plainAttribute,
  plainString,
  REFUSED,
  STRING_VALUE_OPEN,
  UNKNOWN,
  type AttributeAt,
} from './otlp-values.js';
import { GENAI } from './vocabularies/genai.js';
import { TOKENS } from '../../cost/token-attributes.js';
import { DOCUMENT_DIGITS, largerIndex, type SpanFacts } from './span-values.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// What the scanner of spans (otlp-scan.ts) reads of each attribute `{"key":…,"value":…}`: the few that
// OpenInference assembling needs (the span's kind, input, output, metadata, the qid's attribute, and each
// retrieved document's id), into the span being read, as openinference.ts reads them from the parsed line.

const KEY = ascii('key');
const VALUE = ascii('value');
const DOCS = ascii(`${OPENINFERENCE.documents}.`);
const DOC_ID = ascii(`.${OPENINFERENCE.documentId}`);
const DOC_METADATA = ascii(`.${OPENINFERENCE.documentMetadata}`);
const DOT_DOCUMENT = ascii('.document.');
const KINDS = OPENINFERENCE.kinds.map((k) => ascii(`"${k}"`));
/** A span of the GenAI conventions is read by the parsing reader (see vocabularies/genai.ts): this one reads OpenInference's. */
const GENAI_OPERATION = ascii(GENAI.operation);

/** The facts lean reading has placeholders for (see otlp-lean.ts); the rest are decoded. */
const LEAN_FACTS: ReadonlySet<string> = new Set<LeanFact>(['input', 'output', 'metadata', 'document']);

/** The wanted attribute keys, as bytes, and which fact each fills. */
function wanted(qidAttribute: string | undefined): [Buffer, keyof SpanFacts][] {
  const keys: [Buffer, keyof SpanFacts][] = [
    [ascii(OPENINFERENCE.kind), 'kind'],
    [ascii(OPENINFERENCE.input), 'input'],
    [ascii(OPENINFERENCE.output), 'output'],
    [ascii(OPENINFERENCE.metadata), 'metadata'],
  ];
  keys.push(
    [ascii(TOKENS.in), 'tokensIn'],
    [ascii(TOKENS.out), 'tokensOut'],
    [ascii(TOKENS.cached), 'tokensCached'],
    [ascii(TOKENS.model), 'model'],
  );
  if (qidAttribute) keys.push([Buffer.from(qidAttribute, 'utf8'), 'qid']);
  return keys;
}

/** The span an attribute is read into, and where the line is in its file (for lean reading's places). */
export interface AttributeState extends AttributeAt {
  span: SpanFacts;
  /** The place in the file of the line's b[0], or NaN when not known. */
  base: number;
}

/**
 * Reads the attribute at b[i, e) into s.span: its end, or -1 when the line is not one this reader is sure of
 * (the caller then parses it).
 */
export function attributeReader(
  qidAttribute: string | undefined,
  lean: LeanReader | undefined,
  documentId: string,
): (b: Buffer, i: number, e: number, s: AttributeState) => number {
  const attrs = wanted(qidAttribute);
  /** The attribute of document N its id is read from (see SpanFacts.documents). */
  const idsFromMetadata = documentId !== OPENINFERENCE.documentId;
  const idSuffix = idsFromMetadata ? DOC_METADATA : DOC_ID;
  /** Whether a wanted key has this length: most keys are told apart by it. */
  const wantedLength: boolean[] = [];
  for (const [name] of attrs) wantedLength[name.length] = true;
  /**
   * A wanted attribute's value for `fact`, the AnyValue at b[s.valueAt, s.valueEnd): its placeholder when lean
   * reading has one (see otlp-lean.ts).
   */
  const factValue = (
    b: Buffer,
    s: AttributeState,
    fact: keyof SpanFacts | LeanFact | 'metadata of a document',
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
          if (end - at === KINDS[j]!.length && bytesAre(b, at, end, KINDS[j]!)) return OPENINFERENCE.kinds[j];
      } else if (lean && LEAN_FACTS.has(fact)) {
        const placeholder = lean(fact as LeanFact, b, at, end);
        if (placeholder !== DECODE) return placeholder;
      }
      return stringValue(b, at, end);
    }
    return anyValue(b, v, e, fact === 'qid');
  };

  const attribute = (b: Buffer, i: number, e: number, s: AttributeState): number => {
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
    if (len === GENAI_OPERATION.length && bytesAre(b, k0, k1, GENAI_OPERATION)) return -1;
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
      const value = factValue(b, s, fact);
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

  return attribute;
}
