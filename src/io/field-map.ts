import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InputError, preview } from '../errors.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { formatPointer, parsePointer, pointerGet } from './json-pointer.js';
import { shapeKinds, type Shape } from './record-shape.js';
import { describeIssue, formatPath, safeParse, validateLine } from './validate.js';

/**
 * Where one canonical member is read from: the user's JSON Pointer, or that pointer (`from`) with its value
 * transformed: multiplied (`scale`), epoch milliseconds made seconds (`unit: ms`), compared with a JSON
 * scalar (`equals`, a boolean), tested for content (`nonempty`, a boolean), negated (`not`, alone or beside
 * `equals` or `nonempty`), made an id from its text (`content_id`), or given a value where the record has
 * none (`default`: a refusal logged without its empty sources list). A `*` token in the pointer reads every
 * element of the array there. A list of strings mapped without `*` reads one string as a list of it.
 */
export type FieldSource =
  | string
  | {
      from: string;
      scale?: number;
      unit?: 'ms' | 's';
      equals?: string | number | boolean | null;
      nonempty?: true;
      not?: true;
      content_id?: true;
      default?: unknown;
    };

/**
 * A `fields:` mapping of one input: for each canonical member (a JSON Pointer into the contract), where the
 * user's record holds it. Canonical members left out are read from their own place.
 */
export type FieldMap = Readonly<Record<string, FieldSource>>;

/** A record is read to MAX_JSON_DEPTH levels: a pointer deeper than that names nothing a record can hold. */
export const MAX_POINTER_TOKENS = MAX_JSON_DEPTH - 1;

/** The token that means every element of the array there (RFC 6901 has no such token: a key "*" is shadowed). */
const EVERY = '*';

/** The user's pointer of a source, transformed or not. */
const sourcePointer = (s: FieldSource): string => (typeof s === 'string' ? s : s.from);

const transformSchema = z.strictObject({
  from: z.string(),
  scale: z.number().positive('expected a number above 0').optional(),
  unit: z.enum(['ms', 's']).optional(),
  equals: z
    .union([z.string(), z.number(), z.boolean(), z.null()], {
      error: 'expected a JSON scalar to compare with: a string, a finite number, true, false or null',
    })
    .optional(),
  nonempty: z.literal(true, 'expected true (a member left out is no transform)').optional(),
  not: z.literal(true, 'expected true (a member left out is no transform)').optional(),
  content_id: z.literal(true, 'expected true (a member left out is no transform)').optional(),
  // Any JSON value: the record it completes is checked against the contract as every record is.
  default: z.json().optional(),
});

const sourceSchema = z.union([z.string(), transformSchema], {
  error:
    'expected a JSON Pointer, or { from: <JSON Pointer>, and scale, unit, equals, nonempty, not, content_id or default }',
});

/** The transforms of which a member takes one; `not` may stand beside the two that make a boolean. */
const TRANSFORMS = ['scale', 'unit', 'equals', 'nonempty', 'content_id', 'default'] as const;
const NEGATED = ['equals', 'nonempty'];

