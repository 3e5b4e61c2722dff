import { distance } from 'fastest-levenshtein';

/**
 * Levenshtein distance over the longer length: 0 for equal strings, 1 for strings with nothing in common
 * (max(|a|, |b|, 1), as the seed defines it, so two empty strings are at distance 0). Lengths and edits
 * count UTF-16 code units.
 */
export function normalizedEditDistance(a: string, b: string): number {
  return distance(a, b) / Math.max(a.length, b.length, 1);
}
