import { InputError } from '../../errors.js';
import { judge, type IrMeasure, type Judged } from '../../metrics/ir.js';
import {
  isRanked,
  type Format,
  type QrelsFormat,
  type QrelsQuery,
  type RunRecord,
  type Source,
} from './contract.js';
import { at, forEachRunRecord, loadQrels } from './load.js';
import { compareUtf8, rankByScore } from './order.js';

/** One measure to compute per query; `k` is the cutoff of a family (unused by the others). */
export interface MeasureRequest {
  name: string;
  measure: IrMeasure;
  k: number;
}

export interface RankingOptions {
  qrels: readonly string[];
  run: readonly string[];
  qrelsFormat?: QrelsFormat;
  runFormat?: Format;
  relevanceLevel: number;
  /** trec_eval -c: qrels queries missing from the run score 0 instead of being skipped. */
  complete: boolean;
  measures: readonly MeasureRequest[];
  /** The measure (an index into `measures`) that decides which queries offend, and the cutoff for `missed`. */
  offender: { index: number; k: number };
}

/** How many relevant docs missed to list per offending query. */
const MISSED_SHOWN = 5;

export interface QueryResult {
  qid: string;
  /** One value per requested measure, in the same order. */
  values: number[];
  retrieved: number;
  relevant: number;
  relevantRetrieved: number;
  firstRelevantRank: number | null;
  /** The offender measure is below what the ideal ranking gets, or the query has nothing relevant judged. */
  offending: boolean;
  /** For an offending query: its best relevant docs not in the top k, best grade first. */
  missed: string[];
  qrelsSource: Source;
  /** The query's first run line; undefined when it is not in the run (scored 0 with `complete`). */
  runSource?: Source;
}

export interface RankingEvaluation {
  /** Every evaluated query, in qid byte order (trec_eval's order). */
  queries: QueryResult[];
  /** The mean of each requested measure over `queries`, summed in that order; null when none was evaluated. */
  means: (number | null)[];
  qrelsQueries: number;
  /** Distinct qids in the run, judged or not. */
  runQueries: number;
  /** qrels queries missing from the run and not evaluated (none with `complete`). */
  skipped: string[];
  /** qrels queries missing from the run that were scored 0 (`complete`). */
  zeroed: string[];
  /** Run qids that have no judgments, with how many lines each had. */
  runOnly: Map<string, number>;
}

/** Scores a run against qrels as trec_eval does (see scanRun and summarize). */
export async function evaluateRanking(options: RankingOptions): Promise<RankingEvaluation> {
  const qrels = await loadQrels(options.qrels, options.qrelsFormat);
  return summarize(qrels, await scanRun(qrels, options), options);
}

/** What reading a run found: each judged query's result, every qid in the run, and those without judgments. */
export interface RunScan {
  results: Map<string, QueryResult>;
  seen: Set<string>;
  runOnly: Map<string, number>;
}

/**
 * Scores each judged query of the run, streaming it: a run grouped by qid (the usual case) holds one query's
 * docs at a time, each query scored as soon as its lines end. A qid that comes back after its lines ended is
 * set aside and read again, buffered, in a second pass over the run.
 */
export async function scanRun(qrels: Map<string, QrelsQuery>, options: RankingOptions): Promise<RunScan> {
  const results = new Map<string, QueryResult>();
  const finish = (block: Block) => {
    block.checkDuplicates();
    const judged = qrels.get(block.qid);
    if (judged) {
      results.set(block.qid, scoreQuery(block.qid, block.ranking(), judged, options, block.source));
    }
  };

  const seen = new Set<string>();
  const reappeared = new Set<string>();
  const runOnly = new Map<string, number>();
  let current: Block | undefined;
  let currentQid: string | undefined;
  await forEachRunRecord(options.run, options.runFormat, (record) => {
    if (!qrels.has(record.qid)) runOnly.set(record.qid, (runOnly.get(record.qid) ?? 0) + 1);
    if (record.qid === currentQid) {
      current?.add(record);
      return;
    }
    if (current) finish(current);
    currentQid = record.qid;
    if (seen.has(record.qid)) {
      reappeared.add(record.qid);
      current = undefined;
      return;
    }
    seen.add(record.qid);
    current = new Block(record);
  });
  if (current) finish(current);

  if (reappeared.size > 0) {
    const buffered = new Map<string, Block>();
    await forEachRunRecord(options.run, options.runFormat, (record) => {
      if (!reappeared.has(record.qid)) return;
      const block = buffered.get(record.qid);
      if (block) block.add(record);
      else buffered.set(record.qid, new Block(record, { detach: true }));
    });
    for (const block of buffered.values()) finish(block);
  }
  return { results, seen, runOnly };
}

/** The evaluation from a scan: qrels queries missing from the run skipped (or scored 0), the means. */
export function summarize(
  qrels: Map<string, QrelsQuery>,
  { results, seen, runOnly }: RunScan,
  options: Pick<RankingOptions, 'complete' | 'measures' | 'relevanceLevel' | 'offender'>,
): RankingEvaluation {
  const skipped: string[] = [];
  const zeroed: string[] = [];
  for (const [qid, judged] of qrels) {
    if (seen.has(qid)) continue;
    if (!options.complete) {
      skipped.push(qid);
      continue;
    }
    zeroed.push(qid);
    results.set(qid, scoreQuery(qid, [], judged, options, undefined));
  }

  const queries = [...results.values()].sort((a, b) => compareUtf8(a.qid, b.qid));
  const means = options.measures.map((_, i) => {
    if (queries.length === 0) return null;
    let sum = 0;
    for (const q of queries) sum += q.values[i]!;
    return sum / queries.length;
  });
  return {
    queries,
    means,
    qrelsQueries: qrels.size,
    runQueries: seen.size,
    skipped: skipped.sort(compareUtf8),
    zeroed: zeroed.sort(compareUtf8),
    runOnly,
  };
}