/** The mapping of an input whose contract is `s`: the keys must name its members, the values be pointers. */
export function fieldMapSchema(s: Shape) {
  const kinds = new Map(shapeKinds(s));
  const known = [...kinds.keys()];
  const ofKind = (...k: string[]) => known.filter((p) => k.includes(kinds.get(p)!)).join(', ');
  return z.record(z.string(), sourceSchema).superRefine((map, ctx) => {
    for (const [canonical, source] of Object.entries(map)) {
      const kind = kinds.get(canonical);
      if (kind === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [canonical],
          message: `${preview(canonical)} is not a member of the contract; expected one of ${known.join(', ')}`,
        });
      const user = sourcePointer(source);
      const at = typeof source === 'string' ? [canonical] : [canonical, 'from'];
      const parsed = parsePointer(user);
      if ('problem' in parsed)
        ctx.addIssue({ code: 'custom', path: at, message: `${preview(user)} ${parsed.problem}` });
      // The scanner compiles a pointer's places recursively, a level each.
      else if (parsed.length > MAX_POINTER_TOKENS)
        ctx.addIssue({
          code: 'custom',
          path: at,
          message: `${preview(user)} has ${parsed.length} reference tokens; expected at most ${MAX_POINTER_TOKENS}`,
        });
      else {
        const stars = parsed.filter((t) => t === EVERY).length;
        if (stars > 1)
          ctx.addIssue({
            code: 'custom',
            path: at,
            message: `${preview(user)} has ${stars} "*" tokens; expected at most one (every element of one array)`,
          });
        else if (stars === 1 && kind !== undefined && kind !== 'strings')
          ctx.addIssue({
            code: 'custom',
            path: at,
            message: `${preview(user)} reads every element of an array ("*"), which only a list of strings holds; expected "*" only for ${ofKind('strings')}`,
          });
      }
      if (typeof source === 'string' || kind === undefined) continue;
      const given = TRANSFORMS.filter((k) => k in source);
      if (given.length > 1)
        ctx.addIssue({
          code: 'custom',
          path: [canonical, given[1]!],
          message: `${given.join(' and ')} together; expected one transform of ${TRANSFORMS.join(', ')}`,
        });
      else if ('not' in source && given.length === 1 && !NEGATED.includes(given[0]!))
        ctx.addIssue({
          code: 'custom',
          path: [canonical, 'not'],
          message: `${given[0]} and not together; expected not alone, or beside ${NEGATED.join(' or ')}`,
        });
      const only = (key: (typeof TRANSFORMS)[number] | 'not', what: string, allowed: string) => {
        if (key in source && !allowed.split(', ').includes(canonical))
          ctx.addIssue({
            code: 'custom',
            path: [canonical, key],
            message: `${key} ${what}; expected it only for ${allowed || 'no member of this contract'}`,
          });
      };
      only('scale', 'multiplies a number', ofKind('duration', 'timestamp'));
      only('unit', 'says what epoch numbers count', ofKind('timestamp'));
      only('equals', 'makes a boolean', ofKind('boolean'));
      only('nonempty', 'makes a boolean', ofKind('boolean'));
      only('not', 'negates a boolean', ofKind('boolean'));
      // A qid from the question's text: what a dataset that has no ids is matched by.
      only(
        'content_id',
        'makes ids from texts',
        [ofKind('strings'), ...known.filter((p) => p === '/qid')].join(', '),
      );
    }
  });
}

/** A value a transform cannot take (`scale` met something that is not a number): what it expected, what it met. */
class Unfit {
  constructor(
    readonly expected: string,
    readonly found: string,
    /** The element of a list that is unfit, when it is one element. */
    readonly index?: number,
  ) {}
}

interface Entry {
  canonical: string[];
  user: string[];
  userPointer: string;
  /** The index of the `*` token in `user`, or -1; the tokens before it and after it. */
  every: number;
  head: string[];
  tail: string[];
  /** The canonical member is a list of strings read without `*`: one string there is a list of it. */
  list: boolean;
  /** The value to put in the canonical member, from the value at `user`. */
  transform?: (v: unknown) => unknown;
  source: FieldSource;
}

/** What JSON type a value is, as zod names it in its messages. */
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Epoch seconds from epoch milliseconds. */
const fromMs = (v: unknown) => (typeof v === 'number' ? v / 1000 : v);

/**
 * A text as content_id reads it: Unicode NFC, every run of white space (JavaScript's `\s`) one space,
 * trimmed. The same chunk text, however it is wrapped or composed, is one id on both sides.
 */
export const normalizedText = (text: string): string => text.normalize('NFC').replace(/\s+/gu, ' ').trim();

/** The id content_id gives a text: the lowercase hex SHA-256 of its normalized form's UTF-8 bytes. */
export const contentId = (text: string): string =>
  createHash('sha256').update(normalizedText(text), 'utf8').digest('hex');

const HASHED = 'a string to make an id of (content_id)';

/** The id of one text, or why it has none: a text blank once normalized would be one id for every gap. */
function idOfText(v: unknown, index?: number): unknown {
  if (typeof v !== 'string') return v === undefined ? v : new Unfit(HASHED, typeName(v), index);
  const id = contentId(v);
  return id === BLANK_ID ? new Unfit(HASHED, 'a blank string', index) : id;
}
const BLANK_ID = createHash('sha256').update('').digest('hex');

/** Each text's id: one text, or every text of a list (a hole stays a hole, which the contract names). */
function contentIds(v: unknown): unknown {
  if (!Array.isArray(v)) return v === null ? v : idOfText(v);
  const out: unknown[] = [];
  for (let i = 0; i < v.length; i++) {
    const id = idOfText(v[i], i);
    if (id instanceof Unfit) return id;
    out.push(id);
  }
  return out;
}

