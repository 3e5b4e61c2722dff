import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { loadGold, parseGoldRow } from '../src/suites/context/gold.js';
import { candidatePaths, normalizeGoldPath } from '../src/suites/context/paths.js';
import { FIXTURES, jsonl, tmpTree } from './helpers/tmp.js';

const CB = path.join(FIXTURES, 'contextbench');
const at = { file: 'gold.jsonl', line: 7 };

async function goldError(rows: readonly unknown[]): Promise<string> {
  const dir = tmpTree({ 'gold.jsonl': jsonl(rows) });
  try {
    await loadGold([path.join(dir, 'gold.jsonl')]);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).message.replace(dir + path.sep, '');
  }
  throw new Error('expected an input error');
}

describe('gold paths', () => {
  it('strips the container prefixes, leading slashes and ./ prefixes', () => {
    expect(normalizeGoldPath('/testbed/django/db/models/aggregates.py')).toBe(
      'django/db/models/aggregates.py',
    );
    expect(normalizeGoldPath('/workspace/facebook__zstd__0.1/lib/zstd.c')).toBe('lib/zstd.c');
    expect(normalizeGoldPath('/workspace/README')).toBe('README');
    expect(normalizeGoldPath('//etc/x.py')).toBe('etc/x.py');
    expect(normalizeGoldPath('./././pkg/a.py')).toBe('pkg/a.py');
    expect(normalizeGoldPath('pkg\\win\\a.py')).toBe('pkg/win/a.py');
  });

  it('keeps leading dots of a name (the evaluator lstrip("./") would make .github github)', () => {
    expect(normalizeGoldPath('.github/workflows/ci.yml')).toBe('.github/workflows/ci.yml');
    expect(normalizeGoldPath('./.eslintrc.js')).toBe('.eslintrc.js');
    expect(normalizeGoldPath('../outside.py')).toBe('../outside.py');
  });

  it('offers a predicted path with its leading components dropped one at a time', () => {
    expect(candidatePaths(' "/testbed/pkg/a.py" ')).toEqual(['testbed/pkg/a.py', 'pkg/a.py', 'a.py']);
    expect(candidatePaths('./pkg//b.py')).toEqual(['pkg/b.py', 'b.py']);
    expect(candidatePaths('')).toEqual([]);
  });
});

