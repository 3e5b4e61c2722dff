import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parseConfig } from '../src/config/load.js';
import { scuRules } from '../src/grounded-answer/config.js';
import { judgeInto, judgeItem, judgeOptions } from '../src/grounded-answer/pipeline/judge.js';
import { newRunTable } from '../src/grounded-answer/pipeline/runs.js';
import type { GroundedQaConfig } from '../src/suites/grounded-qa/config.js';
import { InputError } from '../src/errors.js';

/**
 * Property-based fuzzing of the patterns gates.yaml supplies (refusal patterns, citation markers, SCU
 * rules; a fork's pull request may write them): each generated pattern either loads or is refused with one
 * line naming its key, and an accepted one judges any claim up to 20 kB (runs of what such patterns
 * backtrack on, then a tail) without throwing or hanging. FUZZ_RUNS sets the inputs: a sample in CI,
 * 10,000 in the nightly run (npm run fuzz).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
// fast-check takes a 32-bit seed; a workflow run id is larger.
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;
/** Far above what RE2 takes on 20 kB with a 1,000-instruction program: only a hang reaches it. */
const HANG_MS = 10_000;
const FILE = path.join(process.cwd(), 'gates.yaml');

/** Pieces of patterns: RE2's syntax, JavaScript's that RE2 lacks, and what backtracking engines choke on. */
const PIECES = [
  'a',
  'b',
  'x',
  'é',
  '😀',
  ' ',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\b',
  '\\B',
  '^',
  '$',
  '[ab]',
  '[^a]',
  '[a-',
  '\\[',
  '\\]',
  '\\p{L}',
  '\\x{e9}',
  '\\u00e9',
  '\\1',
  '\\k<n>',
  '(?<=a)',
  '(?<!a)',
  '(?=a)',
  '(?!a)',
  '(?<n>',
  '(?P<n>',
  '(?i)',
  '(?s)',
  '(',
  '(?:',
  ')',
  '|',
  '*',
  '+',
  '?',
  '*?',
  '{2}',
  '{0,5}',
  '{1000}',
  '{2,1}',
  '\\',
  '.*',
  'a*',
  '(a|a)*',
  '(a+)+',
  '\\[(\\d+)\\]',
];
/** Pieces RE2 reads wherever they stand (a quantifier may still follow nothing): most patterns load. */
const RE2_PIECES = [
  'a',
  'b',
  'x',
  'é',
  ' ',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\b',
  '[ab]',
  '[^a]',
  '(a|a)*',
  '(a+)+',
  '.*',
  'a*',
  '(a*)',
  '\\[(\\d+)\\]',
  '*',
  '?',
  '{2}',
  '|',
];
const pieces = (from: string[]) =>
  fc.array(fc.constantFrom(...from), { minLength: 1, maxLength: 12 }).map((p) => p.join(''));
const pattern = fc.oneof(
  { weight: 3, arbitrary: pieces(RE2_PIECES) },
  { weight: 3, arbitrary: pieces(PIECES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
);
const claim = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', 'x', ' ', 'é', '😀', '[1]', 'A', '\n', 'must'), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.integer({ min: 0, max: 20_000 }),
    fc.constantFrom('', 'b', 'x', ' [2]', 'not in context', 'ab!'),
  )
  .map(([unit, length, tail]) => {
    const run = unit.join('');
    return run.repeat(Math.ceil(length / run.length)).slice(0, length) + tail;
  });
const where = fc.constantFrom('refusal', 'markers-rank', 'markers-id', 'scu-lock', 'scu-contradiction');

/** A grounded-qa gates.yaml with `source` as the pattern at `at`. */
function gates(source: string, at: string): string {
  const qa: Record<string, unknown> = { kind: 'grounded-qa', gold: 'g.jsonl', traces: 't.jsonl', scu: true };
  if (at === 'refusal') qa.refusal = { patterns: [source] };
  if (at.startsWith('markers')) qa.citation_markers = { pattern: source, refers_to: at.slice(8) };
  if (at === 'scu-lock') qa.scu = { rules: [{ lock: source, contradiction: 'never' }] };
  if (at === 'scu-contradiction')
    qa.scu = { default_rules: false, rules: [{ lock: 'must', contradiction: source }] };
  return YAML.stringify({ version: 1, suites: { qa } });
}

/** Judges `text` as the claim of an answerable and an unanswerable item with constraints, as a run does. */
function judged(config: GroundedQaConfig, text: string): number[] {
  const rules = scuRules(config.scu);
  const options = judgeOptions(config.refusal_token, rules, [1], {
    ...(config.refusal && { refusal: config.refusal }),
    ...(config.citation_markers && { markers: config.citation_markers }),
  });
  const table = newRunTable(2, 1);
  [true, false].forEach((answerable, row) => {
    const gold = {
      qid: `q${row}`,
      answerable,
      claimSubstrings: answerable ? ['a'] : [],
      citations: answerable ? ['d1'] : [],
      constraints: [text.slice(0, 200), 'you must stay'],
      source: { file: 'g.jsonl', line: row + 1, offset: 0, length: 0 },
    };
    const trace = { retrieved_ids: ['d1', 'd2'], answer_json: { claim: text, citations: ['d1'] } };
    judgeInto(judgeItem(gold, rules), trace, options, table, row);
  });
  return [...table.flags];
}

describe('gates.yaml patterns (fuzz)', () => {
  it('load or give one line naming their key; an accepted one judges any claim up to 20 kB, never throwing or hanging', () => {
    fc.assert(
      fc.property(pattern, where, claim, (source, at, text) => {
        let config: GroundedQaConfig;
        try {
          config = parseConfig(gates(source, at), FILE).suites[0]!.config as GroundedQaConfig;
        } catch (err) {
          expect(err).toBeInstanceOf(InputError);
          const message = (err as InputError).message;
          expect(message).not.toContain('\n');
          expect(message).toMatch(
            /^gates\.yaml:\d+:\d+: suite "qa": (refusal\.patterns\.0|citation_markers\.pattern|scu\.rules\.0\.(lock|contradiction)): /,
          );
          return;
        }
        const start = performance.now();
        const flags = judged(config, text);
        expect(flags.every((f) => f > 0)).toBe(true);
        expect(performance.now() - start).toBeLessThan(HANG_MS);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);
});