/** True for a non-empty list or string, false for an empty one, null or nothing (a missing list is empty). */
function nonEmpty(v: unknown): unknown {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  return new Unfit('an array or a string to test (nonempty)', typeName(v));
}

function transformOf(source: FieldSource): Entry['transform'] {
  if (typeof source === 'string') return undefined;
  const { scale, unit } = source;
  // Rounded to 15 significant digits, the most a double keeps of any decimal: 1.005 s is 1005 ms, not the
  // 1004.9999999999999 the product is in binary.
  if (scale !== undefined)
    return (v) =>
      typeof v === 'number'
        ? Number((v * scale).toPrecision(15))
        : v === undefined || v === null
          ? v
          : new Unfit(`number to scale by ${scale}`, typeName(v));
  if (unit === 'ms') return fromMs;
  if ('default' in source) {
    const fallback = source.default;
    // A copy each time: the records a default completes must not share one array.
    return (v) => (v === undefined ? structuredClone(fallback) : v);
  }
  if (source.content_id) return contentIds;
  const test = testOf(source);
  if (!source.not) return test;
  // Absent stays absent (as equals leaves it); what nonempty makes of nothing is negated as any value.
  if (test) return (v) => negated(test(v));
  return (v) =>
    v === undefined ? v : typeof v === 'boolean' ? !v : new Unfit('a boolean to negate (not)', typeName(v));
}

/** The boolean `equals` or `nonempty` makes, before any `not`. */
function testOf(source: Exclude<FieldSource, string>): Entry['transform'] {
  if (source.nonempty) return nonEmpty;
  if ('equals' in source) {
    const equals = source.equals;
    return (v) => (v === undefined ? undefined : v === equals);
  }
  return undefined;
}

const negated = (v: unknown) => (typeof v === 'boolean' ? !v : v);

/** A FieldMap ready to apply: parents before their members, so a member's own mapping wins. */
export class CompiledFieldMap {
  private readonly entries: Entry[];

  /** `s` is the contract the map reads into: its lists of strings read one string as a list of it. */
  constructor(map: FieldMap, s: Shape) {
    const lists = new Set(shapeKinds(s).flatMap(([p, kind]) => (kind === 'strings' ? [p] : [])));
    this.entries = Object.entries(map)
      .map(([canonical, source]): Entry => {
        const user = parsePointer(sourcePointer(source)) as string[];
        return {
          list: lists.has(canonical) && !user.includes(EVERY),
          canonical: parsePointer(canonical) as string[],
          user,
          userPointer: sourcePointer(source),
          every: user.indexOf(EVERY),
          head: user.slice(0, user.indexOf(EVERY)),
          tail: user.slice(user.indexOf(EVERY) + 1),
          transform: transformOf(source),
          source,
        };
      })
      .sort((a, b) => a.canonical.length - b.canonical.length);
  }

  /** The map as plain data, to hand to a worker thread. */
  get source(): FieldMap {
    return Object.fromEntries(this.entries.map((e) => [formatPointer(e.canonical), e.source]));
  }

  /**
   * The record in the contract's shape: every mapped member set from where the user keeps it (absent when
   * nothing is there), every other one as the record has it. The user's objects are copied, not changed.
   */
  apply(record: unknown): unknown {
    return this.mapped(record);
  }

  /** As apply; `unfit` is told of the first value a transform cannot take (apply keeps it as it is). */
  private mapped(record: unknown, unfit?: (e: Entry, why: Unfit) => never): unknown {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
    const out = copyOf(record);
    /** The objects made here: a parent is copied once, however many of its members are mapped. */
    const made: object[] = [out];
    for (const e of this.entries) {
      let found = e.every < 0 ? pointerGet(record, e.user) : everyElement(record, e.head, e.tail);
      // A list kept as one string where it holds one (a single reference answer); "" holds none.
      if (e.list && typeof found === 'string') found = found === '' ? [] : [found];
      let value = e.transform ? e.transform(found) : found;
      if (value instanceof Unfit) value = unfit ? unfit(e, value) : found;
      let target = out;
      const last = e.canonical.length - 1;
      for (let i = 0; i < last; i++) {
        const key = e.canonical[i]!;
        const inner = target[key];
        if (typeof inner === 'object' && inner !== null && made.includes(inner))
          target = inner as Record<string, unknown>;
        else {
          target = target[key] =
            typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? copyOf(inner) : {};
          made.push(target);
        }
      }
      const key = e.canonical[last]!;
      // A delete would turn the object into a slow dictionary for every check after it: only when needed.
      if (value !== undefined) target[key] = value;
      else if (Object.hasOwn(target, key)) delete target[key];
    }
    return out;
  }

