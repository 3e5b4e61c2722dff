import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { canonicalJson } from '../src/gold/canonical.js';
import { lineDigests } from '../src/gold/digest.js';
import { digestGold } from '../src/gold/digest-files.js';
import { readRecord } from '../src/io/jsonl.js';
import type { GoldItem } from '../src/grounded-answer/contract.js';
import { judgeRuns, loadGold, startJudging } from '../src/grounded-answer/load.js';

const options = { refusalToken: 'not in context', scuRules: null, cutoffs: [5] };
const goldFor = (qids: string[]): GoldItem[] =>
  qids.map((qid) => ({
    qid,
    answerable: false,
    claimSubstrings: [],
    citations: [],
    constraints: [],
    source: { file: 'g', line: 1, offset: 0, length: 0 },
  }));

/** The claim of each qid's winning run, read back through the line reference the loader kept. */
async function winningClaims(files: string[], qids: string[]) {
  const loaded = await judgeRuns(files, goldFor(qids), options);
  const claims: Record<string, string> = {};
  for (const [row, qid] of qids.entries()) {
    const ref = loaded.ref(row);
    if (ref) claims[qid] = ((await readRecord(ref)) as { answer_json: { claim: string } }).answer_json.claim;
  }
  return { loaded, claims };
}
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

const g = (qid: string, extra: object = {}) => ({
  qid,
  question: `q${qid}`,
  answerable: true,
  gold_claim_substr: ['long enough'],
  gold_citations: ['d1'],
  ...extra,
});
const t = (qid: string, claim: string, extra: object = {}) => ({
  qid,
  retrieved_ids: ['d1'],
  answer_json: { claim, citations: ['d1'] },
  ...extra,
});

/** A gold item's fields as a plain object (loadGold's items compute their lists and line reference). */
const plain = (i: GoldItem) => ({
  qid: i.qid,
  answerable: i.answerable,
  claimSubstrings: i.claimSubstrings,
  citations: i.citations,
  constraints: i.constraints,
  source: i.source,
});

async function goldError(rows: unknown[]): Promise<string> {
  const dir = tmpTree({ 'gold.jsonl': jsonl(rows) });
  try {
    await loadGold([path.join(dir, 'gold.jsonl')]);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).message.replace(/^.*gold\.jsonl/, 'gold.jsonl');
  }
  throw new Error('expected an InputError');
}

