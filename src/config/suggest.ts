import { distance } from 'fastest-levenshtein';

/** The closest candidate to a misspelt name, if it is close enough to be what was meant. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(2, Math.floor(name.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

export function didYouMean(name: string, candidates: readonly string[]): string {
  const match = closest(name, candidates);
  return match ? `; did you mean ${JSON.stringify(match)}?` : '';
}
