import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { InputError, preview } from '../errors.js';
import { compareCodeUnits } from '../io/files.js';
import { describeJsonError } from '../io/jsonl.js';
import { ItemRecord, type ItemVerdict } from '../report/item-record.js';
import type { Report, SuiteReport } from '../report/schema.js';

/** Where `groundgate baseline` writes, relative to the directory of gates.yaml. */
export const BASELINE_FILE = '.groundgate/baseline.jsonl';

/** The file as read: a pull request may have written it, so every line is checked against these. */
export const BASELINE_VERSION = '1';
const sha = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-hex commit sha');
const digest = z.string().regex(/^[0-9a-f]{64}$/, 'expected a 64-hex sha256');

export const headerSchema = z.strictObject({
  groundgate_baseline: z.literal(BASELINE_VERSION),
  tool: z.strictObject({ name: z.literal('groundgate'), version: z.string().max(100) }),
  /** HEAD when it was made (null outside a git repository, or before its first commit). */
  commit: sha.nullable(),
  /** Each suite's gold set digest (the sha256 its lock records), for suites that have one. */
  gold: z.record(z.string(), digest),
});

export const suiteLineSchema = z.strictObject({
  suite: z.string().min(1),
  kind: z.string().min(1),
  /** What the max_drop gates compare with: each metric's value (null: not computable then). */
  metrics: z.record(z.string(), z.number().nullable()),
});

export const itemLineSchema = z.strictObject({
  suite: z.string().min(1),
  id: z.string(),
  pass: z.boolean(),
  gold: z
    .string()
    .regex(/^[0-9a-f]{16}$/, 'expected 16 hex digits')
    .optional(),
  values: z.record(z.string(), z.number()).optional(),
});

export type BaselineHeader = z.infer<typeof headerSchema>;

export interface CommittedBaseline {
  header: BaselineHeader;
  /** Suites in the file's order, each with its items by id. */
  suites: Map<
    string,
    { kind: string; metrics: Record<string, number | null>; items: Record<string, ItemVerdict> }
  >;
}

/** A file larger than this is refused before it is read: 200k items take about 16 MB. */
export const MAX_BASELINE_BYTES = 64 * 1024 * 1024;
const MAX_LINE_CHARS = 1024 * 1024;

/**
 * The committed baseline of a report: a header, then per suite (in code-unit order of names) its metrics on
 * one line and each item on one line in code-unit order of ids, so a flipped item is one changed line in a
 * diff. Numbers are written as report.json writes them (JSON.stringify), which reads back to the same value.
 */
export function formatBaseline(report: Report, commit: string | null): string {
  const names = Object.keys(report.suites).sort(compareCodeUnits);
  const gold = Object.create(null) as Record<string, string>;
  for (const name of names) {
    const sha256 = report.suites[name]!.gold?.sha256;
    if (sha256 !== undefined) gold[name] = sha256;
  }
  const header: BaselineHeader = {
    groundgate_baseline: BASELINE_VERSION,
    tool: { name: 'groundgate', version: report.tool.version },
    commit,
    gold,
  };
  const lines = [JSON.stringify(header)];
  for (const name of names) lines.push(...suiteLines(name, report.suites[name]!));
  return `${lines.join('\n')}\n`;
}

function suiteLines(name: string, suite: SuiteReport): string[] {
  const metrics = Object.create(null) as Record<string, number | null>;
  for (const [metric, value] of Object.entries(suite.metrics)) metrics[metric] = value.value;
  const lines = [JSON.stringify({ suite: name, kind: suite.kind, metrics })];
  const items = suite.items ? [...suite.items.members()] : [];
  items.sort(([a], [b]) => compareCodeUnits(a, b));
  for (const [id, v] of items)
    lines.push(
      JSON.stringify({
        suite: name,
        id,
        pass: v.pass,
        ...(v.gold !== undefined ? { gold: v.gold } : {}),
        ...(v.values !== undefined ? { values: sortedValues(v.values) } : {}),
      }),
    );
  return lines;
}

function sortedValues(values: Record<string, number>): Record<string, number> {
  const out = Object.create(null) as Record<string, number>;
  for (const key of Object.keys(values).sort(compareCodeUnits)) out[key] = values[key]!;
  return out;
}

/** Two baselines' text, the header's commit aside: equal when nothing but HEAD moved since it was made. */
export function sameButCommit(a: string, b: string): boolean {
  const [headA, bodyA] = splitHeader(a);
  const [headB, bodyB] = splitHeader(b);
  return bodyA === bodyB && headA !== undefined && headA === headB;
}

/** The header without its commit, and the lines after it. */
function splitHeader(text: string): [string | undefined, string] {
  const end = text.indexOf('\n');
  try {
    const header = JSON.parse(text.slice(0, end)) as Record<string, unknown>;
    return [JSON.stringify({ ...header, commit: null }), text.slice(end)];
  } catch {
    return [undefined, text];
  }
}

const EXPECTED = 'expected a file written by "groundgate baseline"';

