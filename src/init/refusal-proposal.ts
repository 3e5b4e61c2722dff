import { looksLikeRefusal } from '../grounded-answer/notices.js';
import { isRefusal, refusalRule, type RefusalSettings } from '../grounded-answer/refusal.js';

// How the pipeline words a refusal, read off its answers: claims that start alike and either read like a
// refusal (the wordings the misread warning knows) or are given to two or more questions gold calls
// unanswerable. Proposed as `refusal: { phrases }`, since the default rule (the whole claim is the token)
// misses them.

export interface RefusalProposal {
  phrases: string[];
  /** Why, for the comment: `5 of 20 sampled answers start "I don't know"`. */
  note: string;
}

/** A claim's words, its end punctuation dropped: "I don't know." → ["I", "don't", "know"]. */
const words = (claim: string) =>
  claim
    .trim()
    .replace(/[\s.!?…:;,]+$/u, '')
    .split(/\s+/)
    .filter(Boolean);

/** The longest run of leading words every claim shares, compared case-insensitively. */
function sharedStart(claims: readonly string[][]): string[] {
  const first = claims[0]!;
  let n = first.length;
  for (const c of claims.slice(1)) {
    let i = 0;
    while (i < n && i < c.length && c[i]!.toLowerCase() === first[i]!.toLowerCase()) i++;
    n = i;
  }
  return first.slice(0, n);
}

/**
 * The phrases to add to `refusal:`, or undefined when the rule in force already reads every such claim as a
 * refusal (or none is seen). `unanswerable` holds the qids gold says have no answer.
 */
export function proposeRefusal(
  traces: readonly { qid: string; answer_json: { claim: string }; refused?: boolean }[],
  unanswerable: ReadonlySet<string>,
  token: string,
  settings?: RefusalSettings,
): RefusalProposal | undefined {
  const rule = refusalRule(token, settings);
  const open = traces.filter((t) => t.refused === undefined && !isRefusal(t.answer_json.claim, rule));
  const repeated = new Map<string, Set<string>>();
  for (const t of open)
    if (unanswerable.has(t.qid)) {
      const key = words(t.answer_json.claim).join(' ').toLowerCase();
      repeated.set(key, (repeated.get(key) ?? new Set()).add(t.qid));
    }
  const refusing = open
    .filter(
      (t) =>
        looksLikeRefusal(t.answer_json.claim.toLowerCase()) ||
        (repeated.get(words(t.answer_json.claim).join(' ').toLowerCase())?.size ?? 0) >= 2,
    )
    .map((t) => words(t.answer_json.claim))
    .filter((w) => w.length > 0);
  // Claims that start alike: grouped by their first three words (or fewer, for a short claim).
  const groups = new Map<string, string[][]>();
  for (const w of refusing) {
    const key = w.slice(0, 3).join(' ').toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  const found = [...groups.values()]
    .filter((g) => g.length >= 2)
    .map((g) => ({ phrase: sharedStart(g).join(' '), count: g.length }))
    .filter((g) => g.phrase)
    .sort((a, b) => b.count - a.count || (a.phrase < b.phrase ? -1 : 1));
  if (found.length === 0) return undefined;
  return {
    phrases: found.map((f) => f.phrase),
    note: `${found.map((f) => `${f.count} of ${traces.length} sampled answers start ${JSON.stringify(f.phrase)}`).join('; ')}, which the refusal rule in force does not read as refusals`,
  };
}
