import { describe, expect, it } from 'vitest';
import { fixed4, formatDelta, formatNumber, formatP } from '../src/report/format.js';

describe('number formatting in renderers', () => {
  it('rounds exact ties to even at four decimals, as trec_eval prints them', () => {
    expect(formatNumber(1 / 32)).toBe('0.0312'); // toFixed(4) would say 0.0313
    expect(formatNumber(3 / 32)).toBe('0.0938');
    expect(formatNumber(5 / 32)).toBe('0.1562');
    expect(formatNumber(2 / 3)).toBe('0.6667');
    expect(fixed4(-1 / 32)).toBe('-0.0312');
    expect(formatDelta(-1 / 32, 'ratio')).toBe('−0.0312');
  });

  it('formats counts, milliseconds, missing values and p-values', () => {
    expect(formatNumber(2, 'count')).toBe('2');
    expect(formatNumber(1234.6, 'ms')).toBe('1235');
    expect(formatNumber(null)).toBe('n/a');
    expect(formatDelta(0, 'count')).toBe('±0');
    expect(formatP(2 / 2 ** 17)).toBe('< 0.0001');
    expect(formatP(0.0625)).toBe('= 0.0625');
  });
});
