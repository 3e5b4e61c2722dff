import { RE2JS } from 're2js';

// gates.yaml may come from a fork, and its patterns run on every claim. They run on RE2 (re2js, a port in
// plain JavaScript that bundles as is), whose time is linear in the text for any pattern, where a
// backtracking engine's grows with a power of it (`a*a*b`) or exponentially (`(a+)+$`). What remains to
// bound is the compiled program, whose size multiplies that time: a counted repetition repeats its part.

/** Longer than anyone writes by hand; also what is compiled to be checked. */
const MAX_CHARACTERS = 500;
/** A pattern compiled to more instructions than this is refused (`.{1000}` alone is 1,000). */
const MAX_INSTRUCTIONS = 1000;

/** Why `source` cannot be a gates.yaml pattern, or undefined when it can. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_CHARACTERS)
    return `found a regular expression of ${source.length} characters; expected one of at most ${MAX_CHARACTERS}`;
  let size: number;
  try {
    size = compiled(source).programSize();
  } catch (err) {
    const detail = (err as Error).message.replace(/^error parsing regexp: /, '');
    return `regular expression ${JSON.stringify(source)}: ${detail}; expected RE2 syntax (no lookahead, lookbehind or backreferences)`;
  }
  if (size > MAX_INSTRUCTIONS)
    return `regular expression ${JSON.stringify(source)} compiles to ${size} instructions; expected at most ${MAX_INSTRUCTIONS} (a counted repetition such as {100} repeats its part)`;
  return undefined;
}

/**
 * The pattern compiled, once per thread. Rules hold sources, plain data that crosses to worker threads as
 * it is; each thread compiles a source on first use. Throws on a source patternProblem refuses.
 */
export function compiled(source: string, caseless = false): RE2JS {
  const cache = caseless ? CASELESS : CASED;
  let re = cache.get(source);
  if (!re) {
    // Config has a handful of patterns; a loop over generated ones (fuzzing) must not grow the cache forever.
    if (cache.size >= MAX_CACHED) cache.clear();
    re = RE2JS.compile(source, caseless ? RE2JS.CASE_INSENSITIVE : 0);
    cache.set(source, re);
  }
  return re;
}

const MAX_CACHED = 256;
const CASED = new Map<string, RE2JS>();
const CASELESS = new Map<string, RE2JS>();

// JavaScript's `\s` and `.` (without the s flag) as RE2 classes: RE2's own are ASCII `\s` and a `.` that takes
// `\r`. A JavaScript pattern moved to RE2 with these reads the same text the same way.
/** The characters of JavaScript's `\s`, for a class: `[${JS_BLANKS}]`, `[^${JS_BLANKS}|]`. */
export const JS_BLANKS = String.raw`\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
/** JavaScript's `\s`. */
export const JS_S = `[${JS_BLANKS}]`;
/** JavaScript's `.` without the s flag. */
export const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
