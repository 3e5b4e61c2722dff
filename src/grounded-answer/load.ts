import { traceChecker } from './trace-checks.js';
import { formatWhere, InputError, preview, recordWord, type Where } from '../errors.js';
import { GoldDigester, type GoldDigest } from '../gold/digest.js';
import { isBlank, parseJsonLine, readLineBatches, type LineRef } from '../io/jsonl.js';
import type { Segment } from '../io/split.js';
import { byLines, gatherScans, spawn, startThreads, stopHelpers, type Helper } from './threads.js';
import { lineBases, throwFirstError } from './chunk-scan.js';
import { recordChecker, type FieldMap } from '../io/field-map.js';
import { isParquet } from '../io/records.js';
import { readRecordsOf, refOf } from '../io/records.js';
import { GOLD_WHAT, goldLineSchema, goldTest, type GoldItem, type TraceLine } from './contract.js';
import { GoldStore } from './gold-item.js';
import { goldFields, loadedGold, mappedGoldScanner, scanGoldLine, type LoadedGold } from './gold-scan.js';
import { judgeOptions } from './judge.js';
import { heldRuns, inMemory, judged, judgeHeld, type RunsLoad } from './judged-runs.js';
import type { Judging, RecordJudging } from './judging.js';
import { newRunTable, offer, type RunTable } from './runs.js';
import { scanRuns, type Scan } from './scan.js';
import { timestamp } from './timestamp.js';
import { readsRecords, traceRecords, CANONICAL_TRACES } from './source.js';
import { isSpanDocument } from './openinference.js';
import { goldDigestFrom, NO_DIGESTER } from './gold-digesting.js';
import { startOtlpJudging } from './otlp-judging.js';
import { startParquetJudging } from './parquet-runs.js';
import type { ScoreOptions } from './score-options.js';
import { judgeRows } from './verdicts.js';

/**
 * Reads, validates and digests the gold set in one pass: unique qids, usable substrings, answerable items
 * that can be checked.
 */
export async function loadGold(
  files: readonly string[],
  options: GoldOptions = {},
): Promise<{ items: GoldItem[]; digest: GoldDigest | undefined; questions?: Map<string, string> }> {
  const items: GoldItem[] = [];
  const store = new GoldStore();
  const digester = options.digest === false ? undefined : new GoldDigester();
  const seen = new Map<string, number>();
  const questions = options.questions ? new Map<string, string>() : undefined;
  const fields = goldFields();
  const add = (g: LoadedGold, value: unknown, source: LineRef, question?: string, digest?: Uint8Array) => {
    const where = { file: source.file, line: source.line };
    checkGoldItem(g, where, items, seen);
    seen.set(g.qid, items.length);
    digester?.add(g.qid, value, digest);
    items.push(
      store.add(
        g.qid,
        g.answerable,
        [g.gold_claim_substr, g.gold_citations, g.constraints ?? []],
        source,
        question,
      ),
    );
  };
  // Gold that is not JSON Lines in the contract's shape is read record by record.
  const byRecord = questions !== undefined || files.some(isParquet);
  const scanner = options.fields ? mappedGoldScanner(options.fields) : undefined;
  const checker = recordChecker(goldLineSchema, goldTest, options.fields, GOLD_WHAT);
  for (const file of files) {
    if (byRecord) {
      for await (const r of readRecordsOf(file, { digests: digester !== undefined })) {
        const { line, value } = r;
        const g = checker.check(value, file, line);
        add(g, value, refOf(file, r), isParquet(file) ? g.question : undefined, r.digest);
        if (questions) {
          const first = questions.get(g.question);
          if (first !== undefined)
            throw new InputError(
              { file, line },
              `qid ${JSON.stringify(g.qid)} asks the same question as qid ${JSON.stringify(first)}; expected distinct questions, which OpenInference traces are matched by (or set openinference.qid to an attribute holding the qid)`,
            );
          questions.set(g.question, g.qid);
        }
      }
      continue;
    }
    for await (const batch of readLineBatches(file)) {
      for (let i = 0; i < batch.length; i++) {
        if (batch.blank(i)) continue;
        const line = batch.line(i);
        let g: LoadedGold;
        let value: unknown;
        // The digest needs the whole value; a worker digesting (or none) leaves only the fields to build.
        if (!digester && scanGoldLine(batch.buf, batch.start(i), batch.end(i), fields, scanner)) {
          g = loadedGold(batch.buf, batch.end(i), fields);
        } else {
          const text = batch.text(i);
          if (isBlank(text)) continue; // a first line holding only a BOM: blank once text() drops it
          value = parseJsonLine(file, line, text);
          g = checker.check(value, file, line);
        }
        add(g, value, { file, line, offset: batch.offset(i), length: batch.byteLength(i) });
      }
    }
  }
  if (items.length === 0)
    throw new InputError({ file: files[0] ?? 'gold' }, 'gold set is empty; expected at least one item');
  store.seal();
  return { items, digest: digester?.finish(), ...(questions ? { questions } : {}) };
}

