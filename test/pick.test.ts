import { describe, expect, it } from 'vitest';
import {
  offerSlots,
  pickWinners,
  refHi,
  refLo,
  refOf,
  type Candidate,
} from '../src/grounded-answer/pipeline/pick.js';

const run = (qid: string, ts: number, file: number, ordinal: number, ref: number, runs = 1): Candidate => ({
  qid,
  ts,
  position: { file, ordinal },
  line: ordinal + 100,
  ref,
  runs,
});

/** Each gold row's winning ref (-1 when none), and the counts, for candidates offered in this order. */
function pick(candidates: Candidate[], questions?: Map<string, string>) {
  const picked = pickWinners(['a', 'b', 'c'], 1, questions, (offer) => {
    candidates.forEach(offer);
    return { lines: 42, winners: 'kept' };
  });
  const { table } = picked;
  return {
    refs: [0, 1, 2].map((r) => (table.present[r] ? table.ref[r] : -1)),
    lines: [0, 1, 2].map((r) => table.line[r]),
    known: picked.known,
    unknown: [...picked.unknown],
    read: picked.lines,
    winners: picked.winners,
  };
}

describe('pickWinners', () => {
  const runs = [
    run('a', 10, 0, 5, 1),
    run('a', 10, 1, 2, 2), // same ts, later file: wins over ref 1
    run('a', 10, 0, 9, 3), // same ts, same file as ref 1 but earlier file than ref 2
    run('b', NaN, 1, 7, 4),
    run('b', 3, 0, 1, 5), // a ts beats none, wherever it is
    run('x', 1, 0, 0, 6, 4),
    run('c', 2, 0, 1, 7, 3),
    run('c', 1, 1, 9, 8),
  ];

  it('keeps, per gold item, the greatest ts, then the later (file, ordinal), whatever the order offered', () => {
    for (const order of [runs, [...runs].reverse(), [runs[2]!, runs[7]!, runs[0]!, runs[4]!, ...runs]]) {
      const got = pick(order);
      expect(got.refs).toEqual([2, 5, 7]);
    }
    const got = pick(runs);
    expect(got.lines).toEqual([102, 101, 101]);
    // a: 3, b: 2, c: 3 + 1; x is not in gold.
    expect(got.known).toBe(9);
    expect(got.unknown).toEqual([['x', 4]]);
    expect(got.read).toBe(42);
    expect(got.winners).toBe('kept');
  });

  it('matches a candidate by its question when given the gold questions, counting others under their own qid', () => {
    const questions = new Map([['What is b?', 'b']]);
    const got = pick([run('What is b?', 1, 0, 0, 11), run('What is c?', 1, 0, 1, 12)], questions);
    expect(got.refs).toEqual([-1, 11, -1]);
    expect(got.unknown).toEqual([['What is c?', 1]]);
  });

  it('says whether the offered candidate is now the winner', () => {
    const said: boolean[] = [];
    pickWinners(['a'], 1, undefined, (offer) => {
      for (const c of [
        run('a', 1, 0, 1, 1),
        run('a', 0, 0, 2, 2),
        run('a', 1, 0, 3, 3),
        run('z', 1, 0, 0, 4),
      ])
        said.push(offer(c));
      return { lines: 0, winners: undefined };
    });
    expect(said).toEqual([true, false, true, false]);
  });

  it('packs two numbers into a ref and back', () => {
    const ref = refOf(1_000_000, 4_000_000_000);
    expect([refHi(ref), refLo(ref)]).toEqual([1_000_000, 4_000_000_000]);
  });
});

describe('offerSlots', () => {
  // Chunks 0 and 1 of file 0 (its first 7 lines are in chunk 0), chunk 2 of file 1.
  const chunks = [
    { file: 'a.jsonl', fileIndex: 0, start: 0, end: 10 },
    { file: 'a.jsonl', fileIndex: 0, start: 10, end: 20 },
    { file: 'b.jsonl', fileIndex: 1, start: 0, end: 10 },
  ];
  const scans = [
    { qids: ['a', 'b'], ts: [1, 2], chunk: [1, 0], line: [2, 5], count: [3, 1] },
    { qids: ['c'], ts: [NaN], chunk: [2], line: [4], count: [2] },
  ];
  const offered = (lineBase?: number[]) => {
    const got: Candidate[] = [];
    offerSlots(scans, chunks, (c) => (got.push(structuredClone(c)), true), lineBase);
    return got;
  };

  it("offers every scan's slots in order: the chunk's file, the line made absolute by the chunk's line base, the scan and slot as ref", () => {
    expect(offered([0, 7, 0])).toEqual([
      { qid: 'a', ts: 1, position: { file: 0, ordinal: 9 }, line: 9, ref: refOf(0, 0), runs: 3 },
      { qid: 'b', ts: 2, position: { file: 0, ordinal: 5 }, line: 5, ref: refOf(0, 1), runs: 1 },
      { qid: 'c', ts: NaN, position: { file: 1, ordinal: 4 }, line: 4, ref: refOf(1, 0), runs: 2 },
    ]);
  });

  it('takes the lines as they are without line bases (rows numbered in their file)', () => {
    expect(offered().map((c) => [c.position.file, c.position.ordinal, c.line])).toEqual([
      [0, 2, 2],
      [0, 5, 5],
      [1, 4, 4],
    ]);
  });
});
