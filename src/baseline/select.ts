import path from 'node:path';
import { digestsApart, InputError } from '../errors.js';
import { confine, type PathScope } from '../io/confine.js';
import type { BaselineSource, Report } from '../report/schema.js';
import { BASELINE_FILE, baselineReport, readCommittedBaseline } from './committed.js';

/**
 * A baseline found before the run (an artifact: baseline auto), or why none was. A report may come with a
 * warning about one not found in its place.
 */
export type FoundBaseline =
  { report: Report; source?: BaselineSource; warning?: string } | { warning: string };

/** The committed baseline as a run compares with it. */
export interface Committed {
  report: Report;
  source: { source: 'committed'; file: string; commit: string | null };
  /** Its path, for errors. */
  file: string;
}

const REFRESH = 'run "groundgate baseline" and commit .groundgate/baseline.jsonl';

/** The committed baseline beside gates.yaml (`dir`), if there is one, and where it is looked for. */
export function committedBaseline(dir: string, scope: PathScope): { file: string; found?: Committed } {
  const file = confine(path.join(dir, BASELINE_FILE), scope, BASELINE_FILE, { file: BASELINE_FILE });
  const read = readCommittedBaseline(file);
  if (!read) return { file };
  const source = { source: 'committed', file: BASELINE_FILE, commit: read.header.commit } as const;
  return { file, found: { report: baselineReport(read), source, file } };
}

/**
 * Release sign-off compares with a baseline made for the gold set it signs off: an input error unless the
 * committed baseline exists and was made for suite `suite`'s gold set (digest `now`). Called once the suite
 * is scored, so a gold set that does not match its lock is told first.
 */
export function requireCommitted(
  committed: { file: string; found?: Committed },
  suite: string,
  now: string | undefined,
): void {
  const { file, found } = committed;
  if (!found)
    throw new InputError(
      { file },
      `no committed baseline; release sign-off compares with the one made for its gold set: ${REFRESH}`,
    );
  const other = otherGoldSet(found.report.suites[suite]?.gold?.sha256, now);
  if (other) throw new InputError({ file }, `suite ${suite}: ${other}`);
}

/** A warning that a baseline was not found ends so; with the committed one in its place it ends otherwise. */
const NONE_COMPARED = /no deltas, max_drop gates skipped$/;

/**
 * What a run compares with, in order: the report given or found (--baseline, baseline: auto / gh:auto),
 * else the committed baseline. A warning that the first was not found stays, saying what took its place.
 */
export function chooseBaseline(
  found: FoundBaseline | undefined,
  committed: Committed | undefined,
): FoundBaseline | undefined {
  if ((found && 'report' in found) || !committed) return found;
  const { report, source } = committed;
  const instead = `compared with the committed baseline ${BASELINE_FILE} instead`;
  return found
    ? { report, source, warning: found.warning.replace(NONE_COMPARED, instead) }
    : { report, source };
}

/**
 * Why the committed baseline cannot be compared with a suite: it was made for another gold set (digests
 * `made` then, `now`); undefined when it was made for this one. Its items would pair with other questions.
 */
export function otherGoldSet(made: string | undefined, now: string | undefined): string | undefined {
  if (made === now) return undefined;
  const [then, here] = digestsApart(made, now);
  return `the committed baseline ${BASELINE_FILE} was made for another gold set (sha256 ${then} there, ${here} now); not compared: ${REFRESH}`;
}
