import { describe, expect, it } from 'vitest';
import { compareItems } from '../src/baseline/compare.js';
import { ItemRecord, type GoldPrefixes } from '../src/report/item-record.js';
import { stringifyInPieces } from '../src/report/json-pieces.js';
import { reportSchema } from '../src/report/schema.js';

/** What report.json held when items were one object, its keys set in code-unit order. */
function asObject(ids: string[], pass: number[], gold: (k: number) => string | undefined) {
  const order = ids.map((_, k) => k).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  const out: Record<string, { pass: boolean; gold?: string }> = {};
  for (const k of order) {
    const g = gold(k);
    out[ids[k]!] = g === undefined ? { pass: pass[k] === 1 } : { pass: pass[k] === 1, gold: g };
  }
  return out;
}

/** Gold digest prefixes (16 hex digits, or none) as the bytes a run keeps them in. */
function prefixes(golds: readonly (string | undefined)[]): GoldPrefixes {
  const bytes = Buffer.alloc(8 * golds.length);
  golds.forEach((g, k) => g !== undefined && bytes.write(g, 8 * k, 'hex'));
  return { bytes, offset: (k) => (golds[k] === undefined ? undefined : 8 * k) };
}

/** A 64-bit prefix in hex, from a short tag. */
const h = (tag: string) => tag.padEnd(16, '0');

const written = (v: unknown, size = 64) => {
  const pieces: Buffer[] = [];
  stringifyInPieces(v, (p) => pieces.push(Buffer.from(p)), size);
  return Buffer.concat(pieces).toString('utf8');
};

describe('ItemRecord', () => {
  it('lists items as the one-object record did, array-index ids first by value, the rest by code unit', () => {
    const ids = ['b', '10', 'a', '2', '4294967295', '01', 'Z', '4294967294', 'é', '0'];
    const pass = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1];
    const gold = (k: number) => (k % 2 ? h(`e${k}`) : undefined);
    const record = ItemRecord.fromColumns(ids, pass, prefixes(ids.map((_, k) => gold(k))));
    const expected = asObject(ids, pass, gold);
    expect(Object.keys(expected)).toEqual([
      '0',
      '2',
      '10',
      '4294967294',
      '01',
      '4294967295',
      'Z',
      'a',
      'b',
      'é',
    ]);
    expect([...record.keys()]).toEqual(Object.keys(expected));
    expect(JSON.stringify(record)).toBe(JSON.stringify(expected));
    expect(written({ items: record })).toBe(JSON.stringify({ items: expected }, null, 2));
    expect(record.get('10')).toEqual({ pass: false, gold: 'e100000000000000' });
    expect(record.get('b')).toEqual({ pass: true });
    expect(record.get('nope')).toBeUndefined();
    expect(record.has('toString')).toBe(false);
    expect(record.size).toBe(10);
  });

  it('keeps ids already in order as given, and a parsed record as it is', () => {
    const record = ItemRecord.fromColumns(['1', '3', 'a'], [1, 0, 1]);
    expect(JSON.stringify(record)).toBe('{"1":{"pass":true},"3":{"pass":false},"a":{"pass":true}}');
    const parsed = reportSchema.shape.suites.parse({
      qa: {
        kind: 'grounded-qa',
        inputs: {},
        metrics: {},
        counts: {},
        offenders_total: 0,
        offenders: [],
        warnings: [],
        items: { q2: { pass: false, gold: 'ab' }, q1: { pass: true } },
      },
    }).qa!.items!;
    expect(parsed).toBeInstanceOf(ItemRecord);
    expect([...parsed.keys()]).toEqual(['q2', 'q1']);
    expect(parsed.get('q2')).toEqual({ pass: false, gold: 'ab' });
    expect(parsed.has('hasOwnProperty')).toBe(false);
  });

  it('compares a run built from columns with a baseline parsed from JSON', () => {
    const now = ItemRecord.fromColumns(
      ['c', 'a', 'b', 'n'],
      [1, 0, 0, 1],
      prefixes(['c1', 'a1', 'b2', 'f1'].map(h)),
    );
    const base = ItemRecord.fromRecord({
      a: { pass: true, gold: h('a1') }, // regressed
      b: { pass: true, gold: h('b1') }, // edited since: not compared
      c: { pass: false, gold: h('c1') }, // fixed
      r: { pass: true, gold: h('d1') }, // removed
    });
    expect(compareItems(now, base)).toEqual({
      gold_changes: { added: ['n'], removed: ['r'], changed: ['b'] },
      paired: 2,
      regressed: ['a'],
      fixed: ['c'],
      mcnemar_p: 1,
    });
  });
});

