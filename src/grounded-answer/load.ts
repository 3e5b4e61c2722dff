import { formatWhere, InputError, preview, recordWord, type Where } from '../errors.js';
import { GoldDigester, type GoldDigest } from '../gold/digest.js';
import { isBlank, parseJsonLine, readLineBatches, type LineRef } from '../io/jsonl.js';
import { recordChecker, type FieldMap } from '../io/field-map.js';
import { isParquet, readRecordsOf, refOf } from '../io/records.js';
import { GOLD_WHAT, goldLineSchema, goldShape, goldTest, type GoldItem } from './contract.js';
import { GoldStore } from './gold-item.js';
import { goldFields, loadedGold, mappedGoldScanner, scanGoldLine, type LoadedGold } from './gold-scan.js';
import type { RunsLoad } from './pipeline/judged-runs.js';
import type { Judging } from './judging.js';
import { startReading } from './pipeline/pipeline.js';
import type { ScoreOptions } from './score-options.js';
import { CANONICAL_TRACES, type TraceInput } from './trace-input.js';
import { sourceFor, sourceNamed } from './sources/index.js';

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
  const checker = recordChecker(goldLineSchema, goldTest, options.fields, GOLD_WHAT, goldShape);
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
 * Starts reading the traces with the source the registry picks for them (see sources.ts and pipeline.ts):
 * on a large input, helpers start at once, while the main thread loads gold, and it joins them in finish().
 * `goldFiles`, JSON Lines, are digested by a helper where a core is spare for it.
 */
export function startJudging(
  traceFiles: readonly string[],
  options: ScoreOptions,
  goldFiles: readonly string[] = [],
): Judging {
  return startReading(
    sourceFor(traceFiles, options.traces ?? CANONICAL_TRACES),
    traceFiles,
    options,
    goldFiles,
  );
}

/**
 * Whether these trace files, read as `input` says, name their gold item by its question rather than its qid
 * (see TraceSource.byQuestion): gold is then loaded with its questions (see loadGold).
 */
export const matchesByQuestion = (
  traceFiles: readonly string[],
  input: TraceInput = CANONICAL_TRACES,
): boolean => sourceFor(traceFiles, input).byQuestion?.(input) ?? false;

/** Whether these trace files, read as `input` says, are assembled from spans (see TraceSource.readsSpans). */
export const readsSpans = (traceFiles: readonly string[], input: TraceInput): boolean =>
  sourceFor(traceFiles, input).readsSpans?.(input) ?? false;

/** Judges traces against gold already in memory; `questions` maps a gold question to its qid (see loadGold). */
export function judgeRuns(
  files: readonly string[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
  questions?: ReadonlyMap<string, string>,
): Promise<RunsLoad> {
  return startJudging(files, options).finish(gold, questions);
}

/**
 * Judges traces that are records in one pass on this thread (see records-source.ts), whatever their format:
 * the reference the threaded sources are tested against.
 */
export function judgeRecords(
  files: readonly string[],
  gold: readonly GoldItem[],
  options: ScoreOptions,
  questions?: ReadonlyMap<string, string>,
): Promise<RunsLoad> {
  return startReading(sourceNamed('records'), files, options).finish(gold, questions);
}