describe('loadGold', () => {
  it('rejects a duplicate qid, naming both lines', async () => {
    expect(await goldError([g('A'), g('B'), g('A')])).toBe(
      'gold.jsonl:3: duplicate qid "A" (first defined at line 1); expected unique qids',
    );
  });

  it('keeps a claim substring shorter than 5 characters (matched as a whole word), refuses a blank one', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl([g('A', { gold_claim_substr: ['fine substring', 'keys', 'v3'] })]),
    });
    const { items } = await loadGold([path.join(dir, 'gold.jsonl')]);
    expect(items[0]!.claimSubstrings).toEqual(['fine substring', 'keys', 'v3']);
    expect(await goldError([g('A'), g('B', { gold_claim_substr: ['fine substring', ' \t '] })])).toBe(
      'gold.jsonl:2: qid "B": gold_claim_substr[1] " \\t " is blank; expected text for the claim to contain',
    );
    expect(await goldError([g('A', { gold_claim_substr: [''] })])).toBe(
      'gold.jsonl:1: qid "A": gold_claim_substr[0] "" is blank; expected text for the claim to contain',
    );
  });

  it('rejects answerable items that cannot be checked', async () => {
    expect(await goldError([g('A', { gold_citations: [] })])).toBe(
      'gold.jsonl:1: qid "A": answerable item has no gold_citations; expected at least one',
    );
    expect(await goldError([g('A', { gold_claim_substr: [] })])).toBe(
      'gold.jsonl:1: qid "A": answerable item has no gold_claim_substr; expected at least one',
    );
  });

  it('names the field and the expected type of a wrong value', async () => {
    expect(await goldError([g('A'), g('B', { answerable: 'yes' })])).toBe(
      'gold.jsonl:2: field "answerable": expected boolean, received string (a gold item {qid, question, answerable, gold_claim_substr, gold_citations})',
    );
    expect(await goldError([{ qid: 'A', question: 'q', answerable: true, gold_citations: ['x'] }])).toBe(
      'gold.jsonl:1: missing field "gold_claim_substr" (a gold item {qid, question, answerable, gold_claim_substr, gold_citations}); expected array',
    );
    expect(await goldError([['not', 'an', 'object']])).toBe(
      'gold.jsonl:1: expected a JSON object (a gold item {qid, question, answerable, gold_claim_substr, gold_citations}), found ["not","an","object"]',
    );
  });

  it('rejects an empty gold set', async () => {
    expect(await goldError([])).toBe('gold.jsonl: gold set is empty; expected at least one item');
  });

  it('keeps unanswerable items without substrings and extra keys', async () => {
    const row = {
      qid: 'U',
      question: 'q',
      answerable: false,
      gold_claim_substr: [],
      gold_citations: [],
      owner: 'x',
    };
    const dir = tmpTree({ 'gold.jsonl': jsonl([row]) });
    const { items, digest } = await loadGold([path.join(dir, 'gold.jsonl')]);
    expect(digest!.size).toBe(1);
    expect(items.map(plain)).toEqual([
      {
        qid: 'U',
        answerable: false,
        claimSubstrings: [],
        citations: [],
        constraints: [],
        source: {
          file: path.join(dir, 'gold.jsonl'),
          line: 1,
          offset: 0,
          length: JSON.stringify(row).length,
        },
      },
    ]);
  });

  it('gives back every list as it was, strings of any length and content included', async () => {
    const long = 'x'.repeat(70_000); // over 16 bits of length
    const rows = [
      g('a', { gold_claim_substr: ['first one', 'é💥 second', long], gold_citations: ['d1', '', 'd"3'] }),
      g('b', {
        constraints: ['Must be short.', 'Never \u0000 nul.'],
        gold_citations: ['d9', 'lone \ud800 surrogate'],
      }),
      g('c', { answerable: false, gold_claim_substr: [], gold_citations: [] }),
    ];
    const dir = tmpTree({ 'gold.jsonl': jsonl(rows) });
    const { items } = await loadGold([path.join(dir, 'gold.jsonl')]);
    expect(items.map((i) => [i.qid, i.answerable, i.claimSubstrings, i.citations, i.constraints])).toEqual(
      rows.map((r) => [
        r.qid,
        r.answerable,
        r.gold_claim_substr,
        r.gold_citations,
        (r as { constraints?: string[] }).constraints ?? [],
      ]),
    );
  });
});

describe('gold digest', () => {
  it('is the digest freeze writes (digestGold), items in the order read', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl([g('b'), g('a', { constraints: ['Must be short.'] }), g('c')]),
    });
    const goldFile = path.join(dir, 'gold.jsonl');
    const digest = (await loadGold([goldFile])).digest!;
    const generic = await digestGold([goldFile]);
    expect(digest.sha256).toBe(generic.sha256);
    expect([...digest.items()]).toEqual([...generic.items()]);
    expect([...digest.items().keys()]).toEqual(['b', 'a', 'c']);
    const a = canonicalJson(g('a', { constraints: ['Must be short.'] }));
    expect(digest.hex(1)).toBe(createHash('sha256').update(a).digest('hex'));
    expect(digest.hex(1, 8)).toBe(digest.hex(1).slice(0, 16));
  });
});

describe('gold digest while judging', () => {
  it('is the digest loadGold makes, when no worker made it (or the main thread did not ask for one)', async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl([g('b'), g('a', { constraints: ['Must be short.'] }), g('c')]),
      'traces.jsonl': jsonl([t('a', 'long enough')]),
    });
    const goldFile = path.join(dir, 'gold.jsonl');
    const judging = startJudging([path.join(dir, 'traces.jsonl')], options, [goldFile]);
    // From the TypeScript sources there is no worker bundle, so no worker digests.
    expect(await judging.digestsGold).toBe(false);
    const { items, digest: none } = await loadGold([goldFile], { digest: false });
    expect(none).toBeUndefined();
    await judging.finish(items);
    const digest = await judging.goldDigest(items);
    const own = (await loadGold([goldFile])).digest!;
    expect(digest.sha256).toBe(own.sha256);
    expect([...digest.items()]).toEqual([...own.items()]);
  });
});

