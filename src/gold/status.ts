import path from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { InputError } from '../errors.js';
import { confine } from '../io/confine.js';
import type { LoadedSuite } from '../suites/types.js';
import type { GoldReport } from '../report/schema.js';
import type { GoldDigest } from './digest.js';
import { defaultLockPath, describeDiff, diffLock, readLock } from './lock.js';

export interface GoldStatus {
  report: GoldReport;
  digest: GoldDigest;
}

/**
 * The lock a suite's gold set is checked against: its `lock:` key, else the default beside the gold. Either
 * must stay in the workspace: freeze writes it, and a symbolic link could send the write anywhere.
 */
export function lockPathFor(
  suite: LoadedSuite,
  config: LoadedConfig,
  goldFiles: readonly string[],
): { file: string; explicit: boolean } {
  const lock = (suite.config as { lock?: unknown }).lock;
  const label = `suites.${suite.name}.lock`;
  if (typeof lock === 'string') {
    const file = path.resolve(config.dir, lock);
    return { file: confine(file, config.scope, lock, suite.keyWhere.lock ?? suite.where, label), explicit: true };
  }
  const file = defaultLockPath(goldFiles[0]!);
  const where = suite.keyWhere[suite.kind.goldKey ?? ''] ?? suite.where;
  return { file: confine(file, config.scope, path.relative(config.dir, file), where, label), explicit: false };
}

/**
 * Compares a gold set's digest with its lock. In release mode a missing or different lock is an
 * input error naming the items that changed; otherwise it is reported (and shown in the PR comment).
 */
export async function goldStatus(
  digest: GoldDigest,
  goldFiles: readonly string[],
  lock: { file: string; explicit: boolean },
  relative: (file: string) => string,
  release: boolean,
): Promise<GoldStatus> {
  const locked = readLock(lock.file);
  const report: GoldReport = { sha256: digest.sha256, items: digest.size };
  const gold = relative(goldFiles[0]!);
  if (!locked) {
    if (release) {
      throw new InputError({ file: lock.file }, `no lock for gold set ${gold}; expected one written by "groundgate freeze" (release mode needs a frozen gold set)`);
    }
    if (lock.explicit) report.lock = { file: relative(lock.file), status: 'missing', added: [], removed: [], changed: [] };
    return { report, digest };
  }
  const diff = diffLock(locked, digest);
  const status = locked.sha256 === digest.sha256 ? 'match' : 'mismatch';
  report.lock = { file: relative(lock.file), status, ...diff };
  if (release && status === 'mismatch') {
    throw new InputError(
      { file: goldFiles[0]! },
      `gold set does not match its lock ${relative(lock.file)}: ${describeDiff(diff)}; a changed gold set needs sign-off and a new lock (groundgate freeze)`,
    );
  }
  return { report, digest };
}
