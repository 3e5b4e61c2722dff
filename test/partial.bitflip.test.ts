import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { writePartialRun } from '../src/partial/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/**
 * A partial may come from a fork's job, or be damaged in an upload: a single-bit flip of a small grounded-qa
 * partial (in any section, in a number of its header, or elsewhere in its header) either is exit 2 with one
 * line naming the partial, or merges into the report the partial as written gives, byte for byte. The merge
 * runs in this process (src/, not dist/). CI flips a sample of each section's bits and a bit of each digit;
 * with FUZZ_RUNS of 1000 or more (npm run fuzz, the nightly run), every bit of the sections and the header.
 */
const EVERY_BIT = Number(process.env.FUZZ_RUNS ?? 0) >= 1000;
const gold = Array.from({ length: 9 }, (_, i) => ({
  qid: `Q${i}`,
  question: `question ${i}?`,
  answerable: i % 4 !== 3,
  gold_claim_substr: i % 4 !== 3 ? [`fact ${i}`] : [],
  gold_citations: i % 4 !== 3 ? [`d${i}`] : [],
  ...(i % 3 === 0 ? { constraints: ['Tokens must never be logged.'] } : {}),
}));
// Correct runs, refusals, a citation miss, a claim miss, an SCU violation, an under-refusal, a superseded
// run, a qid not in gold: each flags word and section of a partial holds something.
const trace = (qid: string, ts: number, claim: string, cited: string, extra = {}) =>
  JSON.stringify({
    ts,
    qid,
    retrieved_ids: [cited, 'd0', 'd8'],
    answer_json: { claim, citations: [cited], constraints_echo: ['Tokens must never be logged.'] },
    ...extra,
  });
const shards = [
  [
    trace('Q0', 1, 'It is fact 0.', 'd0'),
    trace('Q1', 1, 'not in context', 'd1'),
    trace('Q2', 1, 'It is fact 2.', 'd9'),
    trace('Q3', 1, 'It is fact 3.', 'd3'),
    trace('Q4', 1, 'It is something else.', 'd4'),
    trace('Q4', 2, 'It is fact 4.', 'd4'),
    trace('Q99', 1, 'It is fact 99.', 'd99'),
  ],
  [
    trace('Q5', 1, 'It is fact 5.', 'd5'),
    trace('Q6', 1, 'Fact 6: tokens may be logged.', 'd6'),
    trace('Q7', 1, 'not in context', 'd7'),
    trace('Q0', 0, 'It is not it.', 'd0'),
  ],
];
const GATES = `version: 1
report_offenders: 20
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces/*/*.jsonl
    k: 3
    scu: true
    gates:
      precision: '>= 0.9'
      recall@3: '>= 0.5'
`;

interface Outcome {
  code: number;
  stderr: string;
  report?: Buffer;
}

/** `groundgate merge` of the two partials, in `dir`, as the CLI runs it. */
async function merge(dir: string): Promise<Outcome> {
  const report = path.join(dir, 'report.json');
  rmSync(report, { force: true });
  let stderr = '';
  const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t), isTty: false, env: {} };
  const previous = process.cwd();
  process.chdir(dir);
  try {
    const code = await main(['merge', 'parts/0.partial', 'parts/1.partial', '--report', 'report.json'], io);
    return { code, stderr, ...(existsSync(report) ? { report: readFileSync(report) } : {}) };
  } finally {
    process.chdir(previous);
  }
}

/** Bits of `length` bytes from `start`: every one of a short span, else `most` spread over it. */
function bitsOf(start: number, length: number, most: number): number[] {
  const bits = 8 * length;
  if (bits <= most) return Array.from({ length: bits }, (_, i) => 8 * start + i);
  // Spread, with each bit position within a byte met about as often.
  return Array.from({ length: most }, (_, i) => 8 * start + (Math.floor((i * bits) / most) & ~7) + (i % 8));
}

