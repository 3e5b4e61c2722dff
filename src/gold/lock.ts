import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { compareCodeUnits } from '../io/files.js';
import { TOOL_NAME, VERSION } from '../version.js';
import type { GoldDigest } from './digest.js';
import { ownRecord } from '../io/own-record.js';
import { safeParse } from '../io/validate.js';
import { readText } from '../io/utf8.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest');

export const lockSchema = z.strictObject({
  lock_version: z.literal(1),
  tool: z.string(),
  /** Gold files, relative to the lock's folder. */
  gold: z.array(z.string()),
  sha256: hex64,
  items: z.int().min(0),
  /** The day of freezing (UTC), YYYY-MM-DD. */
  frozen: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  item_sha256: ownRecord(hex64),
});
export type GoldLock = z.infer<typeof lockSchema>;

export interface LockDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Where a gold set's lock lives unless the suite names one: `gold/qa.gold.jsonl` → `gold/qa.gold.lock.json`. */
export function defaultLockPath(goldFile: string): string {
  return goldFile.replace(/\.jsonl?$/i, '') + '.lock.json';
}

export function buildLock(digest: GoldDigest, goldFiles: readonly string[], lockFile: string, day: string): GoldLock {
  const dir = path.dirname(lockFile);
  const items = digest.items();
  const ids = [...items.keys()].sort(compareCodeUnits);
  return {
    lock_version: 1,
    tool: `${TOOL_NAME} ${VERSION}`,
    gold: goldFiles.map((f) => path.relative(dir, f).split(path.sep).join('/')),
    sha256: digest.sha256,
    items: ids.length,
    frozen: day,
    item_sha256: Object.fromEntries(ids.map((id) => [id, items.get(id)!])),
  };
}

/** Writes the lock unless the file already holds exactly its bytes; says whether it wrote. */
export function writeLock(file: string, lock: GoldLock): boolean {
  const text = `${JSON.stringify(lock, null, 2)}\n`;
  if (existsSync(file) && readText(file) === text) return false;
  writeFileSync(file, text);
  return true;
}

export function readLock(file: string): GoldLock | undefined {
  if (!existsSync(file)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readText(file));
  } catch {
    throw new InputError({ file }, 'lock file is not JSON; expected a lock written by groundgate freeze');
  }
  const parsed = safeParse(lockSchema, data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError({ file }, `${issue.path.join('.') || 'lock'}: ${issue.message.replace(/^Invalid input: /, '')}; expected a lock written by groundgate freeze`);
  }
  return parsed.data;
}

export function diffLock(lock: GoldLock, digest: GoldDigest): LockDiff {
  const added: string[] = [];
  const changed: string[] = [];
  const items = digest.items();
  for (const [id, sha] of items) {
    const locked = Object.hasOwn(lock.item_sha256, id) ? lock.item_sha256[id] : undefined;
    if (locked === undefined) added.push(id);
    else if (locked !== sha) changed.push(id);
  }
  const removed = Object.keys(lock.item_sha256).filter((id) => !items.has(id));
  return { added: added.sort(compareCodeUnits), removed: removed.sort(compareCodeUnits), changed: changed.sort(compareCodeUnits) };
}

/** "2 changed (FM003, FM007), 1 added (FM050)" — ids listed up to a limit. */
export function describeDiff(diff: LockDiff, limit = 10): string {
  const part = (n: string, ids: string[]) =>
    ids.length ? `${ids.length} ${n} (${ids.slice(0, limit).join(', ')}${ids.length > limit ? `, … ${ids.length - limit} more` : ''})` : '';
  return [part('changed', diff.changed), part('added', diff.added), part('removed', diff.removed)].filter(Boolean).join(', ');
}

/** Today in UTC, or SOURCE_DATE_EPOCH's day for reproducible freezes. */
export function today(env: NodeJS.ProcessEnv = process.env): string {
  const epoch = env.SOURCE_DATE_EPOCH;
  const date = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return date.toISOString().slice(0, 10);
}
