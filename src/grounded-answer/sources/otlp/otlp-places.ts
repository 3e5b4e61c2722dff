import { unescapeInto } from '../../../io/json-scan.js';
import type { RawMembers } from '../held-lines.js';
import { ANSWER, memberShapes } from '../../member-shapes.js';
import { forEachRetrieved, type TraceSpans } from '../../spans/trace-assembly.js';
import { startsText } from '../../spans/otlp-lean.js';

// Where a trace's judged members are in its line, so that a winner is read back from there without walking
// its spans again: the scan that picks winners notes, for a trace all on one line whose output and document
// ids are plain stringValues, where each of their JSON strings is (as the scan saw them, see
// SpanFacts.outputAt). Reading a winner back is then copying its ids' strings into a JSON array and
// decoding its output's string into the answer's JSON: walking the spans of 100k winners again cost the
// 0.5x formats benchmark more than a second.

/**
 * Appends to `out` the places of the output and of each retrieved id of a trace assembled from these spans,
 * relative to its line's start `lineAt`: true, or false (with nothing appended) when one of them has no place
 * (or it has no answer).
 */
export function notePlaces(picked: TraceSpans, lineAt: number, out: { push(v: number): void }): boolean {
  const { answering, retrievers } = picked;
  if (!answering || !((answering.outputAt ?? NaN) >= lineAt)) return false;
  let placed = true;
  forEachRetrieved(retrievers, (s, n) => (placed &&= (s.documentsAt?.[2 * n] ?? NaN) >= lineAt));
  if (!placed) return false;
  out.push(answering.outputAt! - lineAt);
  out.push(answering.outputLength!);
  forEachRetrieved(retrievers, (s, n) => {
    out.push(s.documentsAt![2 * n]! - lineAt);
    out.push(s.documentsAt![2 * n + 1]!);
  });
  return true;
}

const PAGE_BYTES = 1 << 20;
const TEXT_OPEN = Buffer.from('{"claim":');
const TEXT_CLOSE = Buffer.from(',"citations":[]}');

/**
 * Reads winners' members from their places (see notePlaces) into pages of bytes, which cross to another
 * thread whole: a winner's retrieved_ids as a JSON array of the strings as written, and its answer as the
 * output's decoded JSON, or, for an output that is text, `{"claim": <the string as written>, "citations": []}`
 * (as assembling makes of text). An output of any other kind (JSON that is not an answer the contract's
 * scanner accepts, text starting with an escape) gets undefined: the caller reads that trace the long way.
 */
export function placedReader(): (
  line: Buffer,
  start: number,
  places: ArrayLike<number>,
) => RawMembers | undefined {
  const shapes = memberShapes();
  let page = Buffer.allocUnsafe(PAGE_BYTES);
  let used = 0;
  const room = (n: number) => {
    if (used + n <= page.length) return;
    page = Buffer.allocUnsafe(Math.max(PAGE_BYTES, n));
    used = 0;
  };
  return (line, start, places) => {
    const outAt = start + places[0]!;
    const outEnd = outAt + places[1]!;
    let need = 2 + places[1]! + TEXT_OPEN.length + TEXT_CLOSE.length;
    for (let k = 2; k < places.length; k += 2) need += places[k + 1]! + 1;
    room(need);
    const from = used;
    page[used++] = 0x5b;
    for (let k = 2; k < places.length; k += 2) {
      if (k > 2) page[used++] = 0x2c;
      const at = start + places[k]!;
      used += line.copy(page, used, at, at + places[k + 1]!);
    }
    page[used++] = 0x5d;
    const ids = page.subarray(from, used);
    // Text, as assembling tells it from the first byte as written: the closing quote (empty), or one that
    // starts text and no escape (which may decode to anything).
    const c = line[outAt + 1]!;
    if (c === 0x22 || (c !== 0x5c && startsText(c))) {
      const at = used;
      used += TEXT_OPEN.copy(page, used);
      used += line.copy(page, used, outAt, outEnd);
      used += TEXT_CLOSE.copy(page, used);
      return [ids, page.subarray(at, used)];
    }
    const n = unescapeInto(line, outAt, outEnd, page.subarray(used));
    const answer = page.subarray(used, used + Math.max(n, 0));
    if (n < 0 || shapes(answer) !== ANSWER) {
      used = from;
      return undefined;
    }
    used += n;
    return [ids, answer];
  };
}
