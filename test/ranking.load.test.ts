import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { run } from '../src/run.js';
import { evaluateRanking } from '../src/suites/ranking/evaluate.js';
import { measureRequest } from '../src/suites/ranking/metrics.js';
import { isDecimal, isInteger, splitFields } from '../src/suites/ranking/trec.js';
import { seeded } from './helpers/random.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

/** Scores `qrels` and `run` (file name → content); returns the one-line error with the folder left out. */
async function inputError(files: Record<string, string>): Promise<string> {
  const dir = tmpTree(files);
  const names = Object.keys(files);
  const pick = (re: RegExp) => names.filter((n) => re.test(n)).map((n) => path.join(dir, n));
  try {
    await evaluateRanking({
      qrels: pick(/qrels/),
      run: pick(/run/),
      relevanceLevel: 1,
      complete: false,
      measures: [measureRequest('map', 10)],
      offender: { index: 0, k: 10 },
    });
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    const message = (err as InputError).message;
    expect(message).not.toContain('\n');
    return message.replaceAll(`${dir}${path.sep}`, '');
  }
  throw new Error('expected an InputError');
}

const QRELS = 'q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n';

describe('ranking loaders: every error names file:line and what was expected', () => {
  it('rejects a docid retrieved twice for a query, naming the first line', async () => {
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq1 Q0 a 3 0 t\n' }),
    ).toBe(
      'run.txt:3: duplicate docid "a" for qid "q1" (first at line 1); expected each docid once per query',
    );
    // Also when the query came back after another one (found in the second pass).
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1 Q0 a 1 2 t\nq2 Q0 c 1 1 t\nq1 Q0 a 3 0 t\n' }),
    ).toBe(
      'run.txt:3: duplicate docid "a" for qid "q1" (first at line 1); expected each docid once per query',
    );
    // And in a query that is not judged: the run is malformed whatever the qrels say.
    expect(await inputError({ 'qrels.txt': QRELS, 'run.txt': 'zz Q0 a 1 2 t\nzz Q0 a 2 1 t\n' })).toBe(
      'run.txt:2: duplicate docid "a" for qid "zz" (first at line 1); expected each docid once per query',
    );
  });

  it('names the other file when the first occurrence is in another shard', async () => {
    const message = await inputError({
      'qrels.txt': QRELS,
      'run-1.txt': 'q1 Q0 a 1 2 t\n',
      'run-2.txt': 'q1 Q0 a 1 2 t\n',
    });
    expect(message).toMatch(/^run-2\.txt:1: duplicate docid "a" for qid "q1" \(first at \S*run-1\.txt:1\); /);
  });

  it('rejects a judgment given twice, naming the first line', async () => {
    expect(await inputError({ 'qrels.txt': 'q1 0 a 1\nq1 0 b 0\nq1 0 a 1\n', 'run.txt': '' })).toBe(
      'qrels.txt:3: duplicate judgment of docid "a" for qid "q1" (first at line 1); expected one judgment per qid and docid',
    );
    expect(
      await inputError({
        'qrels.jsonl': jsonl([
          { qid: 'q1', docid: 'a', rel: 1 },
          { qid: 'q2', docid: 'a', rel: 1 },
          { qid: 'q1', docid: 'a', rel: 0 },
        ]),
        'run.txt': '',
      }),
    ).toBe(
      'qrels.jsonl:3: duplicate judgment of docid "a" for qid "q1" (first at line 1); expected one judgment per qid and docid',
    );
  });

  it('rejects a line with the wrong number of fields', async () => {
    expect(await inputError({ 'qrels.txt': 'q1 0 a 1\nq1 0 b 1 extra\n', 'run.txt': '' })).toBe(
      'qrels.txt:2: found 5 fields; expected 4 whitespace-separated fields "qid iter docid rel" (TREC qrels)',
    );
    expect(await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1 Q0 a 1 2 t\n\nq1 a 2 1.5\n' })).toBe(
      'run.txt:3: found 4 fields; expected 6 whitespace-separated fields "qid Q0 docid rank score tag" (TREC run)',
    );
    // A qrels file passed as the run is the usual cause.
    expect(await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1 0 a 1\n' })).toBe(
      'run.txt:1: found 4 fields; expected 6 whitespace-separated fields "qid Q0 docid rank score tag" (TREC run)',
    );
  });

  it('rejects a score that is not a finite decimal number, pointing at its column', async () => {
    expect(await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1 Q0 a 1 high t\n' })).toBe(
      'run.txt:1:11: score "high" is not a finite number; expected a decimal score such as 12.5 or -3e-2 (qid Q0 docid rank score tag)',
    );
    expect(await inputError({ 'qrels.txt': QRELS, 'run.txt': 'q1\tQ0\ta\t1\t1e999\tt\n' })).toBe(
      'run.txt:1:11: score "1e999" is not a finite number; expected a decimal score such as 12.5 or -3e-2 (qid Q0 docid rank score tag)',
    );
  });

  it('rejects a grade that is not an integer, pointing at its column', async () => {
    expect(await inputError({ 'qrels.txt': 'q1 0 a 1.5\n', 'run.txt': '' })).toBe(
      'qrels.txt:1:8: rel "1.5" is not an integer; expected an integer relevance grade (qid iter docid rel)',
    );
  });

  it('rejects empty qrels', async () => {
    expect(await inputError({ 'qrels.txt': '\n  \n', 'run.txt': '' })).toBe(
      'qrels.txt: qrels are empty; expected at least one judgment',
    );
  });

  it('validates JSONL lines field by field', async () => {
    expect(
      await inputError({ 'qrels.jsonl': jsonl([{ qid: 'q', docid: 'a', rel: 1.5 }]), 'run.txt': '' }),
    ).toBe(
      'qrels.jsonl:1: field "rel": expected an integer relevance grade (a qrels judgment {qid, docid, rel})',
    );
    expect(await inputError({ 'qrels.jsonl': jsonl([{ qid: 'q', doc: 'a', rel: 1 }]), 'run.txt': '' })).toBe(
      'qrels.jsonl:1: missing field "docid" (a qrels judgment {qid, docid, rel}); expected string',
    );
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.jsonl': jsonl([{ qid: 'q1', docid: 'a', score: '2' }]) }),
    ).toBe(
      'run.jsonl:1: field "score": expected a finite number (a run line {qid, docid, score} or {qid, ranked: [docid, ...]})',
    );
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.jsonl': '{"qid": "q1", "docid": "a", "score": 1e999}\n' }),
    ).toBe(
      'run.jsonl:1: field "score": expected a finite number (a run line {qid, docid, score} or {qid, ranked: [docid, ...]})',
    );
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.jsonl': jsonl([{ qid: 'q1', ranked: ['a', ''] }]) }),
    ).toBe(
      'run.jsonl:1: field "ranked[1]": expected a non-empty docid (a run line {qid, docid, score} or {qid, ranked: [docid, ...]})',
    );
    expect(await inputError({ 'qrels.txt': QRELS, 'run.jsonl': '{"qid": "q1", "ranked": [}\n' })).toBe(
      "run.jsonl:1:26: invalid JSON: unexpected token '}'; expected one JSON value per line",
    );
  });

  it('rejects a ranked list that repeats a docid, or a query with a ranked list and other lines', async () => {
    expect(
      await inputError({ 'qrels.txt': QRELS, 'run.jsonl': jsonl([{ qid: 'q1', ranked: ['a', 'b', 'a'] }]) }),
    ).toBe(
      'run.jsonl:1: qid "q1": ranked[2] repeats docid "a" of ranked[0]; expected each docid once per query',
    );
    const mixed =
      'run.jsonl:2: qid "q1" has a {qid, ranked} line and other run lines (first at line 1); expected a {qid, ranked} line to be the query\'s only line';
    expect(
      await inputError({
        'qrels.txt': QRELS,
        'run.jsonl': jsonl([
          { qid: 'q1', ranked: ['a'] },
          { qid: 'q1', docid: 'b', score: 1 },
        ]),
      }),
    ).toBe(mixed);
    expect(
      await inputError({
        'qrels.txt': QRELS,
        'run.jsonl': jsonl([
          { qid: 'q1', docid: 'b', score: 1 },
          { qid: 'q1', ranked: ['a'] },
        ]),
      }),
    ).toBe(mixed);
  });
});

