import { z } from 'zod';
import { normalized } from './normalized.js';
import { semantic } from './semantic.js';
import { substring } from './substring.js';
import type { ClaimRule } from './types.js';

/**
 * Every claim rule, in the order report.json counts them (`claims_<name>`). Adding one = a module in this
 * folder and a line here; its place in the table is its number in a run's verdict flags (verdict-flags.ts).
 */
const RULES: ClaimRule[] = [substring, normalized, semantic].map((rule) => rule as unknown as ClaimRule);

/** How many rules a verdict's flags can name (verdict-flags.ts keeps three bits for the rule). */
export const MAX_CLAIM_RULES = 8;

const byName = new Map<string, number>();
const index = () => {
  byName.clear();
  RULES.forEach((rule, i) => byName.set(rule.name, i));
};
index();

/** The rules, in table order. */
export const claimRules = (): readonly ClaimRule[] => RULES;

/** The rule of this name; undefined when the table has none. */
export const claimRule = (name: string): ClaimRule | undefined => RULES[byName.get(name) ?? -1];

/** The rule judging names (ClaimMatching.rule): a thread's table lacks only a rule another thread added. */
export function ruleToMatch(name: string): ClaimRule {
  const rule = claimRule(name);
  if (rule === undefined)
    throw new Error(
      `claim rule ${JSON.stringify(name)} is not in this thread's table; expected one added to claims/rules/index.ts`,
    );
  return rule;
}

/** Whether `claims:` names a rule whose misses the judge reads (ClaimRule.asksJudge). */
export const asksJudge = <C extends { match?: string }>(claims: C | undefined): claims is C =>
  claims?.match !== undefined && claimRule(claims.match)?.asksJudge === true;

/** The rule's place in the table (0: substring); -1 when the table has no rule of this name. */
export const claimRuleIndex = (name: string): number => byName.get(name) ?? -1;

/**
 * Adds a rule after the others (a plugin's, or a test's), under a name no rule has (nor had); returns what
 * takes it out again. A rule added this way is known to the thread that added it: judging on helper threads
 * needs it in the table above.
 */
export function addClaimRule(rule: ClaimRule): () => void {
  if (!/^[a-z][a-z0-9_]*$/.test(rule.name))
    throw new Error(`claim rule ${JSON.stringify(rule.name)}: expected a name of a-z, 0-9 and _`);
  if (RULES.some((r) => r.name === rule.name || r.formerly?.includes(rule.name)))
    throw new Error(`claim rule ${JSON.stringify(rule.name)}: the table already names a rule so`);
  if (RULES.length === MAX_CLAIM_RULES)
    throw new Error(`claim rule ${JSON.stringify(rule.name)}: the table holds ${MAX_CLAIM_RULES} rules`);
  RULES.push(rule);
  index();
  return () => {
    const at = RULES.indexOf(rule);
    if (at !== -1) RULES.splice(at, 1);
    index();
  };
}

/** The rule now named so, for a name report.json gave a rule before (`judged`); undefined for any other. */
export const renamedRule = (former: string): string | undefined =>
  RULES.find((r) => r.formerly?.includes(former))?.name;

const names = () => RULES.map((r) => JSON.stringify(r.name)).join('|');

/**
 * A rule's name, as gates.yaml and report.json give it: the table's rules are checked when read, so a rule
 * added later is known; the JSON Schema lists the rules of this build.
 */
const unknownRule = () => `expected one of ${names()}`;
export const claimRuleName = z
  .string({ error: unknownRule })
  .refine((name) => byName.has(name), { error: unknownRule })
  .meta({ enum: RULES.map((r) => r.name) });

/**
 * `claims:` of a suite (docs/metrics.md, "Claims"): `match` names a rule of the table, and every other key
 * is an option of that rule, read by its schema (with its defaults). A key another rule reads is refused
 * with the rules that read it.
 */
export const claimsSchema = z
  .looseObject({ match: claimRuleName })
  .transform((claims, ctx): ClaimsSettings => {
    const rule = claimRule(claims.match)!;
    const { match, ...given } = claims;
    const foreign = Object.keys(given).filter((key) => !Object.hasOwn(rule.options.shape, key));
    for (const key of foreign) ctx.addIssue({ code: 'custom', path: [key], message: foreignKey(key) });
    if (foreign.length) return z.NEVER;
    const parsed = rule.options.safeParse(given);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: issue.input });
      return z.NEVER;
    }
    return { match, ...(parsed.data as Omit<ClaimsSettings, 'match'>) };
  });

/** Why `key` is refused beside a rule that does not read it: which rules do, or that none does. */
function foreignKey(key: string): string {
  const readers = RULES.filter((r) => Object.hasOwn(r.options.shape, key)).map((r) => r.name);
  if (readers.length === 0) {
    const keys = RULES.flatMap((r) => Object.keys(r.options.shape));
    return `is not a key of claims:; expected match, or an option of a rule (${[...new Set(keys)].join(', ')})`;
  }
  if (readers.length === 1)
    return `applies to match: ${readers[0]} only; expected match: ${readers[0]} with it, or no ${key}`;
  return `applies to match: ${readers.join(' or ')} only; expected one of them with it, or no ${key}`;
}

/** Every option a rule of this build reads, each of its rule's type. */
type RuleOptions = z.output<typeof normalized.options> & z.output<typeof semantic.options>;

/** `claims:` with the rule's defaults: `match`, and the options of that rule (the others absent). */
export type ClaimsSettings = { match: string } & Partial<RuleOptions>;

/**
 * How judging matches claims: the rule's name and what it made of its options (ClaimRule.create). Plain
 * data: it crosses to helper threads, which find the rule by name.
 */
export interface ClaimMatching {
  rule: string;
  with: unknown;
}

/** The matching `claims:` asks for; without it, the substring rule. */
export function claimMatching(claims: ClaimsSettings | undefined): ClaimMatching {
  const rule = claimRule(claims?.match ?? substring.name)!;
  return { rule: rule.name, with: rule.create(claims ?? {}) };
}
