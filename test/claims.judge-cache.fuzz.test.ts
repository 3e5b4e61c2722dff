import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { JUDGE_PROMPT, VERDICTS } from '../src/claims/judge-prompt.js';
import { readJudgments, writeJudgments, type Judgment } from '../src/claims/judgments-cache.js';
import { judgmentKey } from '../src/claims/judgment-key.js';
import { JUNK } from './helpers/junk.js';
import { tmpTree } from './helpers/tmp.js';

/** The house's fuzz settings (see fuzz.loaders.test.ts): a sample in CI, more in the nightly run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = Number(process.env.FUZZ_SEED ?? 20261128) % 2 ** 31;

const judgmentArb: fc.Arbitrary<Judgment> = fc.record(
  {
    key: fc.stringMatching(/^[0-9a-f]{64}$/),
    verdict: fc.constantFrom(...VERDICTS),
    // Lines written before `model` was recorded have none.
    model: fc.string({ minLength: 1, maxLength: 20 }),
    model_returned: fc.string({ maxLength: 30 }),
    fingerprint: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
    prompt: fc.string({ minLength: 1, maxLength: 30 }),
    recorded_at: fc
      .date({
        min: new Date('2020-01-01T00:00:00Z'),
        max: new Date('2030-12-31T23:59:59Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  },
  { requiredKeys: ['key', 'verdict', 'model_returned', 'fingerprint', 'prompt', 'recorded_at'] },
);

type Edit =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'duplicate-line'; at: number }
  | { kind: 'swap-lines'; a: number; b: number }
  | { kind: 'field'; at: number; field: string; value: unknown }
  | { kind: 'line'; at: number; value: unknown }
  | { kind: 'conflict'; at: number; to: number };

const FIELDS = ['key', 'verdict', 'model', 'model_returned', 'fingerprint', 'prompt', 'recorded_at', 'extra'];
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('line' as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 1 }) }),
  // A bad merge: a line again further on, with another verdict.
  fc.record({ kind: fc.constant('conflict' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...JUNK, '\n', '') }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.string({ unit: 'binary', maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap-lines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({
    kind: fc.constant('field' as const),
    at: fc.nat(),
    field: fc.constantFrom(...FIELDS),
    value: fc.oneof(
      fc.constantFrom<unknown>(null, 0, '', 'SUPPORTED', 'supported', '0'.repeat(64), undefined),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  }),
);

function apply(text: string, edit: Edit): string {
  const pos = (n: number) => n % (text.length + 1);
  const lines = text.split('\n');
  switch (edit.kind) {
    case 'insert':
      return text.slice(0, pos(edit.at)) + edit.text + text.slice(pos(edit.at));
    case 'delete':
      return text.slice(0, pos(edit.at)) + text.slice(pos(edit.at) + edit.length);
    case 'truncate':
      return text.slice(0, pos(edit.at));
    case 'duplicate-line': {
      const i = edit.at % lines.length;
      lines.splice(i, 0, lines[i]!);
      return lines.join('\n');
    }
    case 'swap-lines': {
      const [a, b] = [edit.a % lines.length, edit.b % lines.length];
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return lines.join('\n');
    }
    case 'line':
      lines[edit.at % lines.length] = JSON.stringify(edit.value) ?? '';
      return lines.join('\n');
    case 'conflict': {
      const i = edit.at % lines.length;
      try {
        const record = JSON.parse(lines[i]!) as Judgment;
        record.verdict = VERDICTS[(VERDICTS.indexOf(record.verdict) + 1) % VERDICTS.length]!;
        lines.splice(i + 1 + (edit.to % (lines.length - i)), 0, JSON.stringify(record));
      } catch {
        // Not a judgment (any more): no conflict to make.
      }
      return lines.join('\n');
    }
    case 'field': {
      const i = edit.at % lines.length;
      try {
        const record = JSON.parse(lines[i]!) as Record<string, unknown>;
        record[edit.field] = edit.value;
        lines[i] = JSON.stringify(record);
      } catch {
        // Not a JSON line (any more): nothing to change.
      }
      return lines.join('\n');
    }
  }
}

/** One judgment per key, the verdict of the key's first: what a valid file can hold. */
function consistent(all: Judgment[]): Judgment[] {
  const verdicts = new Map<string, Judgment['verdict']>();
  return all.map((j) => {
    const verdict = verdicts.get(j.key) ?? j.verdict;
    verdicts.set(j.key, verdict);
    return { ...j, verdict };
  });
}

