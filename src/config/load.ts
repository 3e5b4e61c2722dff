import path from 'node:path';
import { isMap, isScalar, isSeq, visit, type Document, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { InputError, type Where } from '../errors.js';
import { cliScope, confineIfInside, type PathScope } from '../io/confine.js';
import { metricNames, resolveMetric } from '../metrics/spec.js';
import { SUITE_KINDS, suiteKind } from '../suites/registry.js';
import type { LoadedSuite } from '../suites/types.js';
import { didYouMean } from './suggest.js';
import { safeParse } from '../io/validate.js';
import { readText } from '../io/utf8.js';
import { parseYaml, yamlValue } from '../io/yaml-document.js';
import { docRef } from '../docs.js';

export const DEFAULT_OFFENDERS = 10;
export const DEFAULT_REPORT_OFFENDERS = 1000;

export const SUITE_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

const topLevelSchema = z.strictObject({
  version: z.literal(1, { error: 'expected version: 1' }),
  offenders: z.int().min(0).max(10_000).optional(),
  report_offenders: z.int().min(0).optional(),
  suites: z.record(
    z
      .string()
      .regex(SUITE_NAME, 'expected a suite name of letters, digits, "_", "-", "." starting with a letter'),
    z.unknown(),
  ),
});

export interface LoadedConfig {
  file: string;
  dir: string;
  /** Where the paths it names may lead (see confine). */
  scope: PathScope;
  offenders: number;
  /** How many offenders per suite report.json lists in full (the renderers show `offenders` of them). */
  reportOffenders: number;
  suites: LoadedSuite[];
}

/**
 * Reads and validates gates.yaml. Every problem is an InputError naming file:line:column. Without a scope,
 * the paths it names must stay in the CLI's workspace (cliScope).
 */
export function loadConfig(file: string, scope: PathScope = cliScope(file)): LoadedConfig {
  // The config's path is the workflow's or the user's: it may be anywhere, but not out through a link in
  // the workspace (a fork's gates.yaml -> /etc/passwd).
  confineIfInside(path.resolve(file), scope, file, { file }, 'config');
  let source: string;
  try {
    source = readText(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      { file },
      code === 'ENOENT'
        ? 'config file not found; pass --config PATH, or run "groundgate init" to write one calibrated from the data in the repository'
        : `cannot read config (${code})`,
    );
  }
  return parseConfig(source, file, scope);
}

export function parseConfig(source: string, file: string, scope: PathScope = cliScope(file)): LoadedConfig {
  const { doc, at } = parseYaml(source, file, CONFIG);
  checkKeys(doc, at);
  const data = yamlValue(doc, at, CONFIG);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new InputError(at(0), 'expected a mapping with version: 1 and suites:');
  }

  const locate = (p: readonly PropertyKey[], key?: string) => at(nodeOffset(doc, p, key));
  const top = safeParse(topLevelSchema, data);
  if (!top.success) throw issueToError(top.error.issues[0]!, topLevelSchema, [], locate);

  const dir = path.dirname(path.resolve(file));
  const suites: LoadedSuite[] = [];
  for (const [name, raw] of Object.entries(top.data.suites)) {
    const base = ['suites', name];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new InputError(locate(base), `suite "${name}": expected a mapping with kind: and its inputs`);
    }
    const kindName = (raw as Record<string, unknown>).kind;
    if (typeof kindName !== 'string') {
      throw new InputError(locate(base), `suite "${name}": missing kind; expected one of ${kindList()}`);
    }
    const kind = suiteKind(kindName);
    if (!kind) {
      throw new InputError(
        locate([...base, 'kind']),
        `suite "${name}": unknown kind ${JSON.stringify(kindName)}${didYouMean(
          kindName,
          SUITE_KINDS.map((k) => k.kind),
        )}; expected one of ${kindList()}`,
      );
    }
    const parsed = safeParse(kind.configSchema, raw);
    if (!parsed.success) {
      throw issueToError(parsed.error.issues[0]!, kind.configSchema, base, locate, `suite "${name}": `);
    }
    const config = parsed.data;

    const gateWhere: Record<string, Where> = {};
    const cutoffs = kind.defaultCutoffs(config);
    for (const metric of Object.keys(config.gates)) {
      const where = locate([...base, 'gates'], metric);
      if (!resolveMetric(metric, kind.metrics)) {
        const names = kind.metrics.flatMap((spec) =>
          metricNames([spec], kind.familyCutoffs?.(config, spec)?.[0] ?? cutoffs[0] ?? 10),
        );
        throw new InputError(
          where,
          `suite "${name}": unknown metric ${JSON.stringify(metric)} for kind ${kind.kind}${didYouMean(metric, names)}; expected one of ${names.join(', ')}`,
        );
      }
      if (config.gates[metric]!.maxNewFailures !== undefined && !kind.populations) {
        const paired = SUITE_KINDS.filter((k) => k.populations).map((k) => k.kind);
        throw new InputError(
          where,
          `suite "${name}": gates.${metric}: max_new_failures, but kind ${kind.kind} counts no new failures against a baseline; expected it only in suites of kind ${paired.join(', ')}`,
        );
      }
      if (
        config.gates[metric]!.maxNewFailures !== undefined &&
        kind.populations?.[resolveMetric(metric, kind.metrics)!.spec.name] === null
      ) {
        throw new InputError(
          where,
          `suite "${name}": gates.${metric}: max_new_failures, but an item's verdict does not tell ${metric}'s failures; expected it on another metric (see ${docRef('docs/statistics.md')})`,
        );
      }
      gateWhere[metric] = where;
    }
    const keyWhere: Record<string, Where> = Object.create(null);
    for (const key of Object.keys(raw)) keyWhere[key] = locate([...base, key]);
    suites.push({ name, kind, config, where: locate(base, undefined), gateWhere, keyWhere });
  }
  if (suites.length === 0)
    throw new InputError(locate(['suites']), 'expected at least one suite under suites:');
  return {
    file: path.resolve(file),
    dir,
    scope,
    offenders: top.data.offenders ?? DEFAULT_OFFENDERS,
    reportOffenders: top.data.report_offenders ?? DEFAULT_REPORT_OFFENDERS,
    suites,
  };
}

