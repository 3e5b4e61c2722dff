/**
 * Symbolic constraint lock (SCU): an answer must echo the item's locked constraints and must not say
 * something a lock forbids. A rule applies when its `lock` pattern matches one of the item's constraints
 * (lowercased); the claim contradicts the locks when the rule's `contradiction` pattern matches the
 * lowercased claim.
 */
export interface ScuRule {
  lock: string;
  contradiction: string;
}

/** The four rules of the public SCU pattern page (WFGY ProblemMap). */
export const DEFAULT_SCU_RULES: readonly ScuRule[] = [
  {
    lock: String.raw`rejects\s+null\s+keys`,
    contradiction: String.raw`(allow|accept|support)s?\s+null\s+keys`,
  },
  {
    lock: String.raw`\bonly\b\s+domain\s+example\.com`,
    contradiction: String.raw`\b(gmail|yahoo|outlook)\.com\b|allow\b.*\bany\b\s+domain`,
  },
  { lock: String.raw`\bmust\b`, contradiction: String.raw`\bmay\b|\boptional\b|\bnot\s+required\b` },
  { lock: String.raw`\bnever\b`, contradiction: String.raw`\ballow(ed)?\b|\bcan\b|\bmay\b` },
];

/**
 * `constraints_echo` equals the locked set: order, repeats and surrounding whitespace do not matter.
 * Loops rather than sets: it runs on every shipped answer with constraints, and both lists are short.
 */
export function echoMatches(echo: readonly string[] | undefined, constraints: readonly string[]): boolean {
  if (!echo) return false;
  return covers(constraints, echo) && covers(echo, constraints);
}

/** Every string of `a`, trimmed, is among the trimmed strings of `b`. */
function covers(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const want = a[i]!.trim();
    let found = false;
    for (let j = 0; j < b.length && !found; j++) found = b[j]!.trim() === want;
    if (!found) return false;
  }
  return true;
}
