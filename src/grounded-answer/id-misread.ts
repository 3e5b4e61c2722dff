import { InputError } from '../errors.js';
import type { LineRef } from '../io/jsonl.js';
import type { GoldItem } from './contract.js';
import { idSample, MEET_SHARE } from './id-keys.js';
import type { Meeting } from './id-meter.js';
import { readsOf } from './sources/index.js';
import type { TraceInput } from './trace-input.js';

// When the winners' ids meet too few gold ids (id-meter.ts), whether another key of the same records meets
// them: then the ids were read from the wrong place, and the run stops with the key to read them from. Only
// then are records read again, a bounded sample of them; which keys and how the fix names them is the
// format's (TraceReads).

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
  const reads = readsOf(input);
  const sample = await reads.idKeys(input, { files: traceFiles, refs, size: SAMPLE_RUNS }, goldIds);
  if (sample.runs === 0) return undefined;
  // A key must meet as many gold ids as the rule asks of the whole run, in proportion to the runs sampled.
  const needed = Math.max(1, Math.ceil(MEET_SHARE * meeting.gold * Math.min(1, sample.runs / winners)));
  const best = sample.keys.find((k) => k.meets >= needed);
  if (!best) return undefined;
  const sampled = sample.runs < winners ? ` in ${sample.runs} of ${winners} traces read again` : '';
  const looks = `retrieved ids (${reads.idReader(input)}) look like ${idSample(meeting.traced)}; gold ids like ${idSample(meeting.goldIds)}`;
  const fix = reads.idFix(best.key);
  return new InputError(
    { file: traceFiles[0]! },
    `${looks}; ${fix.key} meets ${best.meets} of ${meeting.gold} gold ids${sampled}: set ${fix.setting}`,
  );
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
export const readerOf = (input: TraceInput): string => readsOf(input).idReader(input);
