import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { shortSha } from '../report/baseline-source.js';
import { confine, type PathScope } from '../io/confine.js';
import type { Report } from '../report/schema.js';
import { BASELINE_FILE, formatBaseline, sameButCommit } from './committed.js';
import { headCommit } from './head.js';

export interface BaselineWritten {
  file: string;
  /** Unchanged: the file held these verdicts and values already, and keeps its commit and its bytes. */
  status: 'written' | 'unchanged';
  commit: string | null;
  suites: number;
  items: number;
}

/**
 * Writes the committed baseline of `report` beside gates.yaml (`dir`), made at HEAD (headCommit). A file that
 * differs from it only in the commit is left as it is: the baseline changes when the verdicts do, not when
 * HEAD moves, so rewriting an unchanged baseline is no diff.
 */
export function writeCommittedBaseline(
  report: Report,
  dir: string,
  scope: PathScope,
  env: NodeJS.ProcessEnv,
): BaselineWritten {
  const file = confine(path.join(dir, BASELINE_FILE), scope, BASELINE_FILE, { file: BASELINE_FILE });
  const commit = headCommit(dir, env);
  const text = formatBaseline(report, commit);
  const suites = Object.values(report.suites);
  const counts = { suites: suites.length, items: suites.reduce((n, s) => n + (s.items?.size ?? 0), 0) };
  const old = readOrUndefined(file);
  if (old !== undefined && sameButCommit(old, text)) {
    const kept = /"commit":(null|"([0-9a-f]{40})")/.exec(old)?.[2] ?? null;
    return { file, status: 'unchanged', commit: kept, ...counts };
  }
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (err) {
    throw new InputError(
      { file },
      `cannot write the baseline (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return { file, status: 'written', commit, ...counts };
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** "wrote .groundgate/baseline.jsonl: 2 suites, 48 items, at commit abc1234; commit it". */
export function describeWritten(w: BaselineWritten): string {
  const at =
    w.commit === null
      ? 'at no commit (outside a git repository, or before its first)'
      : `at commit ${shortSha(w.commit)}`;
  const what = `${w.suites} suite${w.suites === 1 ? '' : 's'}, ${w.items} item${w.items === 1 ? '' : 's'}`;
  return w.status === 'unchanged'
    ? `${BASELINE_FILE} unchanged (${what}, made ${at})`
    : `wrote ${BASELINE_FILE}: ${what}, ${at}; commit it`;
}
