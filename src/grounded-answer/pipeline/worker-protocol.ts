import type { DecodeJob, DecodeMessage } from '../../io/parquet.js';
import type { Segment } from '../../io/split.js';
import type { ThreadScan } from './chunk-scan.js';
import type { TraceInput } from '../trace-input.js';

// What the main thread and a helper (worker.ts) say to each other. Nothing here names a format: a helper is
// told which source (see sources/index.ts) reads its chunks.

export interface WorkerInput {
  chunks: Segment[];
  /** The ChunkQueue's state, shared with the other threads. */
  shared: SharedArrayBuffer;
  /** The gold files to digest after the scan. */
  gold?: string[];
  /** The source that reads the chunks, by its name in the registry (see sources/index.ts). */
  source?: string;
  /** How the traces are read (see trace-input.ts). */
  input?: TraceInput;
  /** Set when the main thread watches this helper's chunks for one that never ends (see TraceSource.stuck). */
  leases?: LeaseTable;
  /** Set for a thread that only decodes rows of a Parquet file (see readParquet). */
  decode?: DecodeJob;
}

/** When each chunk's reading began, in seconds from `base` (epoch seconds), by chunk: 0 before, -1 once done. */
export interface LeaseTable {
  shared: SharedArrayBuffer;
  base: number;
}

/**
 * A helper's scan; each gold line's digest in file order (see lineDigests), or null when they could not be
 * made here (the main thread then makes them); its answer when asked to read back (see TraceSource.readBackOnHelper).
 */
export type WorkerMessage =
  | { scan: ThreadScan }
  | { digests: Uint8Array | null }
  | { helped: unknown }
  | DecodeMessage
  | { internal: string };

/** What the main thread asks of a helper done scanning (see Helper.help). */
export interface HelpMessage {
  help: unknown;
}
