/**
 * What a suite's offenders are, in words every renderer shares. Some kinds list items that failed a check
 * the gates count (an answer judged wrong, an unstable question); the others list items under a bar of
 * their own (a query below its ideal ranking, a request slower than the P95, a task that missed a file),
 * which passing gates allow: calling those "failing" would contradict a PASS.
 */
const FAILED_ITEMS: ReadonlySet<string> = new Set(['grounded-qa', 'stability']);

/** Whether the offenders of `kind` are items below a per-item bar rather than failed items. */
export function belowItemBar(kind: string): boolean {
  return !FAILED_ITEMS.has(kind);
}

/** "5 failing items", "1 item below the per-item bar". */
export function offenderCount(kind: string, n: number): string {
  const items = n === 1 ? 'item' : 'items';
  return belowItemBar(kind) ? `${n} ${items} below the per-item bar` : `${n} failing ${items}`;
}

/** The bar, as the suite names it: its offenders' labels, each once, in order ("relevant_missed, misranked"). */
export function itemBarLabels(offenders: readonly { labels: readonly string[] }[]): string[] {
  return [...new Set(offenders.flatMap((o) => o.labels))];
}
