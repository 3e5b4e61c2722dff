import { InputError } from '../../../errors.js';
import type { ChunkQueue } from '../../../io/chunk-queue.js';
import type { Segment } from '../../../io/split.js';
import type { TraceLine } from '../../contract.js';
import type { ChunkError } from '../../pipeline/chunk-scan.js';
import { holdRuns, type HeldRuns, type RawMembers } from '../held-lines.js';
import { ANSWER, memberShapes, STRINGS } from '../../member-shapes.js';
import { replaces } from '../../pipeline/runs.js';
import type { TraceInput } from '../../trace-input.js';
import { timestamp } from '../../timestamp.js';
import { traceChecker } from '../../trace-checks.js';
import { holdUsages, usageOrError, type HeldUsages } from '../../../cost/held-usages.js';
import { recordUsage, type Usage } from '../../../cost/usage.js';

// Parquet traces decoded by threads, a window of rows each at a time: decoding (hyparquet, in JavaScript)
// is most of the time a Parquet run takes. A row is a whole run, so each thread keeps, per qid, its winning
// run (see replaces) and what judging reads of it; this thread folds them into one winner per gold item, the
// one a single pass in file order picks, and judges it. A window's chunk is a Segment whose start and end
// are rows, not bytes.

/** What one thread kept of the windows it decoded: per qid (by slot), its winning run and how many it had. */
export interface ParquetScan {
  qids: string[];
  count: Float64Array;
  ts: Float64Array;
  chunk: Int32Array;
  /** The winning run's row, numbered from 1 in its file (its line, to the pick: see Slots). */
  line: Float64Array;
  /** What judging reads of each slot's winning run (see held-lines.ts). */
  held: HeldRuns;
  /** When the input asks for usage (TraceInput.usage), each slot's winning run's. */
  usage?: HeldUsages;
  /** Rows read. */
  rows: number;
  utf8?: [string, number][];
  /** The input error that stopped this thread. */
  error?: ChunkError;
}

/**
 * Reads the windows this thread claims, keeping per qid its winning run's record. A helper, `watched` by the
 * main thread for a window whose decoding never ends, decodes on its own thread; the main thread reads
 * through readParquet, which guards itself.
 */
export async function scanParquetRuns(
  queue: ChunkQueue<Segment>,
  input: TraceInput,
  watched: boolean,
): Promise<ParquetScan> {
  const { readParquet, readParquetHere, JsonText } = await import('../../../io/parquet.js');
  // On a helper's own decoding, the JSON of a trace in the contract's shape is checked on its bytes and kept
  // as bytes; only the winners are read, on the judging thread.
  const rawJson = watched && !input.fields ? RAW_JSON : undefined;
  const shapeOf = memberShapes();
  /** The JSON bytes of a row's members retrieved_ids and answer_json, when both check on their bytes. */
  const rawMembers = (row: Record<string, unknown>): RawMembers | undefined => {
    const ids = row.retrieved_ids;
    const answer = row.answer_json;
    const idsRaw = ids instanceof JsonText;
    const answerRaw = answer instanceof JsonText;
    // A row with a refused flag is read whole: the flag is judged with the members.
    if (
      idsRaw &&
      answerRaw &&
      ids.shape === STRINGS &&
      answer.shape === ANSWER &&
      row.refused === undefined
    ) {
      // Values the contract accepts stand in for the two checked, so the rest of the row checks as it would.
      row.retrieved_ids = NO_IDS;
      row.answer_json = NO_ANSWER;
      return [ids.bytes, answer.bytes];
    }
    if (idsRaw) row.retrieved_ids = ids.value();
    if (answerRaw) row.answer_json = answer.value();
    return undefined;
  };
  const checker = traceChecker(input);
  const slots = new Map<string, number>();
  const qids: string[] = [];
  const count: number[] = [];
  const ts: number[] = [];
  const chunks: number[] = [];
  const rowAt: number[] = [];
  /**
   * Per slot, the winning run: its record, or the JSON bytes of its members judging reads, checked on their
   * bytes, as views of the pages they were decoded in. Decoding or copying every run's members instead cost
   * more than the pages kept: most runs are superseded.
   */
  const records: (TraceLine | RawMembers)[] = [];
  /** Per slot, the winning run's usage when asked, or the error its counts are (thrown if it wins). */
  const usages: (Usage | InputError | undefined)[] | undefined = input.usage ? [] : undefined;
  let rows = 0;
  const result = (error?: ParquetScan['error']): ParquetScan => ({
    qids,
    count: Float64Array.from(count),
    ts: Float64Array.from(ts),
    chunk: Int32Array.from(chunks),
    line: Float64Array.from(rowAt),
    held: holdRuns(qids, records),
    ...(usages && { usage: holdUsages(usages) }),
    rows,
    ...(error ? { error } : {}),
  });
  for (let next = queue.claim(); next; next = queue.claim()) {
    const { index: chunk } = next;
    const { file, start, end } = next.chunk;
    try {
      const range = { start, end, rawJson, shapeOf };
      for await (const { line, value } of (watched ? readParquetHere : readParquet)(file, range)) {
        const raw = rawJson && rawMembers(value as Record<string, unknown>);
        const t = checker.check(value, file, line);
        const time = timestamp(t.ts, file, line);
        rows++;
        const slot = slots.get(t.qid);
        if (slot === undefined) {
          slots.set(t.qid, qids.length);
          qids.push(t.qid);
          count.push(1);
          ts.push(time);
          chunks.push(chunk);
          rowAt.push(line);
          records.push(raw || t);
          usages?.push(usageOrError(() => recordUsage(t, { file, line })));
          continue;
        }
        count[slot]!++;
        if (!replaces(time, chunk, line, ts[slot]!, chunks[slot]!, rowAt[slot]!)) continue;
        ts[slot] = time;
        chunks[slot] = chunk;
        rowAt[slot] = line;
        records[slot] = raw || t;
        if (usages) usages[slot] = usageOrError(() => recordUsage(t, { file, line }));
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      queue.fail(chunk);
      return result({ chunk, where: err.where, detail: err.detail });
    }
  }
  return result();
}

const RAW_JSON: ReadonlySet<string> = new Set(['retrieved_ids', 'answer_json']);
const NO_IDS: readonly string[] = [];
const NO_ANSWER = { claim: '', citations: [] };