describe('ItemRecord with an item named like an Object.prototype member', () => {
  it('writes "__proto__" as a member, the same whether the report is written at once or in pieces', () => {
    const ids = ['__proto__', 'constructor', 'q1'];
    const record = ItemRecord.fromColumns(ids, [1, 0, 1]);
    const whole = JSON.stringify({ items: record }, null, 2);
    expect(written({ items: record })).toBe(whole);
    expect(Object.keys(JSON.parse(whole).items)).toEqual(['__proto__', 'constructor', 'q1']);
    expect(record.get('__proto__')).toEqual({ pass: true });
    expect(record.has('hasOwnProperty')).toBe(false);
  });
});

describe('ItemRecord written by its own writer', () => {
  it('escapes ids and digests as JSON.stringify does, at any depth, from columns or a parsed record', () => {
    // Columns hold digests as bytes (written in hex, every digit); a parsed record, any string.
    const ids = [
      'plain',
      'q"uote',
      'back\\slash',
      'tab\there',
      'nl\n',
      '\u0001',
      'é',
      '\ud800',
      '😀',
      '',
      '~',
      ' ',
      // Longer than the pieces: a plain one, and one to escape.
      'x'.repeat(200),
      `${'é'.repeat(70)}"`,
    ];
    const hex = (k: number) =>
      k % 3 === 0
        ? undefined
        : k % 3 === 1
          ? '0123456789abcdef'
          : Buffer.from([255 - k, 0, 9, 10, 15, 16, 160, k]).toString('hex');
    const text = (k: number) => (k % 3 === 1 ? ids[(k + 5) % ids.length] : hex(k));
    const pass = ids.map((_, k) => k % 2);
    const columns = ItemRecord.fromColumns(ids, pass, prefixes(ids.map((_, k) => hex(k))));
    const parsed = ItemRecord.fromRecord(asObject(ids, pass, text));
    for (const [record, expected] of [
      [columns, asObject(ids, pass, hex)],
      [parsed, asObject(ids, pass, text)],
    ] as const) {
      const value = { a: { b: [{ items: record }] }, items: record };
      const want = JSON.stringify({ a: { b: [{ items: expected }] }, items: expected }, null, 2);
      expect(JSON.stringify(value, null, 2)).toBe(want);
      for (const size of [1, 7, 64, 1 << 16]) expect(written(value, size)).toBe(want);
    }
    const empty = ItemRecord.fromColumns([], []);
    expect(written({ items: empty, x: [empty] })).toBe(JSON.stringify({ items: {}, x: [{}] }, null, 2));
  });
});

describe('ItemRecord with per-item values', () => {
  it("writes each item's values (none where a column holds NaN) as JSON.stringify does, and reads them back", () => {
    const ids = ['q3', 'q1', 'q2', '7'];
    const values = {
      'ndcg@10': Float64Array.from([0.5, 1 / 3, Number.NaN, 0]),
      'P@5': Float64Array.from([0.2, Number.NaN, Number.NaN, 1e-7]),
    };
    const record = ItemRecord.fromColumns(
      ids,
      [1, 0, 1, 0],
      prefixes(['a1', undefined, 'c1', 'd1'].map((g) => g && h(g))),
      values,
    );
    const expected = {
      '7': { pass: false, gold: h('d1'), values: { 'ndcg@10': 0, 'P@5': 1e-7 } },
      q1: { pass: false, values: { 'ndcg@10': 1 / 3 } },
      q2: { pass: true, gold: h('c1') },
      q3: { pass: true, gold: h('a1'), values: { 'ndcg@10': 0.5, 'P@5': 0.2 } },
    };
    const whole = JSON.stringify({ items: expected }, null, 2);
    expect(JSON.stringify({ items: record }, null, 2)).toBe(whole);
    for (const size of [1, 7, 64, 1 << 16]) expect(written({ items: record }, size)).toBe(whole);
    expect(record.value('q1', 'ndcg@10')).toBe(1 / 3);
    expect(record.value('q1', 'P@5')).toBeUndefined();
    expect(record.value('q9', 'ndcg@10')).toBeUndefined();
    expect(record.get('q3')).toEqual(expected.q3);

    const parsed = reportSchema.shape.suites.parse({
      r: {
        kind: 'ranking',
        inputs: {},
        metrics: {},
        counts: {},
        offenders_total: 0,
        offenders: [],
        warnings: [],
        items: JSON.parse(whole).items,
      },
    }).r!.items!;
    expect(parsed.value('q1', 'ndcg@10')).toBe(1 / 3);
    expect(parsed.value('7', 'P@5')).toBe(1e-7);
    expect(parsed.value('q2', 'ndcg@10')).toBeUndefined();
    expect(JSON.stringify({ items: parsed }, null, 2)).toBe(whole);
    expect(written({ items: parsed }, 7)).toBe(whole);
  });
});
