// Citations written into the claim as markers (`citation_markers:`, docs/formats.md "Inline citation
// markers"): each match of the pattern is one citation, its one capture group a 1-based rank in
// retrieved_ids or the chunk id itself.
import { compiled } from '../config/pattern.js';

/** `citation_markers:` as gates.yaml gives it (see config.ts). */
export interface MarkerSettings {
  pattern: string;
  refers_to: 'rank' | 'id';
}

/** The settings as judging reads them: plain data, so they cross to worker threads. */
export interface Markers {
  /** The source, compiled where first used (see pattern.ts); every match of the claim is read. */
  pattern: string;
  rank: boolean;
}

export const compileMarkers = (s: MarkerSettings): Markers => ({
  pattern: s.pattern,
  rank: s.refers_to === 'rank',
});

/**
 * The citations a claim's markers make, in order of first appearance, each once. A rank that names no
 * retrieved id (0, past the end, not a number) cites nothing the model was given: it is listed as `[n]`,
 * for the offenders to show, and `stray` says so, for judging to count the answer out of scope.
 */
export function markedCitations(
  claim: string,
  retrieved: readonly string[],
  m: Markers,
): { ids: string[]; stray: boolean } {
  const ids: string[] = [];
  // A claim of 40k markers checked each against a list took 7.7 s; a set keeps it linear.
  const seen = new Set<string>();
  let stray = false;
  for (const match of compiled(m.pattern).matchAll(claim)) {
    const text = match[1];
    if (text === undefined) continue;
    let id = text;
    if (m.rank) {
      const rank = /^\d{1,9}$/.test(text) ? Number(text) : 0;
      if (rank >= 1 && rank <= retrieved.length) id = retrieved[rank - 1]!;
      else {
        id = `[${text}]`;
        stray = true;
      }
    }
    if (!seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  return { ids, stray };
}