/*
 * A model of the file's documented rules (docs/metrics.md, "The key and the file"), written apart from
 * judgments-cache.ts: one JSON line per judgment, its fields in the order key, verdict, model, model_returned,
 * fingerprint, prompt, recorded_at; lines of one key that agree are one judgment, the first recorded (the
 * earliest recorded_at, then the smaller line); two verdicts for one key are an error naming both lines.
 */
const lineOf = (j: Judgment) =>
  JSON.stringify({
    key: j.key,
    verdict: j.verdict,
    model: j.model,
    model_returned: j.model_returned,
    fingerprint: j.fingerprint,
    prompt: j.prompt,
    recorded_at: j.recorded_at,
  });
const recordedFirst = (a: Judgment, b: Judgment) =>
  Date.parse(a.recorded_at) - Date.parse(b.recorded_at) || (lineOf(a) < lineOf(b) ? -1 : 1);

function expectedMap(all: readonly Judgment[]): Map<string, Judgment> {
  const first = new Map<string, Judgment>();
  for (const j of all) {
    const known = first.get(j.key);
    if (!known || recordedFirst(j, known) < 0) first.set(j.key, j);
  }
  return first;
}

type Expected =
  | { read: Map<string, Judgment> }
  | { line: number; conflict?: { key: string; here: string; there: string; at: number } };

/**
 * What reading `text` must give. Whether one line alone is a judgment is the schema's to say (asked of a
 * file holding only that line: `alone`); which lines make the map, and which line an error names, is the
 * model's.
 */
async function expectedRead(
  text: string,
  alone: (line: string, n: number) => Promise<boolean>,
): Promise<Expected> {
  const kept = new Map<string, { j: Judgment; n: number }>();
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    const line = n === 1 ? raw.replace(/^\ufeff/, '') : raw;
    if (/^[ \t\r]*$/.test(line)) continue;
    if (!(await alone(raw, n))) return { line: n };
    const j = JSON.parse(line) as Judgment;
    const known = kept.get(j.key);
    if (known && known.j.verdict !== j.verdict)
      return { line: n, conflict: { key: j.key, here: j.verdict, there: known.j.verdict, at: known.n } };
    if (!known || recordedFirst(j, known.j) < 0) kept.set(j.key, { j, n });
  }
  return { read: new Map([...kept].map(([k, { j }]) => [k, j])) };
}