export interface GoldOptions {
  /** False when a worker digests the gold set instead. */
  digest?: boolean;
  /** The gold set's `fields:` mapping. */
  fields?: FieldMap;
  /** Also return each question's qid (OpenInference traces are matched to gold by their question). */
  questions?: boolean;
}

/** Unique qids, usable substrings, answerable items that can be checked. */
function checkGoldItem(
  g: LoadedGold,
  where: Where,
  items: readonly GoldItem[],
  seen: Map<string, number>,
): void {
  const firstRow = seen.get(g.qid);
  if (firstRow !== undefined) {
    const first = items[firstRow]!.source;
    const at = first.file === where.file ? `${recordWord(first.file)} ${first.line}` : formatWhere(first);
    throw new InputError(
      where,
      `duplicate qid ${JSON.stringify(g.qid)} (first defined at ${at}); expected unique qids`,
    );
  }
  g.gold_claim_substr.forEach((s, i) => {
    // A blank substring names nothing to contain; a short one is matched as a whole word (containment.ts).
    if (s.trim() === '') {
      throw new InputError(
        where,
        `qid ${JSON.stringify(g.qid)}: gold_claim_substr[${i}] ${preview(s)} is blank; expected text for the claim to contain`,
      );
    }
  });
  if (g.answerable && g.gold_claim_substr.length === 0) {
    throw new InputError(
      where,
      `qid ${JSON.stringify(g.qid)}: answerable item has no gold_claim_substr; expected at least one`,
    );
  }
  if (g.answerable && g.gold_citations.length === 0) {
    throw new InputError(
      where,
      `qid ${JSON.stringify(g.qid)}: answerable item has no gold_citations; expected at least one`,
    );
  }
}

/**
 * Starts reading the traces: on a large input, worker threads start at once, while the main thread loads
 * gold, and it joins them in finish(). Threads take chunks of whole lines in order, and a qid's winning run
 * depends only on `ts` and position in the input, so the result is the one a single pass gives, the first
 * input error in file order included. The winners alone are then read again and judged against gold.
 */
export function startJudging(
  traceFiles: readonly string[],
  options: ScoreOptions,
  goldFiles: readonly string[] = [],
): Judging {
  const fields = options.traces?.fields;
  const markers = options.traces?.markers;
  const job = { ...(fields && { fields }), ...(markers && { markers }) };
  const started = startThreads<Scan>(job, byLines(traceFiles)).then((t) => ({
    ...t,
    // Gold is digested by a worker when there are workers at all (see finish).
    digestEntry: goldFiles.length > 0 ? t.entry : undefined,
  }));
  // A missing trace file is reported by finish(), after the gold set's own errors.
  started.catch(() => undefined);

  const stop = stopHelpers;
  let digester: Helper<Scan> | undefined;
  return {
    digestsGold: started.then(
      ({ digestEntry }) => digestEntry !== undefined,
      () => false,
    ),
    async cancel() {
      const { helpers } = await started.catch(() => ({ helpers: [] as Helper<Scan>[] }));
      await stop(helpers);
    },
    async finish(gold) {
      const { chunks, queue, helpers, digestEntry } = await started;
      // Once their scans are in, the workers go, heaps and all, before judging takes memory of its own. A
      // fresh one digests gold meanwhile, on the core judging leaves idle (the scan's garbage does not come
      // along: a scan worker digesting raised the peak by 25 MB).
      const scans = await gatherScans(
        [scanRuns(queue, fields, markers), ...helpers.map((h) => h.scan)],
        helpers,
      );
      if (digestEntry)
        digester = spawn<Scan>(digestEntry, { chunks: [], shared: queue.shared, gold: [...goldFiles] });
      // Nothing here refers to the scans once folded: they can be collected while the winners are judged.
      return judgeWinners(foldScans(scans, chunks, gold, options.cutoffs.length), chunks, gold, options);
    },
    async goldDigest(gold) {
      const digests = digester && (await digester.digests);
      if (digester) await stop([digester]);
      return goldDigestFrom(digests ?? null, gold, goldFiles);
    },
  };
}

