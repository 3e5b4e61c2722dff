import { z } from 'zod';
import {
  ascii,
  keyIs,
  scanLineObject,
  scanMembers,
  skipBoolean,
  skipLiteral,
  skipNonEmptyString,
  skipNumber,
  skipString,
  skipStringArray,
  skipValue,
} from './json-scan.js';

// A record contract declared once, as a table of its members, from which the three ways of checking a
// record are derived: the zod schema (which words errors), a check by hand of a parsed value (an order of
// magnitude cheaper on a million lines), and a check of a line's bytes that also finds where each member's
// value is (so a loader builds only the values it reads). A member added to the table is added to all three,
// and to the JSON Pointers a `fields:` mapping may name.

/** What a member's value must be. Every kind but `timestamp` refuses null, as zod's `.optional()` does. */
export type ValueKind =
  | 'string'
  /** A string of at least one character (an id). */
  | 'id'
  | 'strings'
  | 'boolean'
  /** A finite number ≥ 0. */
  | 'duration'
  /** A finite number or a string. */
  | 'number-or-string'
  /** A finite number, a string or null. */
  | 'timestamp';

export interface Member {
  kind: ValueKind | Shape;
  optional?: boolean;
}

/** A JSON object's members; others are allowed and ignored. */
export interface Shape<M extends Readonly<Record<string, Member>> = Readonly<Record<string, Member>>> {
  members: M;
}

export const shape = <M extends Record<string, Member>>(members: M): Shape<M> => ({ members });
export const required = <K extends ValueKind | Shape>(kind: K) => ({ kind, optional: false as const });
export const optional = <K extends ValueKind | Shape>(kind: K) => ({ kind, optional: true as const });

type ValueOf<K> =
  K extends Shape<infer M>
    ? Infer<Shape<M>>
    : K extends 'string' | 'id'
      ? string
      : K extends 'strings'
        ? string[]
        : K extends 'boolean'
          ? boolean
          : K extends 'duration'
            ? number
            : K extends 'number-or-string'
              ? number | string
              : K extends 'timestamp'
                ? number | string | null
                : never;

/** The type of a value the shape accepts (its extra keys left out). */
export type Infer<S> =
  S extends Shape<infer M>
    ? { [N in keyof M as M[N]['optional'] extends true ? never : N]: ValueOf<M[N]['kind']> } & {
        [N in keyof M as M[N]['optional'] extends true ? N : never]?: ValueOf<M[N]['kind']>;
      }
    : never;

const isShape = (k: ValueKind | Shape): k is Shape => typeof k === 'object';

function kindSchema(name: string, kind: ValueKind | Shape): z.ZodType {
  if (isShape(kind)) return shapeSchema(kind);
  switch (kind) {
    case 'string':
      return z.string();
    case 'id':
      return z.string().min(1, `expected a non-empty ${name}`);
    case 'strings':
      return z.array(z.string());
    case 'boolean':
      return z.boolean();
    case 'duration':
      return z.number().nonnegative();
    case 'number-or-string':
      return z.union([z.number(), z.string()]);
    case 'timestamp':
      return z.union([z.number(), z.string()]).nullable();
  }
}

/** The zod schema of a shape: a loose object, so extra keys pass. */
export function shapeSchema<S extends Shape>(s: S): z.ZodType<Infer<S>> {
  const members: Record<string, z.ZodType> = {};
  for (const [name, m] of Object.entries(s.members)) {
    const t = kindSchema(name, m.kind);
    members[name] = m.optional ? t.optional() : t;
  }
  return z.looseObject(members) as unknown as z.ZodType<Infer<S>>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

function kindTest(kind: ValueKind | Shape): (v: unknown) => boolean {
  if (isShape(kind)) return shapeTest(kind);
  switch (kind) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'id':
      return (v) => typeof v === 'string' && v !== '';
    case 'strings':
      return isStrings;
    case 'boolean':
      return (v) => typeof v === 'boolean';
    // zod's numbers are finite: JSON's 1e999 parses to Infinity and must fail here too.
    case 'duration':
      return (v) => Number.isFinite(v) && (v as number) >= 0;
    case 'number-or-string':
      return (v) => Number.isFinite(v) || typeof v === 'string';
    case 'timestamp':
      return (v) => v === null || Number.isFinite(v) || typeof v === 'string';
  }
}

/** The shape's rules checked by hand: true exactly when its schema accepts the value (a fuzz test keeps it so). */
export function shapeTest<S extends Shape>(s: S): (v: unknown) => v is Infer<S> {
  const checks = Object.entries(s.members).map(([name, m]) => ({
    name,
    optional: m.optional === true,
    test: kindTest(m.kind),
  }));
  return (v): v is Infer<S> => {
    if (!isObject(v)) return false;
    for (const c of checks) {
      const x = v[c.name];
      if (x === undefined) {
        if (c.optional) continue;
        return false;
      }
      if (!c.test(x)) return false;
    }
    return true;
  };
}

