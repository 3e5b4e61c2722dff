import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agreement } from '../src/claims/agreement.js';
import { JUDGE_PROMPT } from '../src/claims/judge-prompt.js';
import { InputError } from '../src/errors.js';
import { readLabels } from '../src/claims/labels-file.js';
import { asksOf, itemVerdict, sampleHits } from '../src/claims/rescue.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/* The pure parts of semantic matching: asks, item verdicts, the hits sample, agreement, the labels file. */
const item = (qid: string, claim: string, facts: string[]) => ({
  row: 0,
  qid,
  question: `What about ${qid}?`,
  claim,
  facts,
});

describe('asksOf', () => {
  it('asks once per (question, claim, fact), in key order; a changed prompt text or model is a new key', () => {
    const items = [item('A', 'claim a', ['x', 'y']), item('A', 'claim a', ['x'])];
    const { keys, asks } = asksOf(items, 'm-2026-01-01', JUDGE_PROMPT);
    expect(keys[0]).toHaveLength(2);
    // The second item asks what the first did about x: one ask.
    expect(keys[1]).toEqual([keys[0]![0]]);
    expect(asks.map((a) => a.key)).toEqual([...new Set(keys.flat())].sort());
    expect(asks.find((a) => a.key === keys[0]![1])!.question).toEqual({
      question: 'What about A?',
      claim: 'claim a',
      fact: 'y',
    });
    const edited = { id: JUDGE_PROMPT.id, sha256: '0'.repeat(64) };
    const again = (model: string, prompt: { id: string; sha256: string } = JUDGE_PROMPT) =>
      asksOf(items, model, prompt).keys[0]![0];
    expect(again('m-2026-01-01', edited)).not.toBe(keys[0]![0]);
    expect(again('m-2026-01-02')).not.toBe(keys[0]![0]);
    expect(again('m-2026-01-01')).toBe(keys[0]![0]);
  });
});

describe('itemVerdict', () => {
  const verdicts: Record<string, 'SUPPORTED' | 'NOT_SUPPORTED' | 'UNCLEAR'> = {
    s: 'SUPPORTED',
    n: 'NOT_SUPPORTED',
    u: 'UNCLEAR',
  };
  const of = (keys: string[]) => itemVerdict(keys, (k) => verdicts[k]);
  it('is SUPPORTED when any fact is, UNJUDGED when a fact has no verdict and none is supported', () => {
    expect(of(['n', 's'])).toBe('SUPPORTED');
    expect(of(['missing', 's'])).toBe('SUPPORTED');
    expect(of(['n', 'u'])).toBe('NOT_SUPPORTED');
    expect(of(['n', 'missing'])).toBe('UNJUDGED');
    expect(of([])).toBe('NOT_SUPPORTED');
  });
});

describe('sampleHits', () => {
  it('takes the n items whose first key sorts first, whatever their order', () => {
    expect(sampleHits([['c'], ['a'], ['d'], ['b']], 2)).toEqual([1, 3]);
    expect(sampleHits([['b'], ['d'], ['a'], ['c']], 2)).toEqual([2, 0]);
    expect(sampleHits([['a']], 5)).toEqual([0]);
  });
});

describe('agreement', () => {
  it('counts the 2x2, percent agreement and kappa; kappa n/a when both raters gave one label', () => {
    // [[2, 1], [0, 1]]: po = 3/4; rows (3, 1), columns (2, 2): pe = (6 + 2) / 16 = 1/2; kappa 1/2.
    const a = agreement([
      [true, true],
      [true, true],
      [true, false],
      [false, false],
    ]);
    expect(a).toEqual({
      matrix: [
        [2, 1],
        [0, 1],
      ],
      items: 4,
      percent: 0.75,
      kappa: 0.5,
    });
    const same = agreement([
      [false, false],
      [false, false],
    ]);
    expect(same.kappa).toBeNull();
    expect(same.percent).toBe(1);
    expect(same.kappaReason).toMatch(/0\/0/);
    expect(agreement([])).toMatchObject({ items: 0, percent: null, kappa: null });
  });
});

describe('readLabels', () => {
  it('reads {qid, verdict, claim?} by qid', async () => {
    const dir = tmpTree({
      'l.jsonl': jsonl([
        { qid: 'A', verdict: 'SUPPORTED' },
        { qid: 'B', verdict: 'NOT_SUPPORTED', claim: 'b' },
      ]),
    });
    expect([...(await readLabels(path.join(dir, 'l.jsonl'))).values()]).toEqual([
      { qid: 'A', verdict: 'SUPPORTED' },
      { qid: 'B', verdict: 'NOT_SUPPORTED', claim: 'b' },
    ]);
  });

  it('refuses a qid labelled twice and a verdict it does not know, naming the line', async () => {
    const twice = tmpTree({
      'l.jsonl': jsonl([
        { qid: 'A', verdict: 'SUPPORTED' },
        { qid: 'A', verdict: 'SUPPORTED' },
      ]),
    });
    await expect(readLabels(path.join(twice, 'l.jsonl'))).rejects.toThrow(
      /l\.jsonl:2: qid "A" is labelled again \(first at line 1\); expected one label per qid/,
    );
    const unclear = tmpTree({ 'l.jsonl': jsonl([{ qid: 'A', verdict: 'UNCLEAR' }]) });
    await expect(readLabels(path.join(unclear, 'l.jsonl'))).rejects.toThrow(/l\.jsonl:1:.*verdict/);
  });

  it('a missing file is an input error naming it', async () => {
    const dir = tmpTree({});
    const err = await readLabels(path.join(dir, 'none.jsonl')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(
      /none\.jsonl: claims\.labels: file not found; expected JSON Lines of human labels$/,
    );
  });
});
