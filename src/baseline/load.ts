import { readFileSync } from 'node:fs';
import { displayPath } from '../errors.js';
import { reportSchema, type Report } from '../report/schema.js';
import { safeParse } from '../io/validate.js';

/** A baseline that cannot be read is a warning: the check still runs, without deltas. */
export function loadBaseline(file: string): { report: Report } | { warning: string } {
  const fail = (why: string) => ({
    warning: `baseline ${displayPath(file)} ${why}; no deltas, max_drop skipped`,
  });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return fail(`not read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail('is not JSON');
  }
  const parsed = safeParse(reportSchema, data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail(`is not a groundgate report (${issue.path.join('.') || 'root'}: ${issue.message})`);
  }
  return { report: parsed.data };
}