describe('TREC field parsing', () => {
  it('splits on any C whitespace and keeps columns', () => {
    expect(splitFields(' q1\t0  a\v1\f')).toEqual({ values: ['q1', '0', 'a', '1'], columns: [2, 5, 8, 10] });
    expect(splitFields('   ')).toEqual({ values: [], columns: [] });
  });

  it('accepts decimal scores and integer grades only', () => {
    expect(['1', '-1.5', '+.5', '5.', '1e3', '-2.5E-3', '007'].map(isDecimal)).toEqual(Array(7).fill(true));
    expect(
      ['', '.', '-', 'e5', '1e', '1e+', '0x10', 'Infinity', 'NaN', '1,5', '1.2.3', '--1'].map(isDecimal),
    ).toEqual(Array(12).fill(false));
    expect(['0', '-2', '+3', '10'].map(isInteger)).toEqual([true, true, true, true]);
    expect(['', '-', '1.0', '1e2', 'x'].map(isInteger)).toEqual([false, false, false, false, false]);
  });
});

const FIXTURE = path.join(REPO, 'test', 'fixtures', 'trec');
const SMALL_QRELS = readFileSync(path.join(FIXTURE, 'small.qrels'), 'utf8').trimEnd().split('\n');
const SMALL_RUN = readFileSync(path.join(FIXTURE, 'small.run'), 'utf8').trimEnd().split('\n');
const JUNK = [' ', '\t', 'x', '.', 'e', '-', '1', '1e999', 'NaN', '"', '{', '}', '\u0000', 'é', '💥', '\r'];

