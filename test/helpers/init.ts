import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';
import { REPO, tmpTree } from './tmp.js';

/** A repository with the example's gold set and today's traces, and the regressed traces kept aside. */
export function qaRepo(): string {
  const dir = tmpTree({});
  mkdirSync(path.join(dir, 'gold'));
  mkdirSync(path.join(dir, 'runs'));
  cpSync(path.join(REPO, 'gold/qa.gold.jsonl'), path.join(dir, 'gold/qa.gold.jsonl'));
  cpSync(path.join(REPO, 'runs/qa.trace.jsonl'), path.join(dir, 'runs/qa.trace.jsonl'));
  return dir;
}
export const REGRESSED = path.join(REPO, 'runs/qa-regressed.trace.jsonl');

export const listing = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
export const gatesOf = (dir: string) =>
  parse(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')) as {
    suites: Record<string, { kind: string; gates: Record<string, unknown> } & Record<string, unknown>>;
  };

/** `groundgate init -C dir --no-workflow …` in-process, with no terminal: its output and exit status. */
export async function init(dir: string, ...args: string[]) {
  let out = '';
  let err = '';
  const status = await main(['init', '-C', dir, '--no-workflow', ...args], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTty: false,
    env: {},
  });
  return { out, err, status };
}
