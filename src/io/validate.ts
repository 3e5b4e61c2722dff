import type { z } from 'zod';
import { InputError, preview } from '../errors.js';

/** Validates one parsed line against its contract; the error names file:line, the field, and what was expected. */
export function validateLine<T>(
  schema: z.ZodType<T>,
  value: unknown,
  file: string,
  line: number,
  what: string,
): T {
  const result = safeParse(schema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new InputError({ file, line }, describeIssue(issue, value, what));
}

/**
 * `schema.safeParse(value)`, compiled only once the schema is busy. zod compiles an object schema into a
 * specialised parser (`new Function`) the first time it parses: about half a millisecond a schema, repaid
 * after a few hundred values (then 3× faster). A CI run parses most of its schemas a handful of times
 * (gates.yaml, the Action's inputs, a lock, a small example set), so their first values go uncompiled.
 */
export function safeParse<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  const n = parses.get(schema) ?? 0;
  if (n >= COMPILE_AFTER) return schema.safeParse(value, FIRST_ISSUE);
  parses.set(schema, n + 1);
  return schema.safeParse(value, FIRST_ISSUE_JITLESS);
}

/**
 * Every caller words the first issue only, so zod stops at it (`abortEarly`, the flag `z.core.validate`
 * parses with): a long list of wrong elements otherwise makes an issue per element, and zod gathers them
 * with `issues.push(...childIssues)`, which overflows the stack. The flag is zod-internal
 * (ParseContextInternal): test/validate.long-lists.test.ts fails if an update drops it.
 */
const FIRST_ISSUE: z.core.ParseContextInternal<z.core.$ZodIssue> = { abortEarly: true };
const FIRST_ISSUE_JITLESS: z.core.ParseContextInternal<z.core.$ZodIssue> = {
  abortEarly: true,
  jitless: true,
};
const COMPILE_AFTER = 256;
const parses = new WeakMap<z.ZodType, number>();

export function describeIssue(issue: z.core.$ZodIssue, value: unknown, what: string): string {
  if (issue.path.length === 0 && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    return `expected a JSON object (${what}), found ${preview(value)}`;
  }
  const field = formatPath(issue.path);
  const message = issue.message.replace(/^Invalid (?:input|option): /, '');
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    return `missing field "${field}" (${what}); ${message.replace(/, received undefined$/, '')}`;
  }
  return `field "${field}": ${message} (${what})`;
}

export function formatPath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of p) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out;
}
