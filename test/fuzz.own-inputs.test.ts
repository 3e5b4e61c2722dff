import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { refuseInputsAsOutputs, runInputs, type RunInput } from '../src/run-inputs.js';
import { InputError } from '../src/errors.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/**
 * Property-based fuzzing of the check that no output the user names replaces a file the run reads
 * (src/run-inputs.ts): any spelling of an input's path (`./`, `a/../`, doubled slashes, relative or
 * absolute, through a linked folder or a linked file) is refused, naming what it is; a path that leads to
 * no input never is; and no path, however odd, fails otherwise. FUZZ_RUNS sets the inputs per property.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
// fast-check takes a 32-bit seed; a workflow run id is larger.
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;

const GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold/qa.jsonl
    traces: traces/*.jsonl
    lock: gold/qa.lock.json
    gates:
      precision: '>= 0.5'
    claims:
      match: semantic
      cache: judge/judgments.jsonl
      labels: judge/labels.jsonl
`;

/** Workspace-relative files the run reads, and what each is to it. */
const INPUTS: Record<string, string> = {
  'gates.yaml': 'the config',
  'gold/qa.jsonl': "suite qa's gold",
  'gold/qa.lock.json': "suite qa's lock",
  'traces/a.jsonl': "suite qa's traces",
  'traces/b.jsonl': "suite qa's traces",
  'judge/judgments.jsonl': "suite qa's claims.cache",
  'judge/labels.jsonl': "suite qa's claims.labels",
  'base.json': 'the baseline',
};
/** Paths beside them that the run does not read, existing or not. */
const OTHERS = ['notes.txt', 'traces/a.jsonl.bak', 'gold/qa', 'out/report.json', 'judge', 'gold/QA.jsonl'];
/** Links: a folder alias of traces/, and a file link to the gold. */
const ALIASES: Record<string, string> = { 'alias/': 'traces/', 'gold-link.jsonl': 'gold/qa.jsonl' };

let dir: string;
let inputs: RunInput[];

beforeAll(async () => {
  dir = tmpTree({
    'gates.yaml': GATES,
    'gold/qa.jsonl': jsonl([{ qid: 'q1', question: 'Q?', answerable: false }]),
    'traces/a.jsonl': '',
    'traces/b.jsonl': '',
    'judge/judgments.jsonl': '',
    'judge/labels.jsonl': '',
    'base.json': '{}',
    'notes.txt': '',
  });
  symlinkSync(path.join(dir, 'traces'), path.join(dir, 'alias'));
  symlinkSync(path.join(dir, 'gold/qa.jsonl'), path.join(dir, 'gold-link.jsonl'));
  mkdirSync(path.join(dir, 'empty'));
  inputs = await runInputs({ config: path.join(dir, 'gates.yaml'), baseline: path.join(dir, 'base.json') });
});

interface Spelling {
  dots: string[];
  at: number;
  alias: boolean;
  absolute: boolean;
}

/** A path to `target` (workspace-relative) as a user might type it. */
const spelling: fc.Arbitrary<Spelling> = fc.record({
  dots: fc.array(fc.constantFrom('./', 'empty/../', 'gold/../', '/'), { maxLength: 3 }),
  at: fc.nat(),
  alias: fc.boolean(),
  absolute: fc.boolean(),
});

function spell(target: string, s: Spelling): string {
  let rel = target;
  if (s.alias)
    for (const [alias, real] of Object.entries(ALIASES))
      if (rel.startsWith(real) || rel === real) rel = alias + rel.slice(real.length);
  // Noise at a segment boundary: `gold/./qa.jsonl`, `empty/../gold/qa.jsonl`, `gold//qa.jsonl`.
  const cuts = [0, ...[...rel].flatMap((c, i) => (c === '/' ? [i + 1] : []))];
  const cut = cuts[s.at % cuts.length]!;
  rel = rel.slice(0, cut) + s.dots.join('') + rel.slice(cut);
  return s.absolute ? `${dir}/${rel}` : path.relative(process.cwd(), dir) + '/' + rel;
}

function refusal(file: string): string | undefined {
  try {
    refuseInputsAsOutputs([{ flag: '--report', file }], inputs);
    return undefined;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return err.message;
  }
}

describe('an output path against the run’s inputs', () => {
  it('lists every input of the workspace', () => {
    const listed = inputs.map((i) => [path.relative(dir, i.file), i.what]);
    expect(Object.fromEntries(listed)).toEqual(INPUTS);
  });

  it('refuses any spelling of an input, naming it; never a path that is none', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(INPUTS), ...OTHERS, 'gold-link.jsonl'),
        spelling,
        (target, s) => {
          const file = spell(target, s);
          const what = target === 'gold-link.jsonl' ? "suite qa's gold" : INPUTS[target];
          expect(refusal(file)).toBe(
            what === undefined
              ? undefined
              : `--report ${file}: is an input of this run (${what}); expected a path that is not read by the run`,
          );
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('takes any other text without failing otherwise', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (junk) => {
        const message = refusal(junk);
        if (message !== undefined) expect(message).toMatch(/: is an input of this run \(/);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
