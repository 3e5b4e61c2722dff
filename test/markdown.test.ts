import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GITHUB_COMMENT_LIMIT, renderMarkdown } from '../src/report/markdown.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

const HOSTILE = [
  '@org/team please look',
  '<img src=x onerror=alert(1)>',
  '</details><script>alert(1)</script>',
  'a | b | c',
  'see #123 and GH-9 and acme/rag#4',
  '`rm -rf /` **bold** [link](https://evil.example)',
  'line one\nline two\r\n| --- |',
];

/** 5,000 unanswerable questions, all answered with hostile text: 5,000 offenders, one with a 200 KB claim. */
async function hostileReport() {
  const gold = [];
  const traces = [];
  for (let i = 0; i < 5000; i++) {
    const qid = i === 0 ? '@octocat</details>|' : `Q${String(i).padStart(5, '0')}`;
    gold.push({
      qid,
      question: HOSTILE[i % HOSTILE.length],
      answerable: false,
      gold_claim_substr: [],
      gold_citations: [],
    });
    const claim = i === 1 ? 'x'.repeat(200_000) : HOSTILE[(i + 3) % HOSTILE.length];
    traces.push({
      qid,
      retrieved_ids: ['<b>id</b>', '@admin'],
      answer_json: { claim, citations: ['@admin'] },
    });
  }
  const dir = tmpTree({
    'gates.yaml':
      'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    gates:\n      under_refusal: "<= 0.05"\n',
    'gold.jsonl': jsonl(gold),
    'traces.jsonl': jsonl(traces),
  });
  return (await run({ config: path.join(dir, 'gates.yaml') })).report;
}

describe('Markdown comment with hostile trace text', () => {
  it('stays inert and under the size limit, saying how many offenders were left out', async () => {
    const report = await hostileReport();
    expect(report.suites.qa!.offenders_total).toBe(5000);
    const body = renderMarkdown(report, {
      offenders: 5000,
      marker: '<!-- groundgate:gates.yaml -->',
      fullReportHint: 'report.json',
    });

    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT - 10_000);
    const shown = Number(/Top offenders \((\d+) of 5000\)/.exec(body)![1]);
    expect(shown).toBeGreaterThan(50);
    expect(body).toContain(`${5000 - shown} more offenders not shown; the full list is in report.json.`);

    // Our own HTML is the only HTML: one <details>, one </details>, no <img>, <script> or <b>.
    expect(body.match(/<details>/g)).toHaveLength(1);
    expect(body.match(/<\/details>/g)).toHaveLength(1);
    expect(body).not.toMatch(/<img|<script|<b>/i);
    // No live mentions or references: every @ and # before a word is followed by a zero-width joiner.
    // (GitHub links @name only after a non-word character, so our own "recall@5" is not one.)
    expect(body).not.toMatch(/(?:^|[^\w])@(?!\u200d)[\w-]/m);
    expect(body.replace(/&#\d+;/g, '')).not.toMatch(/#(?!\u200d)\d/);
    expect(body).not.toMatch(/\bGH-\d/);
    // Every offender row keeps its 8 cells (id, labels, 5 fields, details): 9 pipes, 10 pieces.
    const rows = body.split('\n').filter((l) => l.startsWith('| Q') || l.startsWith('| @'));
    expect(rows.length).toBe(shown);
    for (const row of rows) expect(row.split('|').length).toBe(10);
    // The 200 KB claim is cut to a readable length.
    // Cut to 300 characters, with a break opportunity every 40: no run can widen the table.
    expect(body).toContain(
      `${Array(7).fill('x'.repeat(40)).join('\u200b')}\u200b${'x'.repeat(20)} … (199700 more characters)`,
    );
    expect(body).not.toMatch(/[^\s\u200b]{81}/);
  });

  it('fits any limit it is given', async () => {
    const report = await hostileReport();
    for (const limit of [5_000, 20_000]) {
      const body = renderMarkdown(report, { offenders: 100, maxChars: limit });
      expect(body.length).toBeLessThanOrEqual(limit);
      expect(body).toMatch(/more offenders not shown/);
    }
  });
});