describe('gold rows', () => {
  it('reads the dataset rows (gold_context as a JSON string) and the text-blob form alike', async () => {
    const json = await loadGold([path.join(CB, 'gold_rows_contextbench_verified_test.jsonl')]);
    const text = await loadGold([path.join(CB, 'gold_rows_test_parquet_textformat.jsonl')]);
    expect(json.map((g) => g.ids)).toEqual([
      ['SWE-Bench-Verified__python__maintenance__bugfix__607f6b9e', 'django__django-11603'],
      ['SWE-PolyBench__python__maintenance__bugfix__dbd7cde5', 'huggingface__transformers-12981'],
      ['SWE-Bench-Verified__python__maintenance__bugfix__16c72e4c', 'django__django-12419'],
      ['Multi-SWE-Bench__c__maintenance__bugfix__6b844996', 'facebook__zstd-1390'],
    ]);
    expect(json[0]!.init).toEqual([
      { file: 'django/db/models/aggregates.py', start: 99, end: 104 },
      { file: 'django/db/models/aggregates.py', start: 99, end: 105 },
      { file: 'django/db/models/aggregates.py', start: 142, end: 147 },
      { file: 'django/db/models/aggregates.py', start: 142, end: 148 },
    ]);
    expect(json[3]!.init).toEqual([{ file: 'lib/decompress/zstd_decompress.c', start: 460, end: 467 }]);
    expect(json[3]!.commit).toBe('e26126cacaa9ac6f1db4021ac3d32f4ac8387c50');
    expect(json[0]!.patch).toMatch(/^diff --git a\/django\/db\/models\/aggregates.py/);
    expect(text.map((g) => [g.ids, g.init, g.add, g.commit, g.patch])).toEqual(
      json.map((g) => [g.ids, g.init, g.add, g.commit, g.patch]),
    );
  });

  it('reads annotation rows with gold_ctx, and init_ctx + add_ctx', async () => {
    const real = await loadGold([path.join(CB, 'real-gold-partial.jsonl')]);
    expect(real.map((g) => [g.ids[1], g.init.length, g.add.length, g.commit?.slice(0, 7)])).toEqual([
      ['django__django-11163', 2, 0, 'e6588aa'],
      ['django__django-12419', 2, 0, '7fa1a93'],
      ['pydata__xarray-4075', 4, 0, '19b0886'],
    ]);
    const g = parseGoldRow(
      {
        inst_id: 'x',
        init_ctx: [{ file: '/testbed/a.py', start_line: 1, end_line: 2 }],
        add_ctx: [{ file: 'b.py', start_line: 3, end_line: 3 }],
        gold_ctx: [{ file: 'ignored.py', start_line: 1, end_line: 1 }],
      },
      at,
    );
    expect([g.init, g.add]).toEqual([
      [{ file: 'a.py', start: 1, end: 2 }],
      [{ file: 'b.py', start: 3, end: 3 }],
    ]);
  });

  it('falls back from empty init_ctx/add_ctx to gold_ctx, and accepts an empty gold set', () => {
    const row = {
      inst_id: 'x',
      init_ctx: [],
      add_ctx: [],
      gold_ctx: [{ file: 'a.py', start_line: 4, end_line: 4 }],
    };
    expect(parseGoldRow(row, at).init).toEqual([{ file: 'a.py', start: 4, end: 4 }]);
    expect(parseGoldRow({ inst_id: 'x', gold_ctx: [] }, at).init).toEqual([]);
    expect(parseGoldRow({ inst_id: 'x', init_ctx: [], add_ctx: [] }, at).init).toEqual([]);
    expect(parseGoldRow({ inst_id: 'x', gold_context: '' }, at).init).toEqual([]);
  });

  it('parses a text blob with ASCII colons and CRLF too', () => {
    const blob =
      'context0:\r\nfile: a.py\r\nstart_line: 3\r\nend_line: 5\r\ncode\r\n\r\ncontext1:\nfile: /testbed/b.py\nstart_line: 1\nend_line: 1\n';
    expect(parseGoldRow({ inst_id: 'x', gold_context: blob }, at).init).toEqual([
      { file: 'a.py', start: 3, end: 5 },
      { file: 'b.py', start: 1, end: 1 },
    ]);
  });

  it('rejects rows it cannot read, naming file, line and what was expected', async () => {
    expect(await goldError([{ inst_id: 'a', gold_ctx: [] }, { inst_id: 'b' }])).toBe(
      'gold.jsonl:2: no gold context (a ContextBench gold row {inst_id or original_inst_id, gold_context | gold_ctx | init_ctx + add_ctx}); expected "gold_context", "gold_ctx" or "init_ctx"/"add_ctx"',
    );
    expect(await goldError([{ gold_ctx: [] }])).toMatch(/^gold.jsonl:1: missing field "inst_id"/);
    expect(
      await goldError([{ inst_id: 'a', gold_ctx: [{ file: 'x.py', start_line: 9, end_line: 4 }] }]),
    ).toBe(
      'gold.jsonl:1: field "gold_ctx[0].end_line": found 4 before start_line 9; expected end_line ≥ start_line (a gold region {file, start_line, end_line})',
    );
    expect(
      await goldError([{ inst_id: 'a', gold_ctx: [{ file: 'x.py', start_line: 0, end_line: 4 }] }]),
    ).toMatch(/^gold.jsonl:1: field "gold_ctx\[0\].start_line": Too small: expected number to be >=1/);
    expect(await goldError([{ inst_id: 'a', gold_context: '[{"file": "x.py", ' }])).toMatch(
      /^gold.jsonl:1: field "gold_context": .*; expected a JSON array of \{file, start_line, end_line\}$/,
    );
    expect(await goldError([{ inst_id: 'a', gold_context: 'file: x.py' }])).toBe(
      'gold.jsonl:1: field "gold_context": found "file: x.py"; expected a JSON array or "context0：" blocks of file/start_line/end_line',
    );
    expect(await goldError([{ inst_id: 'a', gold_context: 'context0：\nfile: x.py\nend_line: 3\n' }])).toBe(
      'gold.jsonl:1: field "gold_context": block context0 line 3 is "end_line: 3"; expected "start_line: …"',
    );
    expect(
      await goldError([
        { inst_id: 'a', gold_ctx: [] },
        { original_inst_id: 'a', gold_ctx: [] },
      ]),
    ).toBe(
      'gold.jsonl:2: duplicate instance id "a" (first defined at line 1); expected one gold row per instance',
    );
    expect(await goldError([])).toBe('gold.jsonl: gold set is empty; expected at least one row');
  });
});
