import type { LineRef } from '../io/jsonl.js';
import type { IdKey } from './id-keys.js';
import type { TraceInput } from './trace-input.js';

// Where a format reads a trace's members, as the messages that doubt them name it (misread.ts,
// id-misread.ts), and whether a shard can hold part of one trace. Records read through `fields:` are read
// as record-reads.ts says; a source that reads traces otherwise declares its reads (TraceSource.reads).

/** Where the winners are, for a sample of them read again: their places, and the trace files. */
export interface IdSample {
  files: readonly string[];
  /** The winners' places, in gold order. */
  refs: readonly LineRef[];
  /** How many runs to read again at most. */
  size: number;
}

export interface TraceReads {
  /** Where the qid, the retrieved ids and the citations (without citation_markers) are read, as warnings say. */
  readers(input: TraceInput): { qid: string; retrieved: string; citations: string };
  /** Where the retrieved ids are read, as the messages about ids that meet no gold id say. */
  idReader(input: TraceInput): string;
  /**
   * Every key of a sample of the traces that holds gold ids (most first), but those the ids and citations are
   * read from, and how many runs the sample holds.
   */
  idKeys(
    input: TraceInput,
    sample: IdSample,
    goldIds: ReadonlySet<string>,
  ): Promise<{ keys: IdKey[]; runs: number }>;
  /** How a key of idKeys is named to the user, and the setting that reads the retrieved ids from it. */
  idFix(key: string): { key: string; setting: string };
  /**
   * One trace may be assembled from records in several files (spans exported apart): a shard, which reads
   * some of the files, may hold part of a trace, which a merge cannot join.
   */
  readonly assemblesAcrossFiles: boolean;
}
