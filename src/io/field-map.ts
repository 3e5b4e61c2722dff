import { z } from 'zod';
import { InputError, preview } from '../errors.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { formatPointer, parsePointer, pointerGet } from './json-pointer.js';
import { shapePointers, type Shape } from './record-shape.js';
import { describeIssue, formatPath, safeParse, validateLine } from './validate.js';

/**
 * A `fields:` mapping of one input: for each canonical member (a JSON Pointer into the contract), the JSON
 * Pointer in the user's record that holds it. Canonical members left out are read from their own place.
 */
export type FieldMap = Readonly<Record<string, string>>;

/** A record is read to MAX_JSON_DEPTH levels: a pointer deeper than that names nothing a record can hold. */
export const MAX_POINTER_TOKENS = MAX_JSON_DEPTH - 1;

/** The mapping of an input whose contract is `s`: the keys must name its members, the values be pointers. */
export function fieldMapSchema(s: Shape) {
  const known = shapePointers(s);
  return z.record(z.string(), z.string()).superRefine((map, ctx) => {
    for (const [canonical, user] of Object.entries(map)) {
      if (!known.includes(canonical))
        ctx.addIssue({
          code: 'custom',
          path: [canonical],
          message: `${preview(canonical)} is not a member of the contract; expected one of ${known.join(', ')}`,
        });
      const parsed = parsePointer(user);
      if ('problem' in parsed)
        ctx.addIssue({ code: 'custom', path: [canonical], message: `${preview(user)} ${parsed.problem}` });
      // The scanner compiles a pointer's places recursively, a level each.
      else if (parsed.length > MAX_POINTER_TOKENS)
        ctx.addIssue({
          code: 'custom',
          path: [canonical],
          message: `${preview(user)} has ${parsed.length} reference tokens; expected at most ${MAX_POINTER_TOKENS}`,
        });
    }
  });
}

interface Entry {
  canonical: string[];
  user: string[];
  userPointer: string;
}

/** A FieldMap ready to apply: parents before their members, so a member's own mapping wins. */
export class CompiledFieldMap {
  private readonly entries: Entry[];

  constructor(map: FieldMap) {
    this.entries = Object.entries(map)
      .map(([canonical, user]) => ({
        canonical: parsePointer(canonical) as string[],
        user: parsePointer(user) as string[],
        userPointer: user,
      }))
      .sort((a, b) => a.canonical.length - b.canonical.length);
  }

  /** The map as plain data, to hand to a worker thread. */
  get source(): FieldMap {
    return Object.fromEntries(this.entries.map((e) => [formatPointer(e.canonical), e.userPointer]));
  }

  /**
   * The record in the contract's shape: every mapped member set from where the user keeps it (absent when
   * nothing is there), every other one as the record has it. The user's objects are copied, not changed.
   */
  apply(record: unknown): unknown {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
    const out: Record<string, unknown> = { ...record };
    for (const e of this.entries) {
      const value = pointerGet(record, e.user);
      let target = out;
      const last = e.canonical.length - 1;
      for (let i = 0; i < last; i++) {
        const key = e.canonical[i]!;
        const inner = target[key];
        target = target[key] =
          typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? { ...inner } : {};
      }
      if (value === undefined) delete target[e.canonical[last]!];
      else target[e.canonical[last]!] = value;
    }
    return out;
  }

  /** Where in the user's record the canonical member at `path` is read from. */
  userPointer(path: readonly PropertyKey[]): string {
    const tokens = path.map(String);
    let best: Entry | undefined;
    for (const e of this.entries)
      if (e.canonical.length <= tokens.length && e.canonical.every((t, i) => t === tokens[i])) best = e;
    if (!best) return formatPointer(tokens);
    return best.userPointer + formatPointer(tokens.slice(best.canonical.length));
  }

  /**
   * The record mapped and checked against its contract. An error names the user's pointer and the canonical
   * member it feeds: `/output/sources (answer_json.citations): expected array, found number`.
   */
  check<T>(
    schema: z.ZodType<T>,
    test: (v: unknown) => v is T,
    record: unknown,
    where: { file: string; line: number },
    what: string,
  ): T {
    const mapped = this.apply(record);
    if (test(mapped)) return mapped;
    const result = safeParse(schema, mapped);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    if (issue.path.length === 0) throw new InputError(where, describeIssue(issue, record, what));
    throw new InputError(where, this.describe(issue, what));
  }

  private describe(issue: z.core.$ZodIssue, what: string): string {
    const at = this.userPointer(issue.path);
    const field = formatPath(issue.path);
    const shown = at === '' ? '"" (the whole record)' : at;
    const place = at === formatPointer(issue.path.map(String)) ? shown : `${shown} (${field})`;
    const message = issue.message.replace(/^Invalid (?:input|option): /, '');
    if (issue.code === 'invalid_type' && /received undefined$/.test(message))
      return `${place}: missing; ${message.replace(/, received undefined$/, '')} (${what})`;
    return `${place}: ${message.replace(/, received (\w+)$/, ', found $1')} (${what})`;
  }
}

/** The compiled map, or undefined when there is none to apply. */
export const compileFieldMap = (map: FieldMap | undefined): CompiledFieldMap | undefined =>
  map && Object.keys(map).length > 0 ? new CompiledFieldMap(map) : undefined;

/**
 * A record checked against a contract after its `fields:` mapping, if any: by hand, and by the schema to
 * word an error (naming the user's pointer when mapped).
 */
export function recordChecker<T>(
  schema: z.ZodType<T>,
  test: (v: unknown) => v is T,
  fields: FieldMap | undefined,
  what: string,
): { check(value: unknown, file: string, line: number): T; map: CompiledFieldMap | undefined } {
  const map = compileFieldMap(fields);
  return {
    map,
    check: map
      ? (value, file, line) => map.check(schema, test, value, { file, line }, what)
      : (value, file, line) => (test(value) ? value : validateLine(schema, value, file, line, what)),
  };
}
