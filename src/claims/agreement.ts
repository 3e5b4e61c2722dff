import { cohensKappa } from '../metrics/kappa.js';
import type { Table } from '../report/schema.js';

/** Two raters' binary verdicts on the items both rated: `[first, second]`, true for "the claim holds the fact". */
export type RatedPair = readonly [boolean, boolean];

/** The 2×2 of two binary raters, percent agreement and Cohen's κ (null, with why, when κ is 0/0). */
export interface Agreement {
  /** [[yes·yes, yes·no], [no·yes, no·no]]: rows the first rater, columns the second. */
  matrix: [[number, number], [number, number]];
  items: number;
  /** Share of items on the diagonal; null without items. */
  percent: number | null;
  kappa: number | null;
  /** Why κ is not computable. */
  kappaReason?: string;
}

export function agreement(pairs: readonly RatedPair[]): Agreement {
  const matrix: Agreement['matrix'] = [
    [0, 0],
    [0, 0],
  ];
  for (const [a, b] of pairs) matrix[a ? 0 : 1][b ? 0 : 1]++;
  const kappa = cohensKappa(matrix);
  const items = pairs.length;
  return {
    matrix,
    items,
    percent: items === 0 ? null : (matrix[0][0] + matrix[1][1]) / items,
    kappa: kappa.value,
    ...(kappa.value === null && kappa.reason ? { kappaReason: kappa.reason } : {}),
  };
}

/** The 2×2 of the deterministic tiers (rows) against the judge (columns), as a report table. */
export function matrixTable(a: Agreement): Table {
  return {
    title: 'claims: deterministic match (rows) vs judge (columns), items with both verdicts',
    columns: ['match \\ judge', 'SUPPORTED', 'NOT_SUPPORTED or UNCLEAR'],
    rows: [
      ['hit', a.matrix[0][0], a.matrix[0][1]],
      ['miss', a.matrix[1][0], a.matrix[1][1]],
    ],
  };
}

/** One row per pair of raters: items rated by both, percent agreement, κ ("n/a" when undefined). */
export function agreementTable(rows: readonly (readonly [string, Agreement])[]): Table {
  return {
    title: "claims: agreement (Cohen's kappa)",
    columns: ['raters', 'items', 'agreement', 'kappa'],
    rows: rows.map(([raters, a]) => [raters, a.items, a.percent, a.kappa ?? 'n/a']),
  };
}
