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

export interface CompiledRule {
  lock: RegExp;
  contradiction: RegExp;
  source: ScuRule;
}

export function compileRules(rules: readonly ScuRule[]): CompiledRule[] {
  return rules.map((r) => ({
    lock: new RegExp(r.lock),
    contradiction: new RegExp(r.contradiction),
    source: r,
  }));
}

/** The first rule the claim breaks, if any. */
export function contradiction(
  claim: string,
  constraints: readonly string[],
  rules: readonly CompiledRule[],
): CompiledRule | undefined {
  const lowered = constraints.map((c) => c.toLowerCase());
  const claimLower = claim.toLowerCase();
  return rules.find((r) => lowered.some((c) => r.lock.test(c)) && r.contradiction.test(claimLower));
}

/** `constraints_echo` equals the locked set: order and surrounding whitespace do not matter. */
export function echoMatches(echo: readonly string[] | undefined, constraints: readonly string[]): boolean {
  if (!echo) return false;
  const want = new Set(constraints.map((c) => c.trim()));
  const got = new Set(echo.map((c) => c.trim()));
  if (want.size !== got.size) return false;
  for (const c of want) if (!got.has(c)) return false;
  return true;
}
