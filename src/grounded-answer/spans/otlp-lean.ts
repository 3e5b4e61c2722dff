import { shape, required, lineScanner } from '../../io/record-shape.js';
import { skipString, stringValue, unescapeInto } from '../../io/json-scan.js';
import { ANSWER, memberShapes } from '../member-shapes.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// Most OTLP traces are read only to learn their qid and time, and whether they are good: the winners are
// read again for their values (see otlp-read-back.ts). For those, a wanted attribute that is a plain
// `{"stringValue": …}` is checked on its bytes and stands for a placeholder of what assembling would make of
// it, one the contract's check treats as it would treat the value: an answer the contract's scanner accepts
// becomes an empty answer, a document id an empty string. Assembling and checking are then those of every
// other trace, and so are their verdicts and errors, since a value is only replaced when the check is sure
// to accept it; a value that is needed (the qid) or not certain is decoded as it would be otherwise.

/** A placeholder for an answer whose JSON the contract's scanner accepted (never mutated: frozen). */
const ANSWER_PLACEHOLDER = Object.freeze({ claim: '', citations: Object.freeze([] as string[]) });
/** A placeholder for an output that is plain text (its claim): not JSON, so not parsed. */
const TEXT_PLACEHOLDER = '-';
/** Decode the value as any other reader does. */
export const DECODE = Symbol('decode');

export type LeanFact = 'input' | 'output' | 'metadata' | 'document';

/**
 * Reads a wanted attribute's string value, the JSON string at b[v, e), for the scan that only picks
 * winners: its placeholder, undefined when it is not wanted at all, or DECODE.
 */
export type LeanReader = (fact: LeanFact, b: Buffer, v: number, e: number) => unknown;

/**
 * Whether a string whose first UTF-8 byte is `c` is text to assembling (parsedOrText in openinference.ts),
 * whatever follows: no space of any kind starts it (trimStart would drop it), nor `{` or `[`.
 */
export const startsText = (c: number): boolean => c < 0x80 && c > 0x20 && c !== 0x7b && c !== 0x5b;

/** A plain key: one the metadata's scanner and a computed property name both read as written. */
const PLAIN_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** The lean reader of a scan whose qid comes from `qid` (see OpenInferenceOptions.qid). */
export function leanReader(qid: string): LeanReader {
  const shapes = memberShapes();
  let scratch = Buffer.allocUnsafe(4096);
  /** The decoded bytes of the string at b[v, e) in scratch, or -1. */
  const decoded = (b: Buffer, v: number, e: number): number => {
    // A string's UTF-8 is never longer than its JSON.
    if (e - v > scratch.length) scratch = Buffer.allocUnsafe(2 * (e - v));
    return unescapeInto(b, v, e, scratch);
  };
  const key = qid.startsWith('metadata.') ? qid.slice('metadata.'.length) : undefined;
  const metadataKey = key !== undefined && PLAIN_KEY.test(key) && key !== '__proto__' ? key : undefined;
  const metadata = metadataKey ? lineScanner(shape({ [metadataKey]: required('id') })) : undefined;
  const found = metadata?.found();

  return (fact, b, v, e) => {
    switch (fact) {
      case 'document':
        return '';
      case 'input':
        // The question text is the qid to match: needed.
        return qid === OPENINFERENCE.input ? DECODE : '';
      case 'output': {
        const n = decoded(b, v, e);
        if (n < 0) return DECODE;
        if (n === 0) return TEXT_PLACEHOLDER;
        const c = scratch[0]!;
        if (startsText(c)) return TEXT_PLACEHOLDER;
        return shapes(scratch.subarray(0, n)) === ANSWER ? ANSWER_PLACEHOLDER : DECODE;
      }
      case 'metadata': {
        if (key === undefined) return undefined;
        if (!metadata || !found) return DECODE;
        const n = decoded(b, v, e);
        if (n < 0 || !metadata.scan(scratch, 0, n, found)) return DECODE;
        const at = found.at[0]!;
        const end = skipString(scratch, at, n);
        return { [metadataKey!]: stringValue(scratch, at, end) };
      }
    }
  };
}
