import { readFileSync } from 'node:fs';
import path from 'node:path';
import { displayPath, InputError } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import { validateLine } from '../../io/validate.js';
import {
  qrelsLineSchema,
  rankedLineSchema,
  scoredLineSchema,
  type Format,
  type QrelsFormat,
  type QrelsQuery,
  type RunRecord,
  type Source,
} from './contract.js';
import { forEachDatasetJudgment } from './llamaindex.js';
import { forEachTrecJudgment, forEachTrecRun } from './scan.js';

/**
 * The declared format, else by extension: `.jsonl` and `.json` are JSON Lines, anything else TREC. A LlamaIndex
 * dataset is never guessed: a `.json` file is JSON Lines unless `qrels_format: llamaindex` says otherwise.
 */
export function formatOf<F extends QrelsFormat>(file: string, declared: F | undefined): F | Format {
  if (declared) return declared;
  const ext = path.extname(file).toLowerCase();
  return ext === '.jsonl' || ext === '.json' ? 'jsonl' : 'trec';
}

interface Judgment {
  qid: string;
  docid: string;
  rel: number;
  line: number;
}

/**
 * Calls `visit` for each judgment of a qrels file, in file order (a callback: no promise per line). The
 * judgment object may be reused for the next line: `visit` copies what it keeps.
 */
async function forEachJudgment(
  file: string,
  format: QrelsFormat,
  visit: (judgment: Judgment) => void,
): Promise<void> {
  if (format === 'llamaindex') {
    forEachDatasetJudgment(file, visit);
    return;
  }
  if (format === 'jsonl') {
    for await (const { line, value } of readJsonl(file)) {
      const j = validateLine(qrelsLineSchema, value, file, line, 'a qrels judgment {qid, docid, rel}');
      visit({ qid: j.qid, docid: j.docid, rel: j.rel, line });
    }
    return;
  }
  await forEachTrecJudgment(file, visit);
}

/** Reads every judgment into memory (qrels are small next to runs): qid → docid → grade. */
export async function loadQrels(
  files: readonly string[],
  format: QrelsFormat | undefined,
): Promise<Map<string, QrelsQuery>> {
  const queries = new Map<string, QrelsQuery>();
  for (const file of files) {
    let duplicate: Judgment | undefined;
    await forEachJudgment(file, formatOf(file, format), (j) => {
      if (duplicate) return;
      let query = queries.get(j.qid);
      if (!query) {
        query = { grades: new Map(), source: { file, line: j.line } };
        queries.set(j.qid, query);
      }
      if (query.grades.has(j.docid))
        duplicate = { ...j }; // a copy: `j` is reused for the next line
      else query.grades.set(j.docid, j.rel);
    }).catch((err: unknown) => {
      throw format === undefined && isDataset(file) ? datasetByExtension(file) : err;
    });
    if (duplicate) {
      const { qid, docid, line } = duplicate;
      const first = await firstJudgment(files, format, qid, docid);
      throw new InputError(
        { file, line },
        `duplicate judgment of docid ${JSON.stringify(docid)} for qid ${JSON.stringify(qid)} (first at ${at(first, file)}); expected one judgment per qid and docid`,
      );
    }
  }
  if (queries.size === 0) {
    throw new InputError({ file: files[0] ?? 'qrels' }, 'qrels are empty; expected at least one judgment');
  }
  return queries;
}

/** A `.json` file that is one JSON document with relevant_docs: LlamaIndex's dataset (read only on an error). */
function isDataset(file: string): boolean {
  if (path.extname(file).toLowerCase() !== '.json') return false;
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { relevant_docs?: unknown } | null;
    return typeof json?.relevant_docs === 'object' && json.relevant_docs !== null;
  } catch {
    return false;
  }
}

function datasetByExtension(file: string): InputError {
  return new InputError(
    { file },
    'found a LlamaIndex EmbeddingQAFinetuneDataset (relevant_docs), read as JSON Lines by its .json extension; expected qrels_format: llamaindex in the suite',
  );
}

/** Only a duplicate needs to know where the first judgment was, so it is looked up again rather than kept. */
async function firstJudgment(
  files: readonly string[],
  format: QrelsFormat | undefined,
  qid: string,
  docid: string,
): Promise<Source> {
  for (const file of files) {
    let line: number | undefined;
    await forEachJudgment(file, formatOf(file, format), (j) => {
      if (line === undefined && j.qid === qid && j.docid === docid) line = j.line;
    });
    if (line !== undefined) return { file, line };
  }
  throw new InputError({ file: files[0]! }, 'qrels changed while being read; expected a stable file');
}

/** "line 4" in the same file, else "file:4". */
export function at(source: Source, file: string): string {
  return source.file === file ? `line ${source.line}` : `${displayPath(source.file)}:${source.line}`;
}

const RUN_LINE = 'a run line {qid, docid, score} or {qid, ranked: [docid, ...]}';

/**
 * Streams a run's lines to `visit` in file order, one record at a time: nothing of a line outlives the
 * call unless `visit` keeps it. A TREC record object is reused for the next line, and its docid may be a
 * slice of the chunk being read: `visit` copies what it keeps past the query's block.
 */
export async function forEachRunRecord(
  files: readonly string[],
  format: Format | undefined,
  visit: (record: RunRecord) => void,
): Promise<void> {
  for (const file of files) {
    if (formatOf(file, format) === 'trec') {
      await forEachTrecRun(file, visit);
      continue;
    }
    for await (const { line, value } of readJsonl(file)) {
      if (value !== null && typeof value === 'object' && 'ranked' in value) {
        const r = validateLine(rankedLineSchema, value, file, line, RUN_LINE);
        visit({ qid: r.qid, ranked: r.ranked, file, line });
      } else {
        const r = validateLine(scoredLineSchema, value, file, line, RUN_LINE);
        visit({ qid: r.qid, docid: r.docid, score: r.score, file, line });
      }
    }
  }
}
