import { describe, expect, it } from 'vitest';
import { rowWindows } from '../src/io/parquet.js';

describe('a row group is decoded in the fewest windows its size allows', () => {
  it('one window up to a million rows (pyarrow’s groups), even windows beyond', () => {
    expect(rowWindows(0, 500_000)).toEqual([[0, 500_000]]);
    expect(rowWindows(0, 1_048_576)).toEqual([[0, 1_048_576]]);
    expect(rowWindows(0, 1_048_577)).toEqual([
      [0, 524_288],
      [524_288, 1_048_577],
    ]);
    expect(rowWindows(100, 110, 4)).toEqual([
      [100, 103],
      [103, 106],
      [106, 110],
    ]);
    expect(rowWindows(7, 7)).toEqual([]);
  });

  it('windows cover the rows exactly once, none larger than asked', () => {
    for (const [from, to, most] of [
      [0, 1, 1],
      [3, 1000, 7],
      [0, 999_999, 100_000],
      [12, 13, 5],
    ] as const) {
      const windows = rowWindows(from, to, most);
      expect(windows[0]![0]).toBe(from);
      expect(windows.at(-1)![1]).toBe(to);
      for (let k = 1; k < windows.length; k++) expect(windows[k]![0]).toBe(windows[k - 1]![1]);
      expect(Math.max(...windows.map(([a, b]) => b - a))).toBeLessThanOrEqual(most);
      expect(windows).toHaveLength(Math.ceil((to - from) / most));
    }
  });
});
