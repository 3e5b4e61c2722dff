// When a claim is a refusal (docs/metrics.md, "Refusals"): it equals `refusal_token`, starts with one of
// `refusal.phrases`, or matches one of `refusal.patterns`. A trace's `refused` flag, when it has one,
// decides instead (see judgeInto).

/** `refusal:` as gates.yaml gives it (see config.ts). */
export interface RefusalSettings {
  phrases: readonly string[];
  patterns: readonly string[];
}

/** The text rule, compiled once: plain data with RegExps, so it crosses to worker threads. */
export interface RefusalRule {
  /** The refusal token, trimmed and lowercased. */
  token: string;
  /** Each phrase trimmed and lowercased. */
  phrases: string[];
  patterns: RegExp[];
}

export function refusalRule(token: string, settings?: RefusalSettings): RefusalRule {
  return {
    token: token.trim().toLowerCase(),
    phrases: (settings?.phrases ?? []).map((p) => p.trim().toLowerCase()),
    patterns: (settings?.patterns ?? []).map((p) => new RegExp(p, 'i')),
  };
}

/**
 * Whether a claim is a refusal by the text rule. A long answer that starts with no phrase costs a few short
 * slices: the claim is never lowercased whole for it.
 */
export function isRefusal(claim: string, rule: RefusalRule): boolean {
  if (isToken(claim, rule.token)) return true;
  if (rule.phrases.length === 0 && rule.patterns.length === 0) return false;
  if (rule.phrases.length > 0) {
    let start = 0;
    while (start < claim.length && isSpace(claim.charCodeAt(start))) start++;
    for (const phrase of rule.phrases) if (startsWithPhrase(claim, start, phrase)) return true;
  }
  for (const pattern of rule.patterns) if (pattern.test(claim.trim())) return true;
  return false;
}

/**
 * `claim.trim().toLowerCase() === token`, without building either string for the common long answer:
 * lowercasing never shortens a string, so an untrimmed claim longer than the token cannot equal it.
 */
function isToken(claim: string, token: string): boolean {
  if (
    claim.length > token.length &&
    isPlain(claim.charCodeAt(0)) &&
    isPlain(claim.charCodeAt(claim.length - 1))
  )
    return false;
  return claim.trim().toLowerCase() === token;
}

/**
 * The claim, from `start`, begins with the lowercased phrase as a whole word or words: what follows it is
 * the end or neither a letter nor a digit ("not in context." yes, "not in contextual" no).
 */
function startsWithPhrase(claim: string, start: number, phrase: string): boolean {
  const end = start + phrase.length;
  if (end > claim.length) return false;
  // ASCII compared a code unit at a time, so an answer is told from a phrase by its first letters; from the
  // first other character on, as the rule says (lowercasing a slice the phrase's length).
  for (let i = 0; i < phrase.length; i++) {
    let c = claim.charCodeAt(start + i);
    if (c >= 0x80) {
      if (claim.slice(start, end).toLowerCase() !== phrase) return false;
      break;
    }
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== phrase.charCodeAt(i)) return false;
  }
  return end === claim.length || !WORD_CHAR.test(claim[end]!);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Printable ASCII other than space: never trimmed. */
const isPlain = (c: number) => c > 0x20 && c < 0x7f;

/** A code unit String.prototype.trim removes. */
const isSpace = (c: number) =>
  c < 0x7f ? c === 0x20 || (c >= 0x09 && c <= 0x0d) : /\s/.test(String.fromCharCode(c));
