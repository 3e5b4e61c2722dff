import type { BaselineSource } from './schema.js';

/**
 * "Compared with abc1234 (base commit, 2 days old)": which report the deltas are against. The source's
 * fields passed the report schema (40-hex shas, an ISO time), so a sha is safe in a link; the branch and a
 * file name are not, and go through `escape`.
 */
export function describeBaselineSource(
  source: BaselineSource,
  how: {
    /** Renders a commit: a link in Markdown, the short sha in text. */
    commit: (sha: string) => string;
    escape: (text: string) => string;
    /** The time to count the age from; none, no age. */
    now?: number;
  },
): string {
  if ('source' in source) {
    const made =
      source.commit === null
        ? 'at no commit (outside a git repository, or before its first)'
        : `at ${how.commit(source.commit)}`;
    return `Compared with the committed baseline ${how.escape(source.file)}, made ${made}.`;
  }
  const age =
    how.now !== undefined && source.committed_at ? ageOf(Date.parse(source.committed_at), how.now) : '';
  const parts = [`run ${source.run_id}`, ...(age ? [age] : [])];
  if (!source.fallback_from)
    return `Compared with ${how.commit(source.commit)}, the base commit (${parts.join(', ')}).`;
  const branch = source.branch ? ` on ${how.escape(source.branch)}` : '';
  return `Compared with ${how.commit(source.commit)}, the newest report${branch}: the base commit ${how.commit(source.fallback_from)} has none (${parts.join(', ')}).`;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** "2 days old": the largest whole unit; a clock behind the commit says "new". */
export function ageOf(then: number, now: number): string {
  if (!Number.isFinite(then)) return '';
  const minutes = Math.floor((now - then) / 60_000);
  if (minutes < 1) return 'new';
  const [n, unit] =
    minutes < 60
      ? [minutes, 'minute']
      : minutes < 48 * 60
        ? [Math.floor(minutes / 60), 'hour']
        : [Math.floor(minutes / 1440), 'day'];
  return `${n} ${unit}${n === 1 ? '' : 's'} old`;
}