  /**
   * Where in the user's record the canonical member at `path` is read from. A member read from every
   * element is read from the array (`/contexts`), its element i from there (`/contexts/3/doc_id`).
   */
  userPointer(path: readonly PropertyKey[]): string {
    const tokens = path.map(String);
    let best: Entry | undefined;
    for (const e of this.entries)
      if (e.canonical.length <= tokens.length && e.canonical.every((t, i) => t === tokens[i])) best = e;
    if (!best) return formatPointer(tokens);
    const rest = tokens.slice(best.canonical.length);
    if (best.every < 0) return best.userPointer + formatPointer(rest);
    const head = best.user.slice(0, best.every);
    if (rest.length === 0) return formatPointer(head);
    return formatPointer([...head, rest[0]!, ...best.user.slice(best.every + 1), ...rest.slice(1)]);
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
    const mapped = this.mapped(record, (e, why) => {
      const at = why.index === undefined ? e.canonical : [...e.canonical, why.index];
      throw new InputError(
        where,
        `${this.place(at)}: expected ${why.expected}, found ${why.found} (${what})`,
      );
    });
    if (test(mapped)) return mapped;
    const result = safeParse(schema, mapped);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    if (issue.path.length === 0) throw new InputError(where, describeIssue(issue, record, what));
    throw new InputError(where, this.describe(issue, what));
  }

  /** The user's pointer of the member at `path`, and the member when that is not where it is read from. */
  private place(path: readonly PropertyKey[]): string {
    const at = this.userPointer(path);
    const shown = at === '' ? '"" (the whole record)' : at;
    return at === formatPointer(path.map(String)) ? shown : `${shown} (${formatPath(path)})`;
  }

  private describe(issue: z.core.$ZodIssue, what: string): string {
    const place = this.place(issue.path);
    const message = issue.message.replace(/^Invalid (?:input|option): /, '');
    if (issue.code === 'invalid_type' && /received undefined$/.test(message))
      return `${place}: missing; ${message.replace(/, received undefined$/, '')} (${what})`;
    return `${place}: ${message.replace(/, received (\w+)$/, ', found $1')} (${what})`;
  }
}

/**
 * A shallow copy of a JSON object. Object.assign, not a spread: a spread copy that then gains members cost
 * 20 µs a record on Node 20, ten times all the rest of the mapping. But assign sets a key "__proto__" as the
 * prototype, where JSON.parse and a spread make it a member: such an object is spread.
 */
const copyOf = (o: object): Record<string, unknown> =>
  Object.hasOwn(o, '__proto__') ? { ...o } : (Object.assign({}, o) as Record<string, unknown>);

/**
 * The member at `tail` of each element of the array at `head`, in order (an element without it leaves a
 * hole, which the contract's check names); what is there when it is no array.
 */
function everyElement(record: unknown, head: readonly string[], tail: readonly string[]): unknown {
  const list = pointerGet(record, head);
  if (!Array.isArray(list)) return list;
  const out: unknown[] = [];
  for (const x of list) out.push(pointerGet(x, tail));
  return out;
}

/** The compiled map into the contract `s`, or undefined when there is none to apply. */
export const compileFieldMap = (map: FieldMap | undefined, s: Shape): CompiledFieldMap | undefined =>
  map && Object.keys(map).length > 0 ? new CompiledFieldMap(map, s) : undefined;

/**
 * A record checked against a contract after its `fields:` mapping, if any: by hand, and by the schema to
 * word an error (naming the user's pointer when mapped).
 */
export function recordChecker<T>(
  schema: z.ZodType<T>,
  test: (v: unknown) => v is T,
  fields: FieldMap | undefined,
  what: string,
  s: Shape,
): { check(value: unknown, file: string, line: number): T; map: CompiledFieldMap | undefined } {
  const map = compileFieldMap(fields, s);
  return {
    map,
    check: map
      ? (value, file, line) => map.check(schema, test, value, { file, line }, what)
      : (value, file, line) => (test(value) ? value : validateLine(schema, value, file, line, what)),
  };
}