/** Every member's JSON Pointer (RFC 6901), objects before their members, in declaration order. */
export function shapePointers(s: Shape, prefix = ''): string[] {
  return Object.entries(s.members).flatMap(([name, m]) => {
    const p = `${prefix}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return isShape(m.kind) ? [p, ...shapePointers(m.kind, p)] : [p];
  });
}

/**
 * Where a line scanner found each member's value: `at[slot]` is the first byte, `end[slot]` the byte after
 * it, and at is -1 when the member is absent. Slots number the members as shapePointers lists them.
 */
export interface Found {
  at: Int32Array;
  end: Int32Array;
  /** The required members seen in each object, a bit each: the scanner's own bookkeeping. */
  seen: Int32Array;
}

export interface LineScanner {
  /** A Found to reuse from line to line. */
  found(): Found;
  /**
   * Checks the line at b[start, end) against JSON and the shape, on its bytes, and records where each
   * member's value is. False when it is not sure the line is good: the caller then parses it (JSON.parse and
   * the schema say what is wrong), or accepts the rare good line refused here (a key written with escapes,
   * very deep nesting, a number that is not finite).
   */
  scan(b: Buffer, start: number, end: number, found: Found): boolean;
  /** The slot of the member at this pointer (one shapePointers lists). */
  slot(pointer: string): number;
}

type Skip = (b: Buffer, v: number, e: number, found: Found) => number;

function skipKind(kind: ValueKind): Skip {
  switch (kind) {
    case 'string':
      return (b, v, e) => skipString(b, v, e);
    case 'id':
      return (b, v, e) => skipNonEmptyString(b, v, e);
    case 'strings':
      return (b, v, e) => skipStringArray(b, v, e);
    case 'boolean':
      return (b, v, e) => skipBoolean(b, v, e);
    case 'duration':
      return (b, v, e) => finiteNumber(b, v, e, 0);
    case 'number-or-string':
      return (b, v, e) => (b[v] === 0x22 ? skipString(b, v, e) : finiteNumber(b, v, e, -Infinity));
    case 'timestamp':
      return (b, v, e) =>
        b[v] === 0x22
          ? skipString(b, v, e)
          : b[v] === 0x6e
            ? skipLiteral(b, v, e)
            : finiteNumber(b, v, e, -Infinity);
  }
}

/** A number whose value is finite and at least `min`. */
function finiteNumber(b: Buffer, v: number, e: number, min: number): number {
  const i = skipNumber(b, v, e);
  if (i < 0) return -1;
  const n = Number(b.toString('latin1', v, i));
  return Number.isFinite(n) && n >= min ? i : -1;
}

/** Derives the byte scanner of a shape (see LineScanner). */
export function lineScanner(s: Shape): LineScanner {
  const pointers = shapePointers(s);
  let objects = 0;
  /** The member function of object number `index` at `depth`, whose members' slots start at `first`. */
  const compile = (sh: Shape, depth: number, prefix: string) => {
    const index = objects++;
    const entries = Object.entries(sh.members);
    const keys = entries.map(([name]) => ascii(name));
    const slots = entries.map(([name]) => pointers.indexOf(`${prefix}/${name}`));
    const optionals = slots.filter((_, j) => entries[j]![1].optional);
    let all = 0;
    const bits = entries.map(([, m], j) => (m.optional ? 0 : 1 << j));
    for (const b of bits) all |= b;
    const skips: Skip[] = entries.map(([name, m]) => {
      if (!isShape(m.kind)) return skipKind(m.kind);
      const nested = compile(m.kind, depth + 1, `${prefix}/${name}`);
      return (b, v, e, f) => nested.object(b, v, e, f);
    });
    const member = (b: Buffer, k: number, v: number, e: number, f: Found): number => {
      for (let j = 0; j < keys.length; j++) {
        if (!keyIs(b, k, keys[j]!)) continue;
        const i = skips[j]!(b, v, e, f);
        if (i < 0) return -1;
        f.at[slots[j]!] = v;
        f.end[slots[j]!] = i;
        f.seen[index]! |= bits[j]!;
        return i;
      }
      return skipValue(b, v, e, depth);
    };
    /** A repeated key is read as JSON.parse reads it: the last one whole, nothing of the ones before. */
    const reset = (f: Found) => {
      f.seen[index] = 0;
      for (const slot of optionals) f.at[slot] = -1;
    };
    return {
      member,
      reset,
      object(b: Buffer, v: number, e: number, f: Found): number {
        reset(f);
        const close = scanMembers(b, v, e, f, member);
        return f.seen[index] === all ? close : -1;
      },
      all,
      index,
    };
  };
  const top = compile(s, 1, '');
  return {
    found: () => ({
      at: new Int32Array(pointers.length).fill(-1),
      end: new Int32Array(pointers.length),
      seen: new Int32Array(objects),
    }),
    scan(b, start, end, f) {
      top.reset(f);
      return scanLineObject(b, start, end, f, top.member) && f.seen[top.index] === top.all;
    },
    slot(pointer) {
      const i = pointers.indexOf(pointer);
      if (i < 0) throw new Error(`no member ${pointer} in this shape`);
      return i;
    },
  };
}
