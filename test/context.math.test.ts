import { describe, expect, it } from 'vitest';
import {
  intersectIntervals,
  intersectionSize,
  intervalsSize,
  mergeIntervals,
  totalSize,
  unionByFile,
} from '../src/metrics/intervals.js';
import { lineRangeToBytes, lineStarts } from '../src/suites/context/bytes.js';
import { deletedLines } from '../src/suites/context/diff.js';
import { coverageAndPrecision, f1 } from '../src/suites/context/score.js';
import { definitionsInSpans, definitionsNamed, type Definition } from '../src/suites/context/symbols.js';

describe('inclusive intervals', () => {
  it('merges overlapping and adjacent intervals, not ones with a gap', () => {
    expect(
      mergeIntervals([
        [6, 8],
        [1, 3],
        [4, 5],
        [10, 12],
        [11, 11],
      ]),
    ).toEqual([
      [1, 8],
      [10, 12],
    ]);
    expect(
      intervalsSize([
        [1, 3],
        [2, 6],
        [8, 8],
      ]),
    ).toBe(7);
    expect(mergeIntervals([])).toEqual([]);
  });

  it('intersects sorted lists', () => {
    expect(
      intersectIntervals(
        [
          [1, 10],
          [20, 30],
        ],
        [
          [5, 25],
          [28, 40],
        ],
      ),
    ).toEqual([
      [5, 10],
      [20, 25],
      [28, 30],
    ]);
    expect(intersectIntervals([[1, 3]], [[4, 6]])).toEqual([]);
  });

  it('adds up per file', () => {
    const a = new Map([
      ['x', [[1, 10]] as [number, number][]],
      ['y', [[1, 1]] as [number, number][]],
    ]);
    const b = new Map([
      ['x', [[5, 15]] as [number, number][]],
      ['z', [[1, 100]] as [number, number][]],
    ]);
    expect(totalSize(a)).toBe(11);
    expect(intersectionSize(a, b)).toBe(6);
    expect([...unionByFile(a, b)]).toEqual([
      ['x', [[1, 15]]],
      ['y', [[1, 1]]],
      ['z', [[1, 100]]],
    ]);
  });
});

describe('line ranges to bytes', () => {
  const text = new TextEncoder().encode('ab\ncd\n\nxyz');
  const starts = lineStarts(text);

  it('includes the end line newline and clamps the end to the file', () => {
    expect(starts).toEqual([0, 3, 6, 7]);
    expect(lineRangeToBytes(starts, 10, 1, 1)).toEqual([0, 2]);
    expect(lineRangeToBytes(starts, 10, 2, 3)).toEqual([3, 6]);
    expect(lineRangeToBytes(starts, 10, 4, 4)).toEqual([7, 9]);
    expect(lineRangeToBytes(starts, 10, 3, 99)).toEqual([6, 9]);
  });

  it('reads a start below 1 as 1 and an end before the start as the start', () => {
    expect(lineRangeToBytes(starts, 10, 0, 1)).toEqual([0, 2]);
    expect(lineRangeToBytes(starts, 10, 2, -1)).toEqual([3, 5]);
  });

  it('drops a range that starts past the last byte, including the line after a final newline', () => {
    expect(lineRangeToBytes(starts, 10, 5, 9)).toBeUndefined();
    const withNewline = new TextEncoder().encode('a\nb\n');
    expect(lineRangeToBytes(lineStarts(withNewline), 4, 3, 3)).toBeUndefined();
    expect(lineRangeToBytes(lineStarts(new Uint8Array()), 0, 1, 1)).toBeUndefined();
  });
});

describe('deleted lines of a patch (old-file numbering)', () => {
  it('numbers deletions in the old file, across hunks and files', () => {
    const patch = [
      'diff --git a/p.py b/p.py',
      '--- a/p.py',
      '+++ b/p.py',
      '@@ -10,4 +10,4 @@ def f():',
      ' a',
      '-b',
      '-c',
      '+B',
      ' d',
      '@@ -30 +30,2 @@',
      '-z',
      '+y',
      '+w',
      'diff --git a/q.py b/q.py',
      '--- a/q.py',
      '+++ b/q.py',
      '@@ -1,2 +1,1 @@',
      ' keep',
      '-drop',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect([...deletedLines(patch)]).toEqual([
      ['p.py', [11, 12, 30]],
      ['q.py', [2]],
    ]);
  });

  it('keeps a deleted line whose text starts with "--" (the evaluator ends the hunk there)', () => {
    const patch = [
      '--- a/schema.sql',
      '+++ b/schema.sql',
      '@@ -1,4 +1,3 @@',
      ' CREATE TABLE t (',
      '--- a comment',
      '-  id INT',
      '+  id BIGINT',
      ' );',
    ].join('\n');
    expect([...deletedLines(patch)]).toEqual([['schema.sql', [2, 3]]]);
  });

  it('names a deleted file by its old path, and reads a context line that lost its space', () => {
    const patch = ['--- a/gone.py', '+++ /dev/null', '@@ -1,3 +0,0 @@', '-x', '', '-y'].join('\n');
    expect([...deletedLines(patch)]).toEqual([['gone.py', [1, 3]]]);
    expect([...deletedLines('')]).toEqual([]);
  });
});

describe('ratios and symbols', () => {
  it('uses the evaluator conventions for empty sets', () => {
    expect(coverageAndPrecision(0, 0, 0)).toEqual({ coverage: 1, precision: 1 });
    expect(coverageAndPrecision(0, 4, 0)).toEqual({ coverage: 0, precision: 1 });
    expect(coverageAndPrecision(2, 4, 8)).toEqual({ coverage: 0.5, precision: 0.25 });
    expect(f1(0, 0)).toBe(0);
    expect(f1(1, 0.5)).toBeCloseTo(2 / 3, 15);
  });

  const defs: Definition[] = [
    { kind: 'class_definition', start: 10, end: 50, name: 'C' },
    { kind: 'function_definition', start: 20, end: 30, name: 'get' },
    { kind: 'function_definition', start: 60, end: 70, name: 'get' },
    { kind: 'function_definition', start: 80, end: 90, name: '' },
  ];

  it('selects every definition a span touches (tree-sitter end exclusive, compared as the evaluator)', () => {
    expect(definitionsInSpans(defs, [[30, 59]]).map((d) => d.start)).toEqual([10, 20]);
    expect(definitionsInSpans(defs, [[50, 55]]).map((d) => d.start)).toEqual([10]);
    expect(definitionsInSpans(defs, [[91, 99]])).toEqual([]);
  });

  it('maps names, a dotted name by its last part, to every definition so named', () => {
    expect(definitionsNamed(defs, ['C.get', ' C ', 'nope', '']).map((d) => d.start)).toEqual([20, 60, 10]);
  });
});
