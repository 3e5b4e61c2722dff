import { displayPath, InputError, preview } from '../errors.js';
import { describeJsonError } from '../io/jsonl.js';
import { reportSchema, type Report } from '../report/schema.js';
import { safeParse } from '../io/validate.js';
import { readText } from '../io/utf8.js';
import { isObject } from '../io/record-shape.js';
import { renamedRule } from '../claims/rules/index.js';

const EXPECTED =
  "expected a report.json written by groundgate (check --report, or the Action's report output)";

/**
 * A baseline report (often an artifact of another run: data, checked against its schema). One that is
 * there but is not a groundgate report of this schema version is an input error: its max_drop gates must
 * not vanish. A missing one is an error too, unless `missingOk` (the Action's documented behaviour, for a
 * base branch that has no report yet): then a warning, and max_drop gates show as skipped.
 */
export function loadBaseline(file: string, missingOk = false): { report: Report } | { warning: string } {
  let text: string;
  try {
    text = readText(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT' && missingOk) {
      return { warning: `baseline ${displayPath(file)} not found; no deltas, max_drop gates skipped` };
    }
    throw new InputError(
      { file },
      code === 'ENOENT'
        ? `baseline not found; ${EXPECTED}`
        : `baseline cannot be read (${code}); ${EXPECTED}`,
    );
  }
  return { report: parseBaseline(text, file) };
}

/**
 * A baseline's text as a report, or an input error naming `file` (a path, or an artifact's label); `what`
 * the report is to the reader (a baseline, or the pull request's report that mode: comment posts).
 */
export function parseBaseline(text: string, file: string, what = 'baseline'): Report {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new InputError(
      { file },
      `${what} is not JSON (${describeJsonError(err, text).reason}); ${EXPECTED}`,
    );
  }
  const parsed = safeParse(reportSchema, renameRules(data));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.map(String).join('.') || 'root';
    const found = issue.path.reduce<unknown>(
      (v, k) =>
        v !== null && typeof v === 'object' && Object.hasOwn(v, k)
          ? (v as Record<PropertyKey, unknown>)[k]
          : undefined,
      data,
    );
    throw new InputError(
      { file },
      `${what} is not a groundgate report: ${at}: ${issue.message.replace(/^Invalid input: /, '')}${found === undefined ? '' : ` (found ${preview(found)})`}; ${EXPECTED}`,
    );
  }
  return parsed.data;
}

/**
 * A report written before a claim rule was renamed (`judged`, now `semantic`) read with its rule's name of
 * today: each offender's `match` and the `claims_<name>` count. Only read so: a run writes one name a rule.
 */
function renameRules(data: unknown): unknown {
  if (!isObject(data) || !isObject(data.suites)) return data;
  for (const suite of Object.values(data.suites)) {
    if (!isObject(suite)) continue;
    if (Array.isArray(suite.offenders))
      for (const o of suite.offenders)
        if (isObject(o) && typeof o.match === 'string') o.match = renamedRule(o.match) ?? o.match;
    const counts = suite.counts;
    if (isObject(counts) && Object.keys(counts).some((key) => formerCount(key, counts)))
      suite.counts = Object.fromEntries(
        Object.entries(counts).map(([key, n]) => [formerCount(key, counts) ?? key, n]),
      );
  }
  return data;
}

/** The key of today for a former rule's count, when the counts lack it; undefined for any other key. */
function formerCount(key: string, counts: Record<string, unknown>): string | undefined {
  const now = key.startsWith('claims_') ? renamedRule(key.slice('claims_'.length)) : undefined;
  return now === undefined || `claims_${now}` in counts ? undefined : `claims_${now}`;
}