describe('merge of a partial with one bit flipped (every section, every header number)', () => {
  it('is exit 2 with one line naming the partial, or the report of the partial as written', async () => {
    const dir = tmpTree({ 'gold.jsonl': jsonl(gold), 'gates.yaml': GATES });
    mkdirSync(path.join(dir, 'parts'));
    for (const [k, lines] of shards.entries()) {
      mkdirSync(path.join(dir, 'traces', `shard-${k}`), { recursive: true });
      const file = path.join(dir, 'traces', `shard-${k}`, 'a.jsonl');
      writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
      await writePartialRun(path.join(dir, 'parts', `${k}.partial`), {
        config: path.join(dir, 'gates.yaml'),
        inputs: [{ suite: 'qa', key: 'traces', path: file }],
      });
    }
    const clean = await merge(dir);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(1);
    const good = readFileSync(path.join(dir, 'parts', '0.partial'));
    const nl = good.indexOf(10);
    const header = JSON.parse(good.subarray(0, nl).toString());
    const sections = Object.entries(header.suites.qa.sections) as [
      string,
      { offset: number; length: number },
    ][];
    // Every section of the partial holds bytes: an empty one would have no bit to flip.
    expect(sections.map(([key]) => key).sort()).toEqual(
      [
        'fields',
        'gold.answerable',
        'gold.digest',
        'gold.qid_lengths',
        'gold.qids',
        'gold.source',
        'runs.fields',
        'runs.file',
        'runs.flags',
        'runs.recall',
        'runs.row',
        'runs.rule',
        'runs.ts',
        'runs.upper',
        'unknown',
      ].sort(),
    );
    expect(sections.every(([, s]) => s.length > 0)).toBe(true);

    const targets: [where: string, bits: number[]][] = sections.map(([key, s]) => [
      key,
      bitsOf(nl + 1 + s.offset, s.length, EVERY_BIT ? Infinity : 32),
    ]);
    // Each digit of each number in the header (offsets, lengths, counts, cutoffs, the body's size), and the
    // rest of the line (names, kinds, the sha256s).
    const text = good.subarray(0, nl).toString('latin1');
    const numbers = [...text.matchAll(/[:,[]\d+/g)].map((m) => [m.index + 1, m[0].length - 1] as const);
    // Each section's offset and length, the state's five counts and a cutoff, the body's size at least.
    expect(numbers.length).toBeGreaterThanOrEqual(2 * sections.length + 7);
    targets.push([
      'header numbers',
      numbers.flatMap(([at, length]) => bitsOf(at, length, EVERY_BIT ? Infinity : length)),
    ]);
    targets.push(['header', bitsOf(0, nl, EVERY_BIT ? Infinity : 96)]);

    const tally = { refused: 0, same: 0 };
    for (const [where, bits] of targets)
      for (const bit of bits) {
        const bad = Buffer.from(good);
        bad[bit >> 3]! ^= 1 << (bit & 7);
        writeFileSync(path.join(dir, 'parts', '0.partial'), bad);
        const o = await merge(dir);
        const context = `${where}, bit ${bit}: exit ${o.code}\n${o.stderr}`;
        if (o.code === 2) {
          const lines = o.stderr.split('\n').filter(Boolean);
          expect(lines, context).toHaveLength(1);
          expect(lines[0], context).toMatch(/^groundgate: .*parts\/0\.partial(:1)?: /);
          expect(o.stderr, context).not.toMatch(/internal error|\n\s+at /);
          tally.refused++;
        } else {
          expect(o.code, context).toBe(clean.code);
          expect(o.report?.equals(clean.report!), context).toBe(true);
          tally.same++;
        }
      }
    // A section's flips are all refused by its sha256; the header's by its own.
    expect(tally.same).toBe(0);
    expect(tally.refused).toBe(targets.reduce((n, [, bits]) => n + bits.length, 0));
    console.log(`partial bit flips: ${tally.refused} refused, ${tally.same} merged alike`);
  }, 1_200_000);
});
