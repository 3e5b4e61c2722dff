// When a claim is a refusal (docs/metrics.md, "Refusals"): it equals `refusal_token`, starts with one of
// `refusal.phrases`, or matches one of `refusal.patterns`. A trace's `refused` flag, when it has one,
// decides instead (see judgeInto).
import { compiled } from '../config/pattern.js';

/** `refusal:` as gates.yaml gives it (see config.ts). */
export interface RefusalSettings {
  phrases: readonly string[];
  patterns: readonly string[];
}

/** The text rule, made once: plain data, so it crosses to worker threads. */
export interface RefusalRule {
  /** The refusal token, trimmed and lowercased. */
  token: string;
  /** Each phrase trimmed and lowercased. */
  phrases: string[];
  /** Sources, compiled case-insensitively where first used (see pattern.ts). */
  patterns: string[];
}

export function refusalRule(token: string, settings?: RefusalSettings): RefusalRule {
  return {
    token: token.trim().toLowerCase(),
    phrases: (settings?.phrases ?? []).map((p) => p.trim().toLowerCase()),
    patterns: [...(settings?.patterns ?? [])],
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
  if (rule.patterns.length === 0) return false;
  const trimmed = claim.trim();
  for (const pattern of rule.patterns) if (compiled(pattern, true).test(trimmed)) return true;
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
  // ASCII compared a code unit at a time, so an answer is told from a phrase by its first letters; from the
  // first other character on, as the rule says.
  for (let i = 0; i < phrase.length; i++) {
    let c = claim.charCodeAt(start + i);
    if (Number.isNaN(c)) return false;
    if (c >= 0x80) return startsWithLowered(claim, start, start + i, phrase);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== phrase.charCodeAt(i)) return false;
  }
  return atBoundary(claim, start + phrase.length);
}

/**
 * The claim from `start` starts with the phrase once lowercased, then a boundary; the code units before `from`
 * matched already. Lowercasing may lengthen a character ("İ" is two code units lowercased) and depends on its
 * neighbours (a final "Σ"), so the claim's slice from `start` is lowercased a code point longer at a time until
 * it is as long as the phrase: at most the phrase's length in steps, and only for a claim that matched so far.
 */
function startsWithLowered(claim: string, start: number, from: number, phrase: string): boolean {
  for (let i = from; i < claim.length;) {
    i += claim.codePointAt(i)! > 0xffff ? 2 : 1;
    const lowered = claim.slice(start, i).toLowerCase();
    if (lowered.length >= phrase.length) return lowered === phrase && atBoundary(claim, i);
  }
  return false;
}

/** The end of the claim, or a character that is neither a letter nor a digit. */
const atBoundary = (claim: string, end: number): boolean =>
  end >= claim.length || !WORD_CHAR.test(String.fromCodePoint(claim.codePointAt(end)!));

const WORD_CHAR = /^[\p{L}\p{N}]/u;

/** Printable ASCII other than space: never trimmed. */
const isPlain = (c: number) => c > 0x20 && c < 0x7f;

/** A code unit String.prototype.trim removes. */
const isSpace = (c: number) =>
  c < 0x7f ? c === 0x20 || (c >= 0x09 && c <= 0x0d) : /\s/.test(String.fromCharCode(c));
