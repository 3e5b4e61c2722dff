import type { ChunkQueue } from '../../io/chunk-queue.js';
import type { Segment } from '../../io/split.js';
import type { ThreadScan } from '../pipeline/chunk-scan.js';
import type { GoldItem } from '../contract.js';
import type { Judge } from '../pipeline/judge-stage.js';
import type { ReadBack } from '../pipeline/judged-runs.js';
import type { Picked } from '../pipeline/pick.js';
import type { ScoreOptions } from '../score-options.js';
import type { TraceInput } from '../trace-input.js';
import type { TraceReads } from '../trace-reads.js';
import type { Cut, Helper } from '../pipeline/threads.js';

// A format of traces, as the one reading pipeline (pipeline.ts) runs it: cut the input into chunks, scan
// each chunk (on any thread) into where each qid's runs are and when they ran, with the contract's checks,
// pick each gold item's latest run, and read the winners back for the judge stage (judge-stage.ts). The
// pipeline knows nothing else of the format; each source is one module and one line of the registry
// (index.ts).

/** What a source's pick and read-back are given: the input, its chunks, and the gold set. */
export interface Picking<S extends ThreadScan> {
  files: readonly string[];
  chunks: readonly Segment[];
  gold: readonly GoldItem[];
  options: ScoreOptions;
  input: TraceInput;
  /** A gold question's qid, when the source matches traces by question (see TraceSource.byQuestion). */
  questions: ReadonlyMap<string, string> | undefined;
  /** The helpers, still running when the source helps (see help); stopped otherwise. */
  helpers: readonly Helper<S>[];
}

export interface TraceSource<S extends ThreadScan = ThreadScan, Told = unknown, W = unknown> {
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
  /** How the input is cut into chunks, handed out in order to the threads. */
  cut(files: readonly string[]): Cut;
  /** Reads the chunks this thread claims. `told` is what its helpers are told (see told), on a helper. */
  scan(queue: ChunkQueue<Segment>, input: TraceInput, told?: Told): Promise<S>;
  /** The buffers a scan crosses to the main thread with, moved rather than copied. */
  buffers(scan: S): ArrayBuffer[];
  /**
   * Picks each gold item's winning run from the scans (in chunk order, the main thread's first), the one a
   * single pass over the input picks, with its first input error.
   */
  pick(scans: readonly S[], picking: Picking<S>): Picked<W>;
  /** Reads the winners back and hands each to `judge` (or has its helpers judge them: see help). */
  readBack(picked: Picked<W>, picking: Picking<S>, judge: Judge): Promise<ReadBack> | ReadBack;
  /**
   * Reads records (Parquet rows, OpenInference spans) rather than plain trace lines: an engine thread's young
   * generation is sized for them (see RECORDS_YOUNG_MB).
   */
  readonly readsRecords: boolean;
  /** False when the main thread reads no chunk while helpers do (it watches them instead: see watch). */
  readonly mainReads: boolean;
  /**
   * Where a JSON Lines gold set is digested when a core is spare for it: by a fresh helper once the scans
   * are in (`after-scan`), by the first helper between its scan and its help (`first-helper`), or here.
   */
  readonly digest: 'after-scan' | 'first-helper' | 'none';
  /**
   * Read on this thread alone, whatever GROUNDGATE_THREADS says: records that cannot be cut (OpenInference
   * documents assemble their traces across all files).
   */
  readonly alone?: boolean;
  /** What every helper is told besides its chunks, made once the chunks are known. */
  told?(chunks: readonly Segment[]): Told;
  /** Watches the helpers' scans: `stuck` rejects with the input error of a chunk that never ends. */
  watch?(told: Told, chunks: readonly Segment[]): { stuck: Promise<never>; stop(): void };
  /**
   * On a helper done scanning, the work the read-back asks of it (see Helper.help): its answer and the buffers
   * to move. A source with help keeps its helpers until its read-back is done.
   */
  help?(job: unknown, input: TraceInput): { answer: unknown; transfer: ArrayBuffer[] };
  /**
   * Where it reads a trace's members as `input` says, for the messages that doubt them, and whether one trace
   * may span files; absent (or undefined), as records through `fields:` are read (record-reads.ts). The sources
   * of one `format:` name read it alike: a merge of partials knows the name, not the files (see readsOf).
   */
  reads?(input: TraceInput): TraceReads | undefined;
}
