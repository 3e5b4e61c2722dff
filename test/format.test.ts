import { describe, expect, it } from 'vitest';
import { fixed4, formatDelta, formatNumber, formatP } from '../src/report/format.js';
import { offenderCount } from '../src/report/item-bar.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import { REPO } from './helpers/tmp.js';

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

describe('what offenders are called on a passing run', () => {
  it('items below a per-item bar, named by their labels, where the gates allow them; failing items where they failed', async () => {
    const previous = process.cwd();
    process.chdir(REPO);
    try {
      const { report } = await run({ config: 'gates.yaml', suites: ['qa', 'retrieval', 'latency'] });
      expect(report.verdict).toBe('pass');
      const text = renderText(report, { offenders: 10 });
      // qa: 5 answers judged wrong (a citation miss, 2 claim misses, 2 over-refusals), which the gates count.
      expect(text).toContain('\n  5 failing items (--offenders N lists them)\n');
      // retrieval: 5 queries below their ideal ranking on ndcg@10 (FM021 missed a relevant doc, 4 misranked).
      expect(text).toContain(
        '\n  5 items below the per-item bar (relevant_missed, misranked; --offenders N lists them)\n',
      );
      // latency: one request slower than the P95 of its configuration.
      expect(text).toContain('\n  1 item below the per-item bar (above_p95; --offenders N lists them)\n');
      expect(text.match(/failing item/g)).toHaveLength(1);
      const md = renderMarkdown(report, { offenders: 3 });
      expect(md).toContain('<summary>Top offenders (3 of 5)</summary>');
      expect(md).toContain('<summary>Items below the per-item bar (3 of 5)</summary>');
      expect(md).toContain('\n2 more items not shown.\n');
      expect(md).toContain('\n2 more offenders not shown.\n');
    } finally {
      process.chdir(previous);
    }
  });

  it('counts one item in the singular', () => {
    expect(offenderCount('grounded-qa', 1)).toBe('1 failing item');
    expect(offenderCount('stability', 2)).toBe('2 failing items');
    expect(offenderCount('context', 1)).toBe('1 item below the per-item bar');
    expect(offenderCount('agent-retrieval', 3)).toBe('3 items below the per-item bar');
  });
});