function scoreQuery(
  qid: string,
  ranking: readonly string[],
  judged: QrelsQuery,
  options: Pick<RankingOptions, 'measures' | 'relevanceLevel' | 'offender'>,
  runSource: Source | undefined,
): QueryResult {
  const level = options.relevanceLevel;
  const j = judge(ranking, judged.grades, level);
  const values = options.measures.map((m) => m.measure.compute(j, m.k));
  const { index, k } = options.offender;
  const request = options.measures[index]!;
  const ideal = request.measure.compute(idealJudged(j, judged.grades, level), request.k);
  const offending = j.numRel === 0 || values[index]! < ideal;
  const firstRelevant = j.relevant.indexOf(true);
  return {
    qid,
    values,
    retrieved: ranking.length,
    relevant: j.numRel,
    relevantRetrieved: j.relevant.filter(Boolean).length,
    firstRelevantRank: firstRelevant === -1 ? null : firstRelevant + 1,
    offending,
    missed: offending ? missedRelevant(ranking, judged.grades, level, k) : [],
    qrelsSource: judged.source,
    runSource,
  };
}

/**
 * The ideal ranking judged: every judged doc, highest grade first, the ranking that scores best on every
 * measure. Equal grades judge alike, so which doc comes first among them does not matter; R and the ideal
 * gains are the query's, as in `j`.
 */
function idealJudged(j: Judged, grades: ReadonlyMap<string, number>, level: number): Judged {
  const sorted = [...grades.values()].filter((grade) => grade >= 0).sort((a, b) => b - a);
  return {
    relevant: sorted.map((grade) => grade >= level),
    gains: sorted.map((grade) => (grade > 0 ? grade : 0)),
    numRel: j.numRel,
    idealGains: j.idealGains,
  };
}

function missedRelevant(
  ranking: readonly string[],
  grades: ReadonlyMap<string, number>,
  level: number,
  k: number,
): string[] {
  const top = new Set(ranking.slice(0, k));
  return [...grades]
    .filter(([docid, grade]) => grade >= 0 && grade >= level && !top.has(docid))
    .sort(([a, ga], [b, gb]) => gb - ga || compareUtf8(a, b))
    .slice(0, MISSED_SHOWN)
    .map(([docid]) => docid);
}

/**
 * One query's run lines, kept compactly (parallel arrays, no object per line) until the query can be
 * ranked: either scored lines, or a single `{qid, ranked}` line whose order is the ranking.
 */
class Block {
  readonly qid: string;
  readonly source: Source;
  private readonly docids: string[] = [];
  private readonly scores: number[] = [];
  private readonly files: string[] = [];
  private readonly lines: number[] = [];
  private ranked = false;
  /**
   * Copy each docid out of its line. A docid sliced from a line keeps the whole line alive: harmless for the
   * block being read, but a query buffered for the second pass would hold every line of it.
   */
  private readonly detach: boolean;

  constructor(first: RunRecord, { detach = false } = {}) {
    this.qid = first.qid;
    this.source = { file: first.file, line: first.line };
    this.detach = detach;
    this.add(first);
  }

  add(record: RunRecord): void {
    if (this.ranked || (isRanked(record) && this.lines.length > 0)) {
      throw new InputError(
        { file: record.file, line: record.line },
        `qid ${JSON.stringify(this.qid)} has a {qid, ranked} line and other run lines (first at ${at(this.source, record.file)}); expected a {qid, ranked} line to be the query's only line`,
      );
    }
    if (isRanked(record)) {
      this.ranked = true;
      const first = new Map<string, number>();
      record.ranked.forEach((docid, i) => {
        const earlier = first.get(docid);
        if (earlier !== undefined) {
          throw new InputError(
            { file: record.file, line: record.line },
            `qid ${JSON.stringify(this.qid)}: ranked[${i}] repeats docid ${JSON.stringify(docid)} of ranked[${earlier}]; expected each docid once per query`,
          );
        }
        first.set(docid, i);
      });
      this.docids.push(...record.ranked);
      return;
    }
    this.docids.push(this.detach ? Buffer.from(record.docid).toString() : record.docid);
    this.scores.push(record.score);
    this.files.push(record.file);
    this.lines.push(record.line);
  }

  /** A docid retrieved twice for the query is an input error naming both lines. */
  checkDuplicates(): void {
    if (this.ranked) return; // checked as the line was read
    const seen = new Set<string>();
    const docids = this.docids;
    for (let i = 0; i < docids.length; i++) {
      const before = seen.size;
      seen.add(docids[i]!);
      if (seen.size === before) this.duplicate(i);
    }
  }

  /** The error for the docid at `i`, which an earlier line of the block already retrieved. */
  private duplicate(i: number): never {
    const docid = this.docids[i]!;
    const earlier = this.docids.indexOf(docid);
    const file = this.files[i]!;
    throw new InputError(
      { file, line: this.lines[i]! },
      `duplicate docid ${JSON.stringify(docid)} for qid ${JSON.stringify(this.qid)} (first at ${at({ file: this.files[earlier]!, line: this.lines[earlier]! }, file)}); expected each docid once per query`,
    );
  }

  /** The docids, best first. */
  ranking(): string[] {
    if (this.ranked) return this.docids;
    return rankByScore(this.docids, this.scores).map((i) => this.docids[i]!);
  }
}