describe('the judgments file under fuzzing', () => {
  it("what is written is the model's lines, sorted by key; read back, or a merge of lines read, the first recorded of each key", async () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'judgments.jsonl');
    await fc.assert(
      fc.asyncProperty(
        fc.array(judgmentArb, { maxLength: 12 }).chain((js) =>
          // Some keys repeated with the first's verdict and any date, as a merge of two branches gives them.
          fc.subarray(js).chain((again) =>
            fc
              .array(fc.constantFrom('2019-06-01T00:00:00.000Z', '2031-01-01T00:00:00.000Z'), {
                minLength: again.length,
                maxLength: again.length,
              })
              .map((dates) =>
                consistent([...js, ...again.map((j, i) => ({ ...j, recorded_at: dates[i]! }))]),
              ),
          ),
        ),
        async (all) => {
          const expected = expectedMap(all);
          const keys = [...expected.keys()].sort();
          await writeJudgments(file, all);
          const text = readFileSync(file, 'utf8');
          expect(text).toBe(keys.map((k) => `${lineOf(expected.get(k)!)}\n`).join(''));
          const read = await readJudgments(file);
          expect(new Map([...read].sort())).toEqual(new Map([...expected].sort()));
          await writeJudgments(file, [...read.values()].reverse());
          expect(readFileSync(file, 'utf8')).toBe(text);
          // A merge's text, every line as it came: each key's first recorded line is the judgment.
          writeFileSync(file, all.map((j) => `${lineOf(j)}\n`).join(''));
          expect(new Map([...(await readJudgments(file))].sort())).toEqual(new Map([...expected].sort()));
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 1_200_000);

  it('an edited file reads as the model says, or is refused with one line naming the line the model names', async () => {
    const dir = tmpTree({});
    const file = path.join(dir, 'judgments.jsonl');
    const one = path.join(dir, 'one.jsonl');
    const alone = async (line: string, n: number) => {
      // Not on line 1, a byte-order mark is a character of the line, as in the file.
      writeFileSync(one, n === 1 ? line : `\n${line}`);
      return readJudgments(one).then(
        () => true,
        () => false,
      );
    };
    const seen = { read: 0, refused: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(
        fc.array(judgmentArb, { minLength: 1, maxLength: 6 }),
        fc.array(editArb, { minLength: 1, maxLength: 3 }),
        async (all, edits) => {
          await writeJudgments(file, consistent(all));
          writeFileSync(file, edits.reduce(apply, readFileSync(file, 'utf8')));
          const expected = await expectedRead(readFileSync(file, 'utf8'), alone);
          let read: Map<string, Judgment> | undefined;
          let err: unknown;
          try {
            read = await readJudgments(file);
          } catch (e) {
            err = e;
          }
          if ('read' in expected) {
            expect(err).toBeUndefined();
            expect(new Map([...read!].sort())).toEqual(new Map([...expected.read].sort()));
            seen.read++;
            return;
          }
          expect(err).toBeInstanceOf(InputError);
          const message = (err as InputError).message;
          expect(message).not.toMatch(/[\r\n]/);
          expect(message).toMatch(new RegExp(`^${escape(file)}:${expected.line}(:\\d+)?: `));
          const { conflict } = expected;
          if (conflict)
            expect(message).toContain(
              `key ${conflict.key.slice(0, 12)}… has verdict ${conflict.here} here and ${conflict.there} at line ${conflict.at};`,
            );
          seen.refused.add(
            /invalid JSON|verdict \w+ here and|missing field|field|expected a JSON object/.exec(
              message,
            )?.[0] ?? message,
          );
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // The edits reach each way of refusing a file, and leave some files readable.
    expect(seen.read).toBeGreaterThan(0);
    expect([...seen.refused].sort()).toEqual([
      'expected a JSON object',
      'field',
      'invalid JSON',
      'missing field',
      'verdict NOT_SUPPORTED here and',
      'verdict SUPPORTED here and',
      'verdict UNCLEAR here and',
    ]);
  }, 1_200_000);
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the judgment key under fuzzing', () => {
  it('NFC and NFD of any text give one key; another claim (as NFC sees it) another key', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(text, text, text, text, (question, claim, fact, other) => {
        const q = { question, claim, fact };
        const key = judgmentKey(q, 'm-2024-07-18', JUDGE_PROMPT);
        const nfd = {
          question: question.normalize('NFD'),
          claim: claim.normalize('NFD'),
          fact: fact.normalize('NFD'),
        };
        expect(judgmentKey(nfd, 'm-2024-07-18', JUDGE_PROMPT)).toBe(key);
        if (other.normalize('NFC') !== claim.normalize('NFC'))
          expect(judgmentKey({ ...q, claim: other }, 'm-2024-07-18', JUDGE_PROMPT)).not.toBe(key);
      }),
      { numRuns: RUNS * 4, seed: SEED },
    );
  }, 600_000);
});
