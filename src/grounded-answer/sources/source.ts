import type { InputError } from '../../errors.js';
import type { ChunkQueue } from '../../io/chunk-queue.js';
import type { Segment } from '../../io/split.js';
import type { GoldItem } from '../contract.js';
import type { Judge } from '../pipeline/judge-stage.js';
import type { ReadBack } from '../pipeline/judged-runs.js';
import type { Offer, Picked } from '../pipeline/pick.js';
import type { ScoreOptions } from '../score-options.js';
import type { TraceInput } from '../trace-input.js';
import type { TraceReads } from '../trace-reads.js';

// A format of traces, as the one reading pipeline (pipeline.ts) runs it: the source says what its input is
// (its layout) and how one thread scans the chunks it claims, offers the runs its scans found to the pick,
// and reads the winners back for the judge stage (judge-stage.ts). How many threads run it, what crosses
// between them, where gold is digested and how a stuck chunk is caught are the adapter's (adapter.ts), the
// same for every source. Each source is one folder and one line of the registry (index.ts).

/**
 * What a source's input is, from which the adapter derives how threads read it. `chunks` is what a chunk is:
 * `'lines'`, runs of whole lines (8 a thread, of at least 8 MB; helpers only past 64 MB); `{ linesUpTo }`,
 * runs of whole lines of no more than that many bytes, for a scan that holds a chunk's data until its end;
 * `{ groups }`, windows of whole groups of records (Parquet row groups, `groups` giving a file's sizes; helpers
 * only past 100,000 records); `'files'`, each file whole, read by this thread alone (records assembled across
 * the files cannot be cut). `heap` is what a scan holds: `'records'` (Parquet rows, OpenInference spans) sizes
 * an engine thread's young generation for them (see RECORDS_YOUNG_MB).
 */
export interface Layout {
  readonly chunks:
    'lines' | { readonly linesUpTo: number } | { groups(file: string): Promise<number[]> } | 'files';
  readonly heap: 'lines' | 'records';
}

/** What a source's candidates and read-back are given: the input, its chunks, and the gold set. */
export interface Picking {
  files: readonly string[];
  chunks: readonly Segment[];
  gold: readonly GoldItem[];
  options: ScoreOptions;
  input: TraceInput;
  /** The helpers, for a source that reads back on them (see TraceSource.readBackOnHelper). */
  helpers: HelperShares;
}

/** The helpers still running after their scans, each to read back a share of the winners. */
export interface HelperShares {
  readonly count: number;
  /**
   * Has helper `p` read back `share` (its buffers `transfer`red) with its source's readBackOnHelper, and gives
   * its answer; the helper goes, heap and all, once it answers (and has digested gold, when asked). With no
   * share it goes as soon as it may, and the answer is undefined.
   */
  readBack<R>(p: number, share: unknown, transfer: ArrayBuffer[]): Promise<R | undefined>;
}

/**
 * What a scan is given besides its chunks: `watched` when the main thread watches its chunks for one that
 * never ends (see TraceSource.stuck), so that the scan need not guard itself.
 */
export interface ScanContext {
  watched: boolean;
}

export interface TraceSource<S extends object = object, W = unknown> {
  /** Its name in the registry, by which a helper finds it (see index.ts). */
  readonly name: string;
  /** What it reads, as an error naming the formats and docs/formats.md word it: one line. */
  readonly explanation: string;
  /**
   * The names gates.yaml's `format:` gives what it reads (several sources may share one, telling their inputs
   * apart by the files: see accepts). The registry's union of them is the list gates.yaml accepts.
   */
  readonly formats: readonly string[];
  /**
   * Whether it reads these files as `input` says: an explicit claim, exactly one source's for any input
   * (the registry asks them all, in no order that matters).
   */
  accepts(files: readonly string[], input: TraceInput): boolean;
  /**
   * Whether traces read as `input` says name their gold item by its question rather than its qid: gold is
   * then loaded with its questions, and the pick matches by them.
   */
  byQuestion?(input: TraceInput): boolean;
  /**
   * Whether traces read as `input` says are assembled from spans, which time a run's stages as a latency
   * CSV's columns do (see span-stages.ts); runs of JSON Lines or Parquet carry latency_ms only.
   */
  readsSpans?(input: TraceInput): boolean;
  /** What its input is (see Layout). */
  readonly layout: Layout;
  /**
   * Reads the chunks this thread claims, on any thread. Its typed arrays cross to the main thread moved, not
   * copied: the scan is not to keep using them.
   */
  scan(queue: ChunkQueue<Segment>, input: TraceInput, context: ScanContext): Promise<S>;
  /**
   * Offers the pick every run the scans found (in chunk order, the main thread's first), each with its
   * position in the input, or throws the input's first error; answers how many records were read and what
   * the read-back needs besides the pick's table.
   */
  candidates(scans: readonly S[], picking: Picking, offer: Offer): { lines: number; winners: W };
  /** Reads the winners back and hands each to `judge` (or to helpers: see readBackOnHelper). */
  readBack(picked: Picked<W>, picking: Picking, judge: Judge): Promise<ReadBack> | ReadBack;
  /**
   * For a scan that can get stuck in a chunk (a Parquet page can send the decoder into a loop): how many
   * seconds a chunk may take, and the input error for one that took longer. The main thread then watches the
   * helpers' chunks rather than reading any.
   */
  readonly stuck?: { seconds(): number; error(chunk: Segment, seconds: number): InputError };
  /**
   * Read-back on helpers: on a helper done scanning, reads back the share of the winners readBack sent it
   * (see HelperShares) and answers with what crosses back. A source with it keeps its helpers until its
   * read-back is done.
   */
  readBackOnHelper?(share: unknown, input: TraceInput): object;
  /**
   * Where it reads a trace's members as `input` says, for the messages that doubt them, and whether one trace
   * may span files; absent (or undefined), as records through `fields:` are read (record-reads.ts). The sources
   * of one `format:` name read it alike: a merge of partials knows the name, not the files (see readsOf).
   */
  reads?(input: TraceInput): TraceReads | undefined;
}
