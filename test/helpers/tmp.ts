import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The temporary folders made since the last removeTmpDirs, which tmp-cleanup.ts calls after each test file. */
const made: string[] = [];

/** A fresh temporary folder, removed once the test file is done (see removeTmpDirs). */
export function tmpDir(prefix = 'groundgate-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes the folders tmpDir made: tens of thousands were left in /tmp after a few hundred test runs. */
export function removeTmpDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A process a test started may still be writing there: the folder is left, as all were before.
    }
  }
}

/** A fresh temporary folder with the given files (path → content); returns its path. */
export function tmpTree(files: Record<string, string>): string {
  const dir = tmpDir();
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return dir;
}

export const jsonl = (rows: readonly unknown[]): string =>
  rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
/** Copies of public sample data (see test/fixtures/README.md), so a clone needs nothing beside it. */
export const FIXTURES = path.resolve(REPO, 'test', 'fixtures');

/** The repo's gates.yaml with only its first suite (qa): tests of the qa example ignore later suites. */
export function qaOnlyGates(): string {
  const config = readFileSync(path.join(REPO, 'gates.yaml'), 'utf8');
  const next = config.search(/\n {2}\S+:\n {4}kind: (?!grounded-qa)/);
  return next === -1 ? config : config.slice(0, next + 1);
}