describe('judgeRuns: the last run wins', () => {
  it('takes the greatest ts, then the later line; a run without ts is older than any with one', async () => {
    const dir = tmpTree({
      'a.jsonl': jsonl([
        t('X', 'x-ts5', { ts: 5 }),
        t('X', 'x-ts3', { ts: 3 }),
        t('X', 'x-nots'),
        t('Y', 'y-first', { ts: 2 }),
        t('Y', 'y-second', { ts: 2 }),
        t('Z', 'z-first'),
        t('Z', 'z-second'),
        t('W', 'w-nots'),
        t('W', 'w-ts0', { ts: 0 }),
        t('V', 'v-iso-late', { ts: '2026-01-02T00:00:00Z' }),
        t('V', 'v-iso-early', { ts: '2026-01-01T00:00:00Z' }),
        t('N', 'n-null', { ts: 7 }),
        t('N', 'n-null-later', { ts: null }),
        t('Q', 'unknown qid'),
        t('Q', 'unknown again'),
      ]),
    });
    const { loaded, claims } = await winningClaims(
      [path.join(dir, 'a.jsonl')],
      ['X', 'Y', 'Z', 'W', 'V', 'N'],
    );
    expect(claims).toEqual({
      X: 'x-ts5',
      Y: 'y-second',
      Z: 'z-second',
      W: 'w-ts0',
      V: 'v-iso-late',
      N: 'n-null',
    });
    expect(loaded.lines).toBe(15);
    expect(loaded.superseded).toBe(7);
    expect([...loaded.unknown]).toEqual([['Q', 2]]);
  });

  it('reads an ISO ts without an offset as UTC on every machine, and refuses what is not ISO-8601', async () => {
    // 08:00 without an offset against 03:30 at -05:00 (08:30 UTC): local time in New York made the first later.
    const dir = tmpTree({
      'a.jsonl': jsonl([
        t('V', 'utc 08:30', { ts: '2025-12-31T03:30:00-05:00' }),
        t('V', 'no offset 08:00', { ts: '2025-12-31T08:00:00' }),
        t('D', 'date only, midnight UTC', { ts: '2025-12-31' }),
        t('D', 'a millisecond earlier', { ts: '2025-12-30 23:59:59.999Z' }),
      ]),
      'march.jsonl': jsonl([t('X', 'ok', { ts: 'March 7' })]),
      'feb30.jsonl': jsonl([t('X', 'ok', { ts: '2026-02-30T00:00:00Z' })]),
    });
    const zone = process.env.TZ;
    try {
      for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
        process.env.TZ = tz;
        const { claims } = await winningClaims([path.join(dir, 'a.jsonl')], ['V', 'D']);
        expect(claims).toEqual({ V: 'utc 08:30', D: 'date only, midnight UTC' });
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    for (const file of ['march.jsonl', 'feb30.jsonl'])
      await expect(judgeRuns([path.join(dir, file)], goldFor(['X']), options)).rejects.toThrow(
        `${file}:1: field "ts": ${file === 'march.jsonl' ? '"March 7"' : '"2026-02-30T00:00:00Z"'} is not a date; expected epoch seconds or an ISO-8601 string (UTC when it has no offset)`,
      );
  });

  it('decides across files by ts, and by sorted file order on ties', async () => {
    const dir = tmpTree({
      'shard-1.jsonl': jsonl([t('X', 'one', { ts: 9 }), t('Y', 'one', { ts: 1 })]),
      'shard-2.jsonl': jsonl([t('X', 'two', { ts: 8 }), t('Y', 'two', { ts: 1 })]),
    });
    const files = ['shard-1.jsonl', 'shard-2.jsonl'].map((f) => path.join(dir, f));
    const { claims } = await winningClaims(files, ['X', 'Y']);
    expect(claims).toEqual({ X: 'one', Y: 'two' });
  });

  it('names the line of a bad trace', async () => {
    const dir = tmpTree({
      'a.jsonl': jsonl([
        t('X', 'ok'),
        { qid: 'Y', retrieved_ids: 'd1', answer_json: { claim: 'c', citations: [] } },
      ]),
      'b.jsonl': jsonl([t('X', 'ok', { ts: 'yesterday' })]),
    });
    await expect(judgeRuns([path.join(dir, 'a.jsonl')], goldFor(['X']), options)).rejects.toThrow(
      /a\.jsonl:2: field "retrieved_ids": expected array, received string/,
    );
    await expect(judgeRuns([path.join(dir, 'b.jsonl')], goldFor(['X']), options)).rejects.toThrow(
      /b\.jsonl:1: field "ts": "yesterday" is not a date; expected epoch seconds or an ISO-8601 string/,
    );
  });
});

/** Gold lines a byte scan must read as JSON.parse does, or leave to it. */
const UNUSUAL_GOLD = [
  '\ufeff{"qid":"q1","question":"?","answerable":true,"gold_claim_substr":["alpha wave"],"gold_citations":["d1#2"],"extra":{"k":[1,2],"n":[1e2,-0]}}\r',
  '   ',
  '',
  '{"qid":"q\\u00e92","question":"\\"x\\"","answerable":false,"gold_claim_substr":[],"gold_citations":[],"constraints":["never \\n log"]}',
  // A key written with escapes: the scans leave it to JSON.parse.
  '{"q\\u0069d":"q3","question":"?","answerable":true,"gold_claim_substr":["a b c d e"],"gold_citations":["d"]}',
];

describe('loadGold without a digest', () => {
  it('builds from the bytes the items JSON.parse builds, and words errors the same way', async () => {
    const view = (g: GoldItem) => [
      g.qid,
      g.answerable,
      g.claimSubstrings,
      g.citations,
      g.constraints,
      g.source,
    ];
    const dir = tmpTree({ 'gold.jsonl': UNUSUAL_GOLD.join('\n') + '\n' });
    const file = path.join(dir, 'gold.jsonl');
    const parsed = await loadGold([file]);
    const scanned = await loadGold([file], { digest: false });
    expect(scanned.digest).toBeUndefined();
    expect(scanned.items.map(view)).toEqual(parsed.items.map(view));
    expect(scanned.items.map((g) => g.qid)).toEqual(['q1', 'qé2', 'q3']);
    expect(scanned.items[1]!.constraints).toEqual(['never \n log']);
    const real = path.join(REPO, 'gold/qa.gold.jsonl');
    expect((await loadGold([real], { digest: false })).items.map(view)).toEqual(
      (await loadGold([real])).items.map(view),
    );
    const bad = tmpTree({
      'gold.jsonl':
        '{"qid":"a","question":"q","answerable":"yes","gold_claim_substr":[],"gold_citations":[]}\n',
    });
    const err = (o: { digest?: boolean }) =>
      loadGold([path.join(bad, 'gold.jsonl')], o).catch((e: unknown) => e);
    const [a, b] = await Promise.all([err({}), err({ digest: false })]);
    expect(a).toBeInstanceOf(InputError);
    expect(String(b)).toBe(String(a));
    expect(String(a)).toMatch(/gold\.jsonl:1/);
  });
});

describe('lineDigests (the digest worker)', () => {
  it('gives each line the digest of its canonical JSON, from bytes or, for an unusual line, by parsing', async () => {
    const dir = tmpTree({ 'gold.jsonl': UNUSUAL_GOLD.join('\n') + '\n' });
    const file = path.join(dir, 'gold.jsonl');
    const raw = await lineDigests([file]);
    const hex = Buffer.from(raw).toString('hex').match(/.{64}/g);
    const sha = (line: string) =>
      createHash('sha256')
        .update(canonicalJson(JSON.parse(line.replace(/^\ufeff/, ''))))
        .digest('hex');
    expect(hex).toEqual([0, 3, 4].map((i) => sha(UNUSUAL_GOLD[i]!)));
    // The same digests the loader makes as it reads.
    const { digest } = await loadGold([file]);
    expect(hex).toEqual([0, 1, 2].map((i) => digest!.hex(i)));
    const real = path.join(REPO, 'gold/qa.gold.jsonl');
    const { digest: loaded } = await loadGold([real]);
    expect(Buffer.from(await lineDigests([real])).toString('hex')).toBe(
      Array.from({ length: loaded!.size }, (_, i) => loaded!.hex(i)).join(''),
    );
  });
});
