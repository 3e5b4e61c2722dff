import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh temporary folder with the given files (path → content); returns its path. */
export function tmpTree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'groundgate-test-'));
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