/** The committed baseline at `file`, undefined when there is none; an input error when it is unreadable. */
export function readCommittedBaseline(file: string): CommittedBaseline | undefined {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isFile()) throw new InputError({ file }, `committed baseline is not a file; ${EXPECTED}`);
  if (stat.size > MAX_BASELINE_BYTES)
    throw new InputError(
      { file },
      `committed baseline of ${stat.size} bytes; expected at most ${MAX_BASELINE_BYTES}`,
    );
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      { file },
      `committed baseline ${code ? `cannot be read (${code})` : 'is not UTF-8'}; ${EXPECTED}`,
    );
  }
  return parseBaselineFile(text, file);
}

/** The text of a committed baseline, checked line by line; an input error names `file`:line otherwise. */
export function parseBaselineFile(text: string, file: string): CommittedBaseline {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new InputError({ file }, `committed baseline is empty; ${EXPECTED}`);
  const header = parseLine(headerSchema, lines[0]!, file, 1, 'a header {"groundgate_baseline": "1", …}');
  const suites: CommittedBaseline['suites'] = new Map();
  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!.replace(/\r$/, '');
    const value = jsonOf(raw, file, line);
    const isItem = value !== null && typeof value === 'object' && Object.hasOwn(value, 'id');
    if (!isItem) {
      const s = check(suiteLineSchema, value, file, line, 'a suite line {"suite", "kind", "metrics"}');
      if (suites.has(s.suite))
        throw new InputError(
          { file, line },
          `suite ${preview(s.suite)} listed twice; expected one line per suite`,
        );
      suites.set(s.suite, {
        kind: s.kind,
        metrics: s.metrics,
        items: Object.create(null) as Record<string, ItemVerdict>,
      });
      continue;
    }
    const item = check(
      itemLineSchema,
      value,
      file,
      line,
      'an item line {"suite", "id", "pass", "gold"?, "values"?}',
    );
    const suite = suites.get(item.suite);
    if (!suite)
      throw new InputError(
        { file, line },
        `item of suite ${preview(item.suite)} before that suite's line; expected the suite's line first`,
      );
    if (Object.hasOwn(suite.items, item.id))
      throw new InputError(
        { file, line },
        `item ${preview(item.id)} of suite ${preview(item.suite)} listed twice; expected one line per item`,
      );
    suite.items[item.id] = {
      pass: item.pass,
      ...(item.gold !== undefined ? { gold: item.gold } : {}),
      ...(item.values !== undefined ? { values: item.values } : {}),
    };
  }
  return { header, suites };
}

function jsonOf(text: string, file: string, line: number): unknown {
  if (text.length > MAX_LINE_CHARS)
    throw new InputError(
      { file, line },
      `line of ${text.length} characters; expected at most ${MAX_LINE_CHARS}`,
    );
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, column } = describeJsonError(err, text);
    throw new InputError({ file, line, column }, `invalid JSON: ${reason}; ${EXPECTED}`);
  }
}

function parseLine<T extends z.ZodType>(
  schema: T,
  text: string,
  file: string,
  line: number,
  what: string,
): z.output<T> {
  return check(schema, jsonOf(text.replace(/\r$/, ''), file, line), file, line, what);
}

function check<T extends z.ZodType>(
  schema: T,
  value: unknown,
  file: string,
  line: number,
  what: string,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.map(String).join('.') || 'line';
  // A whole line is not repeated: the line number shows it.
  const found =
    issue.path.length === 0
      ? undefined
      : issue.path.reduce<unknown>(
          (v, k) =>
            v !== null && typeof v === 'object' && Object.hasOwn(v, k)
              ? (v as Record<PropertyKey, unknown>)[k]
              : undefined,
          value,
        );
  throw new InputError(
    { file, line },
    `${at}: ${issue.message.replace(/^Invalid input: /, '')}${found === undefined ? '' : ` (found ${preview(found)})`}; expected ${what}`,
  );
}

/**
 * The committed baseline as the report a baseline report.json would be: per suite its kind, gold digest,
 * metric values and item verdicts, which is all the comparison reads. Nothing else of a report is made up.
 */
export function baselineReport(baseline: CommittedBaseline): Report {
  const suites: Record<string, SuiteReport> = {};
  for (const [name, s] of baseline.suites) {
    const sha256 = Object.hasOwn(baseline.header.gold, name) ? baseline.header.gold[name] : undefined;
    const ids = Object.keys(s.items);
    suites[name] = {
      kind: s.kind,
      inputs: {},
      ...(sha256 !== undefined ? { gold: { sha256, items: ids.length } } : {}),
      metrics: Object.fromEntries(Object.entries(s.metrics).map(([m, value]) => [m, { value }])),
      counts: {},
      offenders_total: 0,
      offenders: [],
      warnings: [],
      ...(ids.length ? { items: ItemRecord.fromRecord(s.items) } : {}),
    };
  }
  return {
    schema_version: '1',
    tool: baseline.header.tool as Report['tool'],
    verdict: 'pass',
    config: '',
    suites,
    gates: [],
  };
}