/** One random edit of a line: bytes, a field dropped or repeated, a line break, or the line duplicated. */
function mutate(lines: string[], rnd: () => number): void {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const i = Math.floor(rnd() * lines.length);
  const line = lines[i]!;
  const at = Math.floor(rnd() * (line.length + 1));
  const fields = line.split(' ');
  const f = Math.floor(rnd() * fields.length);
  switch (Math.floor(rnd() * 6)) {
    case 0:
      lines[i] = line.slice(0, at) + line.slice(at + 1 + Math.floor(rnd() * 3));
      return;
    case 1:
      lines[i] = line.slice(0, at) + pick(JUNK) + line.slice(at);
      return;
    case 2:
      lines[i] = [...fields.slice(0, f), ...fields.slice(f + 1)].join(' ');
      return;
    case 3:
      lines[i] = [...fields.slice(0, f), pick(JUNK), ...fields.slice(f)].join(' ');
      return;
    case 4:
      lines[i] = line.slice(0, at) + '\n' + line.slice(at);
      return;
    default:
      lines.splice(Math.floor(rnd() * lines.length), 0, line);
  }
}

/** The same lines as JSONL, half the time with one structural edit: a key dropped, or a value of another type. */
function toJsonl(lines: readonly string[], kind: 'qrels' | 'run', rnd: () => number): string {
  const values = [null, 0, -1, 1.5, '', 'x', [], {}, ['a'], true];
  const edited = rnd() < 0.5 ? Math.floor(rnd() * lines.length) : -1;
  return lines
    .map((l, i) => {
      const f = l.split(' ');
      const row: Record<string, unknown> =
        kind === 'qrels'
          ? { qid: f[0], docid: f[2], rel: Number(f[3]) }
          : { qid: f[0], docid: f[2], score: Number(f[4]) };
      if (i === edited) {
        const key = Object.keys(row)[Math.floor(rnd() * 3)]!;
        if (rnd() < 0.5) delete row[key];
        else row[key] = values[Math.floor(rnd() * values.length)];
      }
      return JSON.stringify(row);
    })
    .join('\n');
}

describe('ranking loader fuzzing (seeded)', () => {
  it('turns every mutated qrels or run into a result or a one-line InputError', async () => {
    const rnd = seeded(20260617);
    const outcomes = { ok: 0, 'input-error': 0 };
    const dir = tmpTree({});
    for (let i = 0; i < 300; i++) {
      const qrels = [...SMALL_QRELS];
      const runLines = [...SMALL_RUN];
      const target = rnd() < 0.5 ? qrels : runLines;
      for (let j = 0, n = rnd() < 0.7 ? 1 : 2; j < n; j++) mutate(target, rnd);
      const asJsonl = rnd() < 0.3;
      const ext = asJsonl ? 'jsonl' : 'txt';
      writeFileSync(
        path.join(dir, 'gates.yaml'),
        `version: 1\nsuites:\n  r:\n    kind: ranking\n    qrels: qrels.${ext}\n    run: run.${ext}\n    complete: ${rnd() < 0.5}\n    gates:\n      ndcg@10: '>= 0.05'\n`,
      );
      const eol = rnd() < 0.2 ? '\r\n' : '\n';
      writeFileSync(
        path.join(dir, `qrels.${ext}`),
        asJsonl ? toJsonl(qrels.join('\n').split('\n'), 'qrels', rnd) : qrels.join(eol),
      );
      writeFileSync(
        path.join(dir, `run.${ext}`),
        asJsonl ? toJsonl(runLines.join('\n').split('\n'), 'run', rnd) : runLines.join(eol),
      );
      try {
        await run({ config: path.join(dir, 'gates.yaml') });
        outcomes.ok++;
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        expect(err.message).not.toContain('\n');
        expect(err.where?.line).toBeGreaterThan(0);
        outcomes['input-error']++;
      }
    }
    // Both paths are exercised: the edits are neither all harmless nor all fatal.
    expect(outcomes.ok).toBeGreaterThan(30);
    expect(outcomes['input-error']).toBeGreaterThan(150);
  });
});
