import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

/**
 * #54: no gates.yaml, gold or traces a fork's pull request can write keeps a check busy. Each case is the
 * repository's example (47 items) made adversarial as the issue found it — 20 kB claims, patterns that
 * backtrack, a 200-token fact under min_token_recall 0.5 — run through the bundled CLI, which is stopped
 * after 10 s (the issue's bound on example-size data). The metrics are the example's known ones (precision
 * 30/33, chr 32/33, under_refusal 0/12, over_refusal 2/35), or what the case changes by hand.
 */
const BOUND_MS = 10_000;
const PAD = 'a'.repeat(20_000);
const REFUSAL = 'not in context';

interface Trace {
  qid: string;
  answer_json: { claim: string; citations?: string[] };
  [key: string]: unknown;
}
interface Gold {
  qid: string;
  gold_claim_substr?: string[];
  [key: string]: unknown;
}

const readLines = <T>(file: string): T[] =>
  readFileSync(path.join(REPO, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

const GOLD = readLines<Gold>('gold/qa.gold.jsonl');
const TRACES = readLines<Trace>('runs/qa.trace.jsonl');

/** Every answer (not the refusal token) with `pad` after its text: refusals stay refusals. */
function padded(pad: (t: Trace) => string, traces = TRACES): Trace[] {
  return traces.map((t) =>
    t.answer_json.claim.trim().toLowerCase() === REFUSAL
      ? t
      : { ...t, answer_json: { ...t.answer_json, claim: `${t.answer_json.claim}${pad(t)}` } },
  );
}

/** The qa suite of the repository's gates.yaml, without its lock (the gold set may differ), plus `extra`. */
function gates(extra: string, scu = 'true'): string {
  return qaOnlyGates()
    .replace(/\bscu: true\b/, `scu: ${scu}`)
    .replace(/\n\s+lock:[^\n]*/, '')
    .replace(
      /\n( +)refusal_token:/,
      (_, indent: string) => `\n${indent}${extra.replaceAll('\n', `\n${indent}`)}\n${indent}refusal_token:`,
    );
}

function check(files: Record<string, string>) {
  const dir = tmpTree(files);
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [path.join(REPO, 'dist', 'cli', 'index.js'), '--report', 'report.json', '--format', 'text'],
    { cwd: dir, encoding: 'utf8', timeout: BOUND_MS, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
  );
  const ms = Date.now() - started;
  expect(r.signal, `stopped after ${ms} ms: the check ran past ${BOUND_MS} ms`).toBeNull();
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect([0, 1], r.stderr).toContain(r.status);
  const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as {
    suites: Record<string, { metrics: Record<string, { numerator?: number; denominator?: number }> }>;
  };
  const m = report.suites.qa!.metrics;
  const ratio = (name: string) => `${m[name]!.numerator}/${m[name]!.denominator}`;
  return { ratio, value: (name: string) => (m[name] as { value: number }).value };
}

const EXAMPLE = {
  precision: '30/33',
  chr: '32/33',
  under_refusal: '0/12',
  over_refusal: '2/35',
};

describe('a fork cannot stall a check (bundled CLI, 10 s bound on the example)', () => {
  it('refusal patterns and an SCU rule that backtrack on a 20 kB claim', () => {
    const { ratio, value } = check({
      'gates.yaml': gates(
        ['refusal:', "  patterns: ['a*a*%', '.*.*%', 'a*a*a*%', '(a*)a*%']"].join('\n'),
        "{ rules: [{ lock: 'must', contradiction: 'a*a*a*%' }] }",
      ),
      'gold/qa.gold.jsonl': jsonl(GOLD),
      'runs/qa.trace.jsonl': jsonl(padded(() => ` ${PAD}`)),
    });
    // No claim holds a `%`: nothing is refused, nothing contradicts, and the example's numbers stand.
    for (const [name, expected] of Object.entries(EXAMPLE)) expect(ratio(name), name).toBe(expected);
    expect(value('scu_violations')).toBe(0);
  });

  it('a citation marker pattern that backtracks before each marker', () => {
    // The trace's citations become markers after 20 kB of `a`: `a*a*` tries every split of the run, then
    // finds no `[`, from each of its 20,000 starts.
    const traces = padded(
      (t) => ` ${PAD} ${(t.answer_json.citations ?? []).map((c) => `[${c}]`).join(' ')}`,
    ).map(({ answer_json: { citations: _, ...answer }, ...t }) => ({ ...t, answer_json: answer }));
    const { ratio } = check({
      'gates.yaml': gates(
        ['citation_markers:', "  pattern: 'a*a*\\[([a-z]+#\\d+)\\]'", '  refers_to: id'].join('\n'),
      ),
      'gold/qa.gold.jsonl': jsonl(GOLD),
      'runs/qa.trace.jsonl': jsonl(traces),
    });
    for (const [name, expected] of Object.entries(EXAMPLE)) expect(ratio(name), name).toBe(expected);
  });

  it('normalized matching of a 200-token fact in a 20 kB claim at min_token_recall 0.5', () => {
    // FM001's and FM003's fact becomes `w` 200 times: 100 found in order make it contained. Both claims are
    // 20 kB of near misses, 99 `w` cut by a `not`, a hundred times over (the old search tried every way through
    // them). FM003's then ends with four plain words, which put the last `not` outside the negation window,
    // and 100 `w`: contained. FM001's has no more: not contained, so one answer fewer is precise (FM001 was).
    const w = (n: number) => Array(n).fill('w').join(' ');
    const nearMisses = `${w(99)} not `.repeat(100);
    const gold = GOLD.map((g) =>
      g.qid === 'FM001' || g.qid === 'FM003' ? { ...g, gold_claim_substr: [w(200)] } : g,
    );
    const claims: Record<string, string> = {
      FM001: nearMisses,
      FM003: `${nearMisses}and that is all: ${w(100)}`,
    };
    const traces = TRACES.map((t) =>
      claims[t.qid] ? { ...t, answer_json: { ...t.answer_json, claim: claims[t.qid]! } } : t,
    );
    const { ratio } = check({
      'gates.yaml': gates(['claims:', '  match: normalized', '  min_token_recall: 0.5'].join('\n')),
      'gold/qa.gold.jsonl': jsonl(gold),
      'runs/qa.trace.jsonl': jsonl(traces),
    });
    expect(ratio('precision')).toBe('29/33');
    expect(ratio('under_refusal')).toBe('0/12');
  });
});
