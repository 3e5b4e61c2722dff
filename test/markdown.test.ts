import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GITHUB_COMMENT_LIMIT, renderMarkdown } from '../src/report/markdown.js';
import { run } from '../src/run.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

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

    // What GitHub renders as markup is outside code spans and unescaped: there, our own HTML is the only
    // HTML (one <details>, one </details>, no <img>, <script> or <b>), and no @mention, #reference or GH-
    // link is left. (GitHub links @name only after a non-word character, so "recall@5" is not one.)
    const markup = outsideCode(body);
    expect(markup.match(/<details>/g)).toHaveLength(1);
    expect(markup.match(/<\/details>/g)).toHaveLength(1);
    expect(markup).not.toMatch(/<img|<script|<b>/i);
    expect(markup).not.toMatch(/(?:^|[^\w])@[\w-]/m);
    expect(markup).not.toMatch(/#\d/);
    expect(markup).not.toMatch(/\bGH-\d/);
    // No entities, no invisible joiners: ids and text are what a reader copies and searches for.
    expect(body).not.toMatch(/&#|\u200d/);
    expect(body).toContain('| `@octocat</details>\\|` | `under_refusal` |');
    // Every offender row keeps its 8 cells (id, labels, 5 fields, details): 9 unescaped pipes, 10 pieces.
    const rows = body.split('\n').filter((l) => /^\| `[Q@]/.test(l));
    expect(rows.length).toBe(shown);
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(10);
    // The 200 KB claim is cut to a readable length.
    // Cut to 300 characters, kept whole (no invisible break: what is shown copies as written).
    expect(body).toContain(`${'x'.repeat(300)} … (199700 more characters)`);
    expect(body).not.toMatch(/[\u200b\u200c\u200d]/);
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

describe('ids in the Markdown', () => {
  it('are code spans, copied and searched for as they are, however hostile', async () => {
    const long = `https://docs.example.com/product/reference/configuration/advanced-settings/${'n'.repeat(40)}`;
    const ids = ['a`b', 'x|y', '<script>', '@x', '#2', '[a](b)', long];
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    gates:\n      under_refusal: "<= 0.05"\n',
      'gold.jsonl': jsonl(
        ids.map((qid) => ({
          qid,
          question: 'q',
          answerable: false,
          gold_claim_substr: [],
          gold_citations: [],
        })),
      ),
      'traces.jsonl': jsonl(
        ids.map((qid) => ({ qid, retrieved_ids: [qid], answer_json: { claim: 'yes', citations: [qid] } })),
      ),
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const body = renderMarkdown(report, { offenders: 10 });
    // The offender rows in code-unit order of their ids: the id cell, the labels, then the retrieved ids.
    const rows = body.split('\n').filter((l) => l.includes('`under_refusal`'));
    expect(rows.map((r) => r.slice(0, r.indexOf(' | `under_refusal`')))).toEqual([
      '| `#2`',
      '| `<script>`',
      '| `@x`',
      '| `[a](b)`',
      '| ``a`b``',
      // A 115-character id is shown whole: it is what a reader copies and searches for.
      `| \`${long}\``,
      '| `x\\|y`',
    ]);
    expect(rows[6]).toContain('| `x\\|y` | `x\\|y` |');
    expect(rows.map((r) => r.split(/(?<!\\)\|/).length)).toEqual(Array(7).fill(10));
  });

  it('hold no zero-width joiner and no entity in the repo example, passing or failing', async () => {
    for (const inputs of [[], [{ suite: 'qa', key: 'traces', path: 'runs/qa-regressed.trace.jsonl' }]]) {
      const previous = process.cwd();
      process.chdir(REPO);
      try {
        const { report } = await run({ config: 'gates.yaml', inputs });
        const body = renderMarkdown(report, { offenders: 50 });
        expect(body).not.toMatch(/\u200d|&#/);
        expect(body).toContain('`keys#4`');
        expect(body).toContain('over_refused.not_retrieved');
      } finally {
        process.chdir(previous);
      }
    }
  });
});

/**
 * The Markdown with its code spans and backslash escapes taken out, as CommonMark reads them: what is left
 * is what GitHub may turn into markup, links or mentions.
 */
function outsideCode(markdown: string): string {
  let out = '';
  for (let i = 0; i < markdown.length;) {
    if (markdown[i] === '\\') {
      i += 2;
      continue;
    }
    const fence = /^`+/.exec(markdown.slice(i))?.[0];
    if (fence) {
      const close = new RegExp(`(?<!\`)${fence}(?!\`)`, 'g');
      close.lastIndex = i + fence.length;
      const end = close.exec(markdown);
      i = end ? end.index + fence.length : i + fence.length;
      continue;
    }
    out += markdown[i++];
  }
  return out;
}
