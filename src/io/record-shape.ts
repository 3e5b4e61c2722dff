import { z } from 'zod';
import {
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
  skipArray,
  MAX_DEPTH,
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
  /** A whole number ≥ 0, at most 2^53 − 1 (a token count). */
  | 'count'
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
          : K extends 'duration' | 'count'
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

const COUNT = 'expected a whole number of tokens, 0 or more';

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
    case 'count':
      return z.int({ error: COUNT }).nonnegative({ error: COUNT });
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

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
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
    case 'count':
      return (v) => Number.isSafeInteger(v) && (v as number) >= 0;
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

/** Every member's JSON Pointer with its kind (`object` for a member that is a shape), as shapePointers lists them. */
export function shapeKinds(s: Shape, prefix = ''): [string, ValueKind | 'object'][] {
  return Object.entries(s.members).flatMap(([name, m]): [string, ValueKind | 'object'][] => {
    const p = `${prefix}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return isShape(m.kind) ? [[p, 'object'], ...shapeKinds(m.kind, p)] : [[p, m.kind]];
  });
}

/**
 * Where a line scanner found each member's value: `at[slot]` is the first byte, `end[slot]` the byte after
 * it, and at is -1 when the member is absent. Slots number the members as shapePointers lists them.
 */
export interface Found {
  at: Int32Array;
  end: Int32Array;
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

/** A kind as the scanner checks it: a list of strings a mapping names may be one string (a list of it). */
type ScanKind = ValueKind | 'string-or-strings';

function skipKind(kind: ScanKind): Skip {
  switch (kind) {
    case 'string-or-strings':
      return (b, v, e) => (b[v] === 0x22 ? skipString(b, v, e) : skipStringArray(b, v, e));
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
    case 'count':
      return (b, v, e) => wholeNumber(b, v, e);
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

/** A number that is a whole number ≥ 0 and at most 2^53 − 1, as zod's int() reads one (`3.0` and `3e2` are). */
function wholeNumber(b: Buffer, v: number, e: number): number {
  const i = skipNumber(b, v, e);
  if (i < 0) return -1;
  const n = Number(b.toString('latin1', v, i));
  return Number.isSafeInteger(n) && n >= 0 ? i : -1;
}

/** One place in the user's records: the canonical members its value feeds, and the places inside it. */
interface Place {
  slots: number[];
  kinds: ScanKind[];
  /** Members by key, as bytes, with the places they lead to. */
  keys: Uint8Array[];
  members: Place[];
  /** Elements by index (a pointer such as /choices/0/text). */
  elements: Map<number, Place>;
  /** Every element (a `*` token): each must hold every member read through it. */
  every?: Place;
  /** Every slot at or under this place: cleared when its object is entered (a repeated key is read last). */
  under: number[];
}

const newPlace = (): Place => ({
  slots: [],
  kinds: [],
  keys: [],
  members: [],
  elements: new Map(),
  under: [],
});

/**
 * Derives the byte scanner of a shape (see LineScanner), reading each member from where `map` says the
 * user keeps it (see field-map.ts: a member not mapped is read from its own place, or from its place inside
 * its mapped parent). The scanner finds every member's value where the map puts it and checks its kind; a
 * record it is not sure of (a place that is not the object or array it expected, a key with escapes) goes to
 * JSON.parse and the schema, as a line in the contract's own shape does.
 *
 * A member read through `*` is checked element by element, and found at the array it reads (its values are
 * no JSON list of strings there): only a caller that reads no such value asks for it with `every`; other
 * scanners leave those lines to JSON.parse and the map, as they do a transformed member.
 */
export function lineScanner(
  s: Shape,
  map: Readonly<Record<string, string | { from: string }>> = {},
  { every = false }: { every?: boolean } = {},
): LineScanner {
  const pointers = shapePointers(s);
  const root = newPlace();
  const required: number[] = [];
  let usable = true;
  /** Where the member at canonical `pointer` is read from, as tokens. */
  const sources = new Map<string, string[]>();
  const place = (tokens: readonly string[]): Place => {
    let at = root;
    for (const t of tokens) {
      if (t === '*') {
        at = at.every ??= newPlace();
        continue;
      }
      if (/^(?:0|[1-9]\d*)$/.test(t)) {
        // A digit token may name an array element or an object member: the scanner reads it as the first.
        let next = at.elements.get(Number(t));
        if (!next) at.elements.set(Number(t), (next = newPlace()));
        at = next;
        continue;
      }
      const key = Buffer.from(t, 'utf8');
      let k = at.keys.findIndex((x) => Buffer.compare(x, key) === 0);
      if (k < 0) k = at.keys.push(key) - 1;
      at = at.members[k] ??= newPlace();
    }
    return at;
  };
  const walk = (sh: Shape, prefix: string, parentSource: readonly string[] | undefined, needed: boolean) => {
    for (const [name, m] of Object.entries(sh.members)) {
      const pointer = `${prefix}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      const source = map[pointer];
      // A transformed value, and every element of an array (`*`), are left to JSON.parse and the map.
      if (typeof source === 'object') usable = false;
      const mapped = typeof source === 'object' ? source.from : source;
      const tokens =
        mapped !== undefined
          ? mapped
              .slice(1)
              .split('/')
              .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
          : [...(parentSource ?? []), name];
      const listed = tokens.includes('*');
      if (mapped === '' || (listed && !every)) usable = false;
      sources.set(pointer, tokens);
      const isRequired = needed && !m.optional;
      if (isShape(m.kind)) {
        walk(m.kind, pointer, tokens, isRequired);
        continue;
      }
      const slot = pointers.indexOf(pointer);
      const p = place(tokens);
      p.slots.push(slot);
      // Through `*`, each element holds one string of the list; a list mapped to a place may be one string.
      p.kinds.push(
        listed ? 'string' : mapped !== undefined && m.kind === 'strings' ? 'string-or-strings' : m.kind,
      );
      if (isRequired) required.push(slot);
    }
  };
  walk(s, '', undefined, true);
  // Slots under each place, and whether any place is both a value and a container (left to JSON.parse).
  const gather = (p: Place): number[] => {
    const inner = [...p.members, ...p.elements.values(), ...(p.every ? [p.every] : [])].flatMap(gather);
    // A value that is also a container, or a container read both by key and by index (an object may have
    // a member "1"), or an array read both by index and through `*`: left to JSON.parse.
    if (p.slots.length > 0 && inner.length > 0) usable = false;
    if (p.keys.length > 0 && (p.elements.size > 0 || p.every)) usable = false;
    if (p.every && p.elements.size > 0) usable = false;
    p.under = [...p.slots, ...inner];
    return p.under;
  };
  gather(root);

  const leaf = (p: Place) => {
    const skips = p.kinds.map(skipKind);
    return (b: Buffer, v: number, e: number, f: Found): number => {
      let end = -1;
      for (let j = 0; j < skips.length; j++) {
        end = skips[j]!(b, v, e, f);
        if (end < 0) return -1;
        f.at[p.slots[j]!] = v;
        f.end[p.slots[j]!] = end;
      }
      return end;
    };
  };
  type Read = (b: Buffer, v: number, e: number, f: Found) => number;
  const compile = (p: Place, depth: number): { object: Read; array: Read; member: Member_ } => {
    const reads: Read[] = p.members.map((m) => reader(m, depth + 1));
    const elementReads = new Map([...p.elements].map(([i, m]) => [i, reader(m, depth + 1)]));
    const member: Member_ = (b, k, v, e, f) => {
      for (let j = 0; j < p.keys.length; j++) if (keyIs(b, k, p.keys[j]!)) return reads[j]!(b, v, e, f);
      return skipValue(b, v, e, depth);
    };
    return {
      member,
      // A pointer through a value that is not an object (or array) finds nothing, as pointerGet does: the
      // members under it are absent, and the required ones among them fail the line.
      object(b, v, e, f) {
        if (depth >= MAX_DEPTH) return -1;
        for (const slot of p.under) f.at[slot] = -1;
        return b[v] === 0x7b ? scanMembers(b, v, e, f, member) : skipValue(b, v, e, depth);
      },
      array(b, v, e, f) {
        if (depth >= MAX_DEPTH || b[v] === 0x7b) return -1; // an object's member "0": left to JSON.parse
        for (const slot of p.under) f.at[slot] = -1;
        if (b[v] !== 0x5b) return skipValue(b, v, e, depth);
        let index = 0;
        return skipArray(b, v, e, depth, (b, i, e, d) => {
          const read = elementReads.get(index++);
          return read ? read(b as Buffer, i, e, f) : skipValue(b, i, e, d);
        });
      },
    };
  };
  /**
   * The array at a `*` place: each element must hold every member read through it (else JSON.parse and the
   * map name the element), and each such member is found at the whole array.
   */
  const everyElement = (p: Place, depth: number): Read => {
    const read = reader(p.every!, depth + 1);
    const listed = p.every!.under;
    return (b, v, e, f) => {
      if (depth >= MAX_DEPTH || b[v] !== 0x5b) return -1;
      const end = skipArray(b, v, e, depth, (b, i, e) => {
        for (const slot of listed) f.at[slot] = -1;
        const next = read(b as Buffer, i, e, f);
        if (next < 0) return -1;
        for (const slot of listed) if (f.at[slot]! < 0) return -1;
        return next;
      });
      if (end < 0) return -1;
      for (const slot of listed) {
        f.at[slot] = v;
        f.end[slot] = end;
      }
      return end;
    };
  };
  const reader = (p: Place, depth: number): Read => {
    if (p.slots.length > 0) return leaf(p);
    if (p.every) return everyElement(p, depth);
    const c = compile(p, depth);
    return p.elements.size === 0 ? c.object : c.array;
  };
  const top = compile(root, 1);
  const all = root.under;
  return {
    found: () => ({
      at: new Int32Array(pointers.length).fill(-1),
      end: new Int32Array(pointers.length),
    }),
    scan(b, start, end, f) {
      if (!usable || root.elements.size > 0) return false;
      for (const slot of all) f.at[slot] = -1;
      if (!scanLineObject(b, start, end, f, top.member)) return false;
      for (const slot of required) if (f.at[slot]! < 0) return false;
      return true;
    },
    slot(pointer) {
      const i = pointers.indexOf(pointer);
      if (i < 0) throw new Error(`no member ${pointer} in this shape`);
      return i;
    },
  };
}

type Member_ = (b: Buffer, k: number, v: number, e: number, f: Found) => number;
