import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { parseJsonLine, readLineBatches, type LineRef } from '../io/jsonl.js';
import { recordsAt, isParquet } from '../io/records.js';
import type { GoldItem } from './contract.js';
import {
  documentKeysMeeting,
  idSample,
  keysMeeting,
  MEET_SHARE,
  type IdKey,
  type SpanDocument,
} from './id-keys.js';
import type { Meeting } from './id-meter.js';
import { mappedReader } from './misread.js';
import { isSpanDocument, parsedOrText, spanFacts } from './spans/span-facts.js';
import type { TraceInput } from './trace-input.js';

// When the winners' ids meet too few gold ids (id-meter.ts), whether another key of the same records meets
// them: then the ids were read from the wrong place, and the run stops with the key to read them from. Only
// then are records read again, a bounded sample of them.

/** Winners whose records are read again (JSON Lines, Parquet), or spans' lines (OpenInference) read. */
export const SAMPLE_RUNS = 1000;

/**
 * The error naming the key that meets the gold ids, when one does; undefined when none does (the suite then
 * warns: see meetingWarning). `refs` are the winners' places in gold order; `winners` how many there are.
 */
export async function idMisread(
  meeting: Meeting,
  gold: readonly Pick<GoldItem, 'citations'>[],
  traceFiles: readonly string[],
  input: TraceInput,
  refs: readonly LineRef[],
  winners: number,
): Promise<InputError | undefined> {
  const goldIds = new Set(gold.flatMap((g) => g.citations));
  const openinference = input.format === 'openinference';
  const sample = openinference
    ? await spanDocumentsOf(traceFiles)
    : await recordValues(refs.slice(0, SAMPLE_RUNS));
  if (sample.runs === 0) return undefined;
  const reads = openinference ? (input.documentId ?? 'document.id') : retrievedPointer(input);
  const skip = openinference ? new Set([reads]) : new Set([reads, citationsPointer(input)].map(listPointer));
  const keys: IdKey[] = openinference
    ? documentKeysMeeting(sample.values as SpanDocument[], goldIds)
    : keysMeeting(sample.values, goldIds).map((k) => ({ ...k, key: listPointer(k.key) }));
  // A key must meet as many gold ids as the rule asks of the whole run, in proportion to the runs sampled.
  const needed = Math.max(1, Math.ceil(MEET_SHARE * meeting.gold * Math.min(1, sample.runs / winners)));
  const best = keys.find((k) => !skip.has(k.key) && k.meets >= needed);
  if (!best) return undefined;
  const sampled = sample.runs < winners ? ` in ${sample.runs} of ${winners} traces read again` : '';
  const looks = `retrieved ids (${readerOf(input)}) look like ${idSample(meeting.traced)}; gold ids like ${idSample(meeting.goldIds)}`;
  const fix = openinference
    ? `${best.key === 'document.id' ? '' : 'document.'}${best.key} meets ${best.meets} of ${meeting.gold} gold ids${sampled}: set openinference.document_id: ${best.key}`
    : `${best.key} meets ${best.meets} of ${meeting.gold} gold ids${sampled}: set fields.traces./retrieved_ids: ${best.key}`;
  return new InputError({ file: traceFiles[0]! }, `${looks}; ${fix}`);
}

/**
 * The warning of a suite whose ids meet too few gold ids, no other key meeting them either (`searched`), or
 * not looked for; `reader` says where the retrieved ids are read, `noun` what a scored record is.
 */
export function meetingWarning(
  meeting: Meeting,
  reader: string,
  terms: { noun: string; searched: boolean },
): string {
  const none = terms.searched ? `, and no other key of the ${terms.noun}s meets them` : '';
  return `only ${meeting.met} of the gold set's ${meeting.gold} ids are among the scored ${terms.noun}s' retrieved ids (retrieved ids look like ${idSample(meeting.traced)}; gold ids like ${idSample(meeting.goldIds)})${none}: ${terms.noun}s of another gold set, a retriever broken, or ids read from the wrong place (${reader})?`;
}

/** Where the retrieved ids of traces read as `input` come from, as the messages name it. */
export const readerOf = (input: TraceInput): string =>
  input.format === 'openinference'
    ? `openinference.document_id: ${input.documentId ?? 'document.id'}`
    : mappedReader(input.fields, 'traces', '/retrieved_ids', 'retrieved_ids');

function pointerOf(input: TraceInput, member: string, plain: string): string {
  const to = input.fields?.[member];
  return typeof to === 'string' ? to : to !== undefined ? to.from : plain;
}
const retrievedPointer = (input: TraceInput) => pointerOf(input, '/retrieved_ids', '/retrieved_ids');
const citationsPointer = (input: TraceInput) =>
  pointerOf(input, '/answer_json/citations', '/answer_json/citations');

/** A key of a list of strings (`/ids/*`) as a mapping names the list (`/ids`). */
const listPointer = (p: string): string => (p.endsWith('/*') ? p.slice(0, -2) : p);

/** The records of the winners, as written (before `fields:` maps them), and how many there are. */
async function recordValues(refs: readonly LineRef[]): Promise<{ values: unknown[]; runs: number }> {
  // A record read from memory (no offset, not a Parquet row) cannot be found again by its place.
  const again = refs.filter((r) => r.offset >= 0 || isParquet(r.file));
  const records = await recordsAt(again);
  return { values: again.map((r) => records.get(r)), runs: again.length };
}

/**
 * The documents of the RETRIEVER spans of the first SAMPLE_RUNS lines (a `.json` document whole) of the
 * trace files, with their ids and metadata, and how many traces they are of.
 */
async function spanDocumentsOf(files: readonly string[]): Promise<{ values: SpanDocument[]; runs: number }> {
  const values: SpanDocument[] = [];
  const traces = new Set<string>();
  const add = (value: unknown, file: string, line: number) => {
    const ids = spanFacts(value, file, line, undefined);
    const metadata = spanFacts(value, file, line, undefined, undefined, 'metadata.*');
    ids.forEach((s, k) => {
      if (s.kind !== 'RETRIEVER') return;
      traces.add(s.traceId);
      const meta = metadata[k]!.documents;
      const n = Math.max(s.documents.length, meta.length);
      for (let i = 0; i < n; i++) values.push({ id: s.documents[i], metadata: parsedOrText(meta[i]) });
    });
  };
  let lines = 0;
  for (const file of files) {
    if (lines >= SAMPLE_RUNS) break;
    if (isSpanDocument(file)) {
      const text = (await readFile(file, 'utf8')).replace(/^\ufeff/, '');
      const doc: unknown = JSON.parse(text);
      for (const v of Array.isArray(doc) ? doc : [doc]) add(v, file, 1);
      lines++;
      continue;
    }
    for await (const batch of readLineBatches(file)) {
      for (let i = 0; i < batch.length && lines < SAMPLE_RUNS; i++) {
        if (batch.blank(i)) continue;
        add(parseJsonLine(file, batch.line(i), batch.text(i)), file, batch.line(i));
        lines++;
      }
      if (lines >= SAMPLE_RUNS) break;
    }
  }
  return { values, runs: traces.size };
}
