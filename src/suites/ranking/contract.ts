import { z } from 'zod';

export const FORMATS = ['trec', 'jsonl'] as const;
export type Format = (typeof FORMATS)[number];

/** Qrels also come as LlamaIndex's retrieval dataset (EmbeddingQAFinetuneDataset.save_json): see llamaindex.ts. */
export const QRELS_FORMATS = [...FORMATS, 'llamaindex'] as const;
export type QrelsFormat = (typeof QRELS_FORMATS)[number];

const id = (what: string) => z.string().min(1, `expected a non-empty ${what}`);
const grade = z.int({ error: 'expected an integer relevance grade' });

/** A JSONL qrels line. Extra keys are allowed and ignored. */
export const qrelsLineSchema = z.looseObject({ qid: id('qid'), docid: id('docid'), rel: grade });

/** A JSONL run line with a score: ordered like a TREC run (score descending, then docid descending). */
export const scoredLineSchema = z.looseObject({
  qid: id('qid'),
  docid: id('docid'),
  score: z.number({ error: 'expected a finite number' }),
});

/** A JSONL run line with a query's whole ranking, best first: the list order is the ranking. */
export const rankedLineSchema = z.looseObject({ qid: id('qid'), ranked: z.array(id('docid')) });

export interface Source {
  file: string;
  line: number;
}

/** One judged query: docid → grade, and where its first judgment is. */
export interface QrelsQuery {
  grades: Map<string, number>;
  source: Source;
}

/** One retrieved doc of a run, from a TREC line or a `{qid, docid, score}` line. */
export interface ScoredRecord extends Source {
  qid: string;
  docid: string;
  score: number;
}

/** A `{qid, ranked}` line. */
export interface RankedRecord extends Source {
  qid: string;
  ranked: string[];
}

export type RunRecord = ScoredRecord | RankedRecord;

export function isRanked(r: RunRecord): r is RankedRecord {
  return 'ranked' in r;
}
