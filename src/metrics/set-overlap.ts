/**
 * |∩ sets| / |∪ sets| over any number of sets (at least one): 1 when they are all equal, 0 when nothing is
 * common to all of them. Sets that are all empty are equal, so their overlap is 1.
 */
export function intersectionOverUnion(sets: readonly (readonly string[])[]): number {
  if (sets.length === 0) throw new RangeError('intersectionOverUnion: expected at least one set');
  const union = new Set<string>();
  for (const s of sets) for (const id of s) union.add(id);
  if (union.size === 0) return 1;
  let common = new Set(sets[0]);
  for (const s of sets.slice(1)) {
    const next = new Set(s);
    common = new Set([...common].filter((id) => next.has(id)));
  }
  return common.size / union.size;
}
