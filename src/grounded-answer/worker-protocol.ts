import type { FieldMap } from '../io/field-map.js';
import type { DecodeJob, DecodeMessage } from '../io/parquet.js';
import type { Segment } from '../io/split.js';
import type { HeldWinners } from './otlp-winners.js';
import type { Leases, ParquetScan } from './parquet-scan.js';
import type { OtlpScan } from './otlp-runs.js';
import type { Scan } from './scan.js';
import type { TraceInput } from './source.js';

// What the main thread and a helper (worker.ts) say to each other.

export interface WorkerInput {
  chunks: Segment[];
  /** The ChunkQueue's state, shared with the other threads. */
  shared: SharedArrayBuffer;
  /** The gold files to digest after the scan. */
  gold?: string[];
  /** The traces' `fields:` mapping, if any. */
  fields?: FieldMap;
  /** `citation_markers:` is set (see trace-checks.ts). */
  markers?: boolean;
  /** Set when the chunks are OTLP lines of OpenInference spans, to be read as this input says. */
  otlp?: TraceInput;
  /** Set when the chunks are windows of rows of Parquet traces (see parquet-runs.ts). */
  parquet?: TraceInput;
  /** When each chunk's reading began, for the main thread to watch (see Leases in parquet-runs.ts). */
  leases?: Leases;
  /** Set for a thread that only decodes rows of a Parquet file (see readParquet). */
  decode?: DecodeJob;
}

/**
 * Each gold line's digest in file order (see lineDigests), or null when they could not be made here (the
 * main thread then makes them).
 */
export type WorkerMessage =
  | { scan: Scan | OtlpScan | ParquetScan }
  | { digests: Uint8Array | null }
  | { held: HeldWinners }
  | DecodeMessage
  | { internal: string };
