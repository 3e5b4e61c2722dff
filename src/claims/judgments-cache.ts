import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { compareCodeUnits, isRegularFile } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { validateLine } from '../io/validate.js';
import { VERDICTS } from './judge-prompt.js';

export type { Verdict } from './judge-prompt.js';

/**
 * One line of the judgments file (.groundgate/judgments.jsonl): the verdict of one ask, by its key (see
 * judgmentKey), with the model asked (`model`, part of the key: what a run without GROUNDGATE_JUDGE_MODEL
 * takes; absent from lines written before it was recorded), what the endpoint said it ran (`model_returned`,
 * `fingerprint`: the response's `model` and `system_fingerprint`), the prompt's id and when it was recorded.
 * The file is the verdict: committed, reviewed in a pull request's diff, never expired.
 */
export const judgmentSchema = z.strictObject({
  key: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest (64 lowercase hex digits)'),
  verdict: z.enum(VERDICTS),
  model: z.string().min(1).optional(),
  model_returned: z.string(),
  fingerprint: z.string().nullable(),
  prompt: z.string().min(1),
  recorded_at: z.iso.datetime({
    offset: true,
    error: 'expected an ISO 8601 date-time such as 2026-11-28T13:05:00.000Z',
  }),
});
export type Judgment = z.infer<typeof judgmentSchema>;

const WHAT = 'a judgment {key, verdict, model, model_returned, fingerprint, prompt, recorded_at}';

/**
 * The judgments of a file by key; a missing file has none, and anything but a regular file (a FIFO, a
 * device, a folder) is an input error. Each line is checked (an error names it); two lines of one key with
 * different verdicts (a bad merge) are an error naming both, while lines of one key that agree on the verdict
 * are one judgment, the first recorded (so the file is written with one of them).
 */
export async function readJudgments(file: string): Promise<Map<string, Judgment>> {
  const found = new Map<string, { judgment: Judgment; line: number }>();
  if (!isRegularFile(file, { file }, 'claims.cache')) return new Map();
  for await (const { line, value } of readJsonl(file)) {
    const judgment = validateLine(judgmentSchema, value, file, line, WHAT);
    const known = found.get(judgment.key);
    if (known && known.judgment.verdict !== judgment.verdict)
      throw new InputError(
        { file, line },
        `key ${judgment.key.slice(0, 12)}… has verdict ${judgment.verdict} here and ${known.judgment.verdict} at line ${known.line}; expected one verdict per key (two judgments of one ask, a bad merge?): keep the right line and delete the other`,
      );
    if (!known || firstRecorded(judgment, known.judgment) < 0) found.set(judgment.key, { judgment, line });
  }
  return new Map([...found].map(([key, { judgment }]) => [key, judgment]));
}

/**
 * Writes the judgments sorted by key, one JSON line each with its fields in a fixed order, to a temporary
 * file beside `file` renamed over it: a run cut short leaves the old file whole. Judgments of one key are
 * written once (the first recorded); two verdicts for one key are a bug of the caller.
 */
export async function writeJudgments(file: string, all: Iterable<Judgment>): Promise<void> {
  const byKey = new Map<string, Judgment>();
  for (const j of all) {
    const known = byKey.get(j.key);
    if (known && known.verdict !== j.verdict)
      throw new Error(`two verdicts for judgment ${j.key}: ${known.verdict} and ${j.verdict}`);
    if (!known || firstRecorded(j, known) < 0) byKey.set(j.key, j);
  }
  const keys = [...byKey.keys()].sort(compareCodeUnits);
  const text = keys.map((k) => judgmentLine(byKey.get(k)!)).join('');
  await mkdir(path.dirname(file), { recursive: true });
  // Unique per write: two suites of one run may share the file.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * One line of the file: the fields in the schema's order, whatever order the object has them in (a line read
 * without `model` is written without it: its model is not known).
 */
function judgmentLine(j: Judgment): string {
  const { key, verdict, model, model_returned, fingerprint, prompt, recorded_at } = j;
  return `${JSON.stringify({ key, verdict, model, model_returned, fingerprint, prompt, recorded_at })}\n`;
}

/** The models a file's judgments were asked of, sorted; lines without `model` name none. */
export function modelsOf(judgments: Iterable<Judgment>): string[] {
  const models = new Set<string>();
  for (const j of judgments) if (j.model !== undefined) models.add(j.model);
  return [...models].sort(compareCodeUnits);
}

/** Of two agreeing judgments, the one recorded first; the same instant: the smaller line (any fixed rule). */
function firstRecorded(a: Judgment, b: Judgment): number {
  return (
    Date.parse(a.recorded_at) - Date.parse(b.recorded_at) ||
    compareCodeUnits(judgmentLine(a), judgmentLine(b))
  );
}