/** Judges traces against gold already in memory; `questions` maps a gold question to its qid (see loadGold). */
export function judgeRuns(
  files: readonly string[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
  questions?: ReadonlyMap<string, string>,
): Promise<RunsLoad> {
  return readsRecords(files, options.traces ?? CANONICAL_TRACES)
    ? startRecordJudging(files, options).finish(gold, questions)
    : startJudging(files, options).finish(gold);
}

/**
 * OpenInference spans in OTLP lines and Parquet rows are read by threads, which start at once (see
 * otlp-judging.ts, parquet-runs.ts); other records (a mix of files, OpenInference JSON documents) are read
 * once gold is in.
 */
export function startRecordJudging(
  files: readonly string[],
  options: ScoreOptions,
  /** JSON Lines gold for a worker to digest, where one has a core to spare for it. */
  goldFiles: readonly string[] = [],
): RecordJudging {
  const input = options.traces ?? CANONICAL_TRACES;
  if (input.format === 'openinference' && !files.some(isSpanDocument))
    return startOtlpJudging(files, options, input, goldFiles);
  if (input.format !== 'openinference' && files.length > 0 && files.every(isParquet))
    return startParquetJudging(files, options, input);
  return {
    ...NO_DIGESTER,
    finish: (gold, questions) => judgeRecords(files, gold, options, questions),
    cancel: () => Promise.resolve(),
  };
}

/**
 * Judges traces that are records rather than lines (Parquet rows, OpenInference traces), one pass in file
 * order: the winning run of each gold item (see replaces; a record's place is its file and its index) is
 * held in memory, and judged once all are read. OpenInference traces whose qid is their question are
 * matched to gold by `questions`.
 */
export async function judgeRecords(
  files: readonly string[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
  questions?: ReadonlyMap<string, string>,
): Promise<RunsLoad> {
  const input = options.traces ?? CANONICAL_TRACES;
  const byQuestion = input.format === 'openinference' && input.qid === 'input.value' ? questions : undefined;
  const checker = traceChecker(input);
  const rows = new Map<string, number>();
  gold.forEach((g, i) => rows.set(g.qid, i));
  const table = newRunTable(gold.length, options.cutoffs.length);
  const winners: (TraceLine | undefined)[] = new Array(gold.length);
  const unknown = new Map<string, number>();
  let lines = 0;
  let known = 0;
  let index = 0;
  const fileIndex = new Map(files.map((f, i) => [f, i]));
  const traceIds: string[] = [];
  for await (const { file, line, value, traceId } of traceRecords(files, input)) {
    if (traceId !== undefined) traceIds.push(traceId);
    const t = checker.check(value, file, line);
    const time = timestamp(t.ts, file, line);
    lines++;
    const qid = byQuestion ? (byQuestion.get(t.qid) ?? t.qid) : t.qid;
    const row = rows.get(qid);
    const at = index++;
    if (row === undefined) {
      unknown.set(qid, (unknown.get(qid) ?? 0) + 1);
      continue;
    }
    known++;
    if (offer(table, row, { ts: time, chunk: fileIndex.get(file)!, offset: at, line, length: 0 }))
      winners[row] = byQuestion ? { ...t, qid } : t;
  }
  const record = (row: number) => winners[row];
  judgeHeld(table, gold, record, options);
  return {
    ...heldRuns(table, inMemory(record), (row) => files[table.chunk[row]!]!, lines, known, unknown, options),
    ...(input.format === 'openinference' && { traceIds: () => traceIds }),
  };
}

/** The winning run of each gold item, from every thread's scan, and what else the scans counted. */
interface Folded {
  table: RunTable;
  lines: number;
  /** Lines of qids in gold (superseded ones included). */
  known: number;
  unknown: Map<string, number>;
}

/**
 * Folds every thread's scan into one winner per gold item. Line numbers become absolute: a chunk's count
 * from its own first line, and the lines of the same file in the chunks before it come first. Every chunk
 * before the first failed one was read whole.
 */
function foldScans(
  scans: readonly Scan[],
  chunks: readonly Segment[],
  gold: readonly GoldItem[],
  cutoffs: number,
): Folded {
  const lineBase = lineBases(scans, chunks);
  throwFirstError(scans, lineBase);

  const rows = new Map<string, number>();
  gold.forEach((g, i) => rows.set(g.qid, i));
  const table = newRunTable(gold.length, cutoffs);
  const unknown = new Map<string, number>();
  let lines = 0;
  let known = 0;
  for (const s of scans) {
    lines += s.lines;
    for (let slot = 0; slot < s.qids.length; slot++) {
      const qid = s.qids[slot]!;
      const row = rows.get(qid);
      if (row === undefined) {
        unknown.set(qid, (unknown.get(qid) ?? 0) + s.count[slot]!);
        continue;
      }
      known += s.count[slot]!;
      const chunk = s.chunk[slot]!;
      offer(table, row, {
        ts: s.ts[slot]!,
        chunk,
        offset: s.offset[slot]!,
        line: lineBase[chunk]! + s.line[slot]!,
        length: s.length[slot]!,
      });
    }
  }
  return { table, lines, known, unknown };
}

/** Reads the winners back (one pass per file) and judges them. */
async function judgeWinners(
  { table, lines, known, unknown }: Folded,
  chunks: readonly Segment[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
): Promise<RunsLoad> {
  const ref = (row: number): LineRef | undefined =>
    table.present[row]
      ? {
          file: chunks[table.chunk[row]!]!.file,
          line: table.line[row]!,
          offset: table.offset[row]!,
          length: table.length[row]!,
        }
      : undefined;
  // The winners, read back in one pass per file and judged. (Sharing them out among the
  // workers cost more in copying the jobs across than it saved, measured at 200k winners.)
  const byFile = new Map<string, number[]>();
  for (let row = 0; row < gold.length; row++) {
    if (!table.present[row]) continue;
    const file = chunks[table.chunk[row]!]!.file;
    const rows = byFile.get(file);
    if (rows) rows.push(row);
    else byFile.set(file, [row]);
  }
  const judge = judgeOptions(options.refusalToken, options.scuRules, options.cutoffs, options);
  for (const [file, rows] of byFile)
    judgeRows(file, rows, table, gold, options.scuRules, judge, options.traces);

  return { ...judged(table, lines, known, unknown, options), ref };
}