/** What gates.yaml is to its reader, in YAML errors. */
const CONFIG = { what: 'a config' };

/**
 * Names of Object.prototype's properties, as keys anywhere in the config: `__proto__` would set a prototype
 * and vanish, the others would shadow a property that code reading the config may rely on.
 */
const RESERVED = new Set(Object.getOwnPropertyNames(Object.prototype));

function checkKeys(doc: Document, at: (offset: number | undefined) => Where): void {
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && RESERVED.has(String(pair.key.value))) {
        throw new InputError(
          at(pair.key.range?.[0]),
          `reserved name ${JSON.stringify(String(pair.key.value))}; expected a name that is not a property of every JavaScript object`,
        );
      }
    },
  });
}

function kindList(): string {
  return SUITE_KINDS.map((k) => k.kind).join(', ');
}

/** Turns the first zod issue into a one-line error at the YAML node it concerns. */
function issueToError(
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
  base: readonly PropertyKey[],
  locate: (p: readonly PropertyKey[], key?: string) => Where,
  prefix = '',
): InputError {
  // A union (string or object gate) fails as a whole; the branch whose type fit says what is wrong.
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branch = issue.errors.find(
      (errs) => errs.length > 0 && !(errs[0]!.code === 'invalid_type' && errs[0]!.path.length === 0),
    );
    if (branch) {
      const inner = { ...branch[0]!, path: [...issue.path, ...branch[0]!.path] } as z.core.$ZodIssue;
      return issueToError(inner, schema, base, locate, prefix);
    }
  }
  const p = [...base, ...issue.path];
  const shown = issue.path.length ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const known = knownKeys(schema, issue.path);
    return new InputError(
      locate(p, key),
      `${prefix}${shown}unknown key ${JSON.stringify(key)}${didYouMean(key, known)}${known.length ? `; expected one of ${known.join(', ')}` : ''}`,
    );
  }
  // A missing key has no node of its own: point at the mapping that lacks it.
  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  const where = missing ? locate(p.slice(0, -1)) : locate(p);
  const message = missing
    ? `missing required key; ${cleanMessage(issue.message).replace(/, received undefined$/, '')}`
    : cleanMessage(issue.message);
  return new InputError(where, `${prefix}${shown}${message}`);
}

function cleanMessage(message: string): string {
  return message.replace(/^Invalid input: /, '').replace(/^Invalid option: /, '');
}

/** The keys an object schema accepts at `p`, for "did you mean" on an unknown key. */
function knownKeys(schema: z.core.$ZodType, p: readonly PropertyKey[]): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      if (p.length === 0) return Object.keys(shape);
      const next = shape[String(p[0])];
      return next ? knownKeys(next, p.slice(1)) : [];
    }
    case 'optional':
    case 'default':
    case 'nullable':
      return knownKeys(def.innerType as z.core.$ZodType, p);
    case 'pipe':
      return knownKeys(def.in as z.core.$ZodType, p);
    case 'union':
      for (const option of def.options as z.core.$ZodType[]) {
        const keys = knownKeys(option, p);
        if (keys.length) return keys;
      }
      return [];
    case 'record':
      return p.length ? knownKeys(def.valueType as z.core.$ZodType, p.slice(1)) : [];
    case 'array':
      return p.length ? knownKeys(def.element as z.core.$ZodType, p.slice(1)) : [];
    default:
      return [];
  }
}

function nodeOffset(doc: Document, p: readonly PropertyKey[], key?: string): number | undefined {
  let node: unknown = doc.contents;
  let offset = (node as YamlNode | null)?.range?.[0];
  for (const segment of p) {
    if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = (node as YamlNode | undefined)?.range?.[0] ?? offset;
      continue;
    }
    if (!isMap(node)) break;
    const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(segment));
    if (!pair) break;
    offset = (pair.key as YamlNode).range?.[0] ?? offset;
    node = pair.value;
    const valueOffset = (node as YamlNode | null)?.range?.[0];
    if (valueOffset !== undefined && !isMap(node)) offset = valueOffset;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
    if (pair) offset = (pair.key as YamlNode).range?.[0] ?? offset;
  }
  return offset;
}
