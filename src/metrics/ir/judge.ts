/**
 * A ranking as every IR measure sees it, formed once per query (trec_eval's form_res_rels.c): for each
 * retrieved doc in rank order, whether it is relevant and its gain, plus the query's judged totals.
 */
export interface Judged {
  /** `relevant[i]`: the doc at rank i + 1 has a judged grade ≥ the relevance level. */
  relevant: readonly boolean[];
  /** `gains[i]`: the grade of the doc at rank i + 1 when it is judged > 0, else 0. */
  gains: readonly number[];
  /** R: judged relevant docs of the query, retrieved or not. */
  numRel: number;
  /** Every judged grade > 0, highest first: the ideal ranking's gains. */
  idealGains: readonly number[];
}

/**
 * Judges a ranking (docids best first) against a query's graded qrels. Relevant means a grade ≥
 * `relevanceLevel`; a negative grade is judged "unjudged" as in trec_eval: never relevant, no gain, not in R.
 * A doc missing from the qrels is non-relevant. Gains are the raw grades whatever the relevance level
 * (trec_eval's ndcg ignores `-l`), so binary qrels (every grade 1) give binary gains.
 */
export function judge(
  ranking: readonly string[],
  qrels: ReadonlyMap<string, number>,
  relevanceLevel = 1,
): Judged {
  const isRelevant = (grade: number) => grade >= 0 && grade >= relevanceLevel;
  const relevant: boolean[] = [];
  const gains: number[] = [];
  for (const docid of ranking) {
    const grade = qrels.get(docid);
    relevant.push(grade !== undefined && isRelevant(grade));
    gains.push(grade !== undefined && grade > 0 ? grade : 0);
  }
  let numRel = 0;
  const idealGains: number[] = [];
  for (const grade of qrels.values()) {
    if (isRelevant(grade)) numRel++;
    if (grade > 0) idealGains.push(grade);
  }
  idealGains.sort((a, b) => b - a);
  return { relevant, gains, numRel, idealGains };
}

/** Relevant docs among the first `n` ranks (fewer when the ranking is shorter). */
export function hits(j: Judged, n: number): number {
  const end = Math.min(n, j.relevant.length);
  let count = 0;
  for (let i = 0; i < end; i++) if (j.relevant[i]) count++;
  return count;
}
