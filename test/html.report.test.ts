import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryFor } from '../src/history/history.js';
import { renderHtml } from '../src/report/html.js';
import { legend, legendLine } from '../src/report/legend.js';
import { serializeReport, type Report } from '../src/report/schema.js';
import { buildTrends } from '../src/report/trend.js';
import { run } from '../src/run.js';
import { CHROMIUM, openPage, type Page } from './helpers/chromium.js';
import { qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

const SHOTS = path.join(REPO, 'artifacts', 'screenshots');

/** The README's example: the regressed run against the passing one, with a short history (scripts/screenshot.mjs). */
async function exampleReport(): Promise<{ report: Report; html: string }> {
  const dir = tmpTree({ 'gates.yaml': qaOnlyGates() });
  const config = path.join(REPO, 'gates.yaml');
  const pass = (await run({ config, suites: ['qa'] })).report;
  writeFileSync(path.join(dir, 'pass.json'), serializeReport(pass));
  const report = (
    await run({
      config,
      suites: ['qa'],
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }],
      baseline: path.join(dir, 'pass.json'),
    })
  ).report;
  const history = ['run-1', 'run-2', 'run-3'].map((l, i) =>
    entryFor(i === 2 ? report : pass, l, '2026-01-01T00:00:00.000Z'),
  );
  const html = renderHtml(report, {
    trends: buildTrends(history, report, 20),
    now: Date.parse('2026-01-02'),
  });
  return { report, html };
}

const SORTED_IDS = [
  'FM002', 'FM003', 'FM004', 'FM005', 'FM009', 'FM011', 'FM015', 'FM018', 'FM022', 'FM023', 'FM026',
  'FM028', 'FM029', 'FM031', 'FM033', 'FM035', 'FM037', 'FM038', 'FM042', 'FM043', 'FM044', 'FM046',
]; // prettier-ignore
const REPORT_ORDER = [
  'FM004', 'FM028', 'FM044', 'FM002', 'FM029', 'FM018', 'FM022', 'FM031', 'FM035', 'FM042', 'FM046',
  'FM003', 'FM038', 'FM005', 'FM026', 'FM037', 'FM033', 'FM015', 'FM011', 'FM023', 'FM009', 'FM043',
]; // prettier-ignore

describe('the legend of the metrics', () => {
  it('is one line per metric from its spec, with a family cutoff filled in', () => {
    expect(legend('grounded-qa', ['chr', 'chr@5_upper_bound', 'recall@10', 'no_such_metric'])).toEqual([
      {
        metric: 'chr',
        text: 'Citation hit rate: shipped answers citing a gold id and only retrieved ids, over all shipped answers',
      },
      {
        metric: 'chr@5_upper_bound',
        text: 'Shipped answers with a gold id in the top 5 retrieved ids, over all shipped answers: the highest chr the retriever allows',
      },
      {
        metric: 'recall@10',
        text: 'Answerable items whose gold citations are all in the top 10 retrieved ids, over all answerable items',
      },
    ]);
    expect(legendLine('latency', 'p95_ms')).toBe(
      'Percentile 95 of end-to-end latency (linear interpolation between closest ranks)',
    );
    expect(legendLine('latency', 'retrieval.p50_ms')).toBe(
      "Percentile 50 of the retrieval stage's time (csv input)",
    );
    expect(legendLine('ranking', 'P@10')).toBe('Mean precision at 10: relevant docs in the top 10, over 10');
    expect(legendLine('no-such-kind', 'chr')).toBeUndefined();
  });
});

describe('the HTML report’s markup', () => {
  it('lets its one script run by that script’s hash, and no other script, handler or resource', async () => {
    const { html } = await exampleReport();
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(html.match(/<script/g)).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'">`,
    );
    expect(html).not.toMatch(/<[^>]*\son[a-z]+\s*=/i); // no inline handlers
    expect(html).not.toMatch(/\s(src|href|action)\s*=/i); // nothing fetched
  });

  it('shows a legend line under the gates, keeps ids and labels whole and folds long fields', async () => {
    const { html } = await exampleReport();
    expect(html).toContain(
      '<dt>chr</dt><dd>Citation hit rate: shipped answers citing a gold id and only retrieved ids, over all shipped answers</dd>',
    );
    expect(html).toContain(
      '<dt>chr@5_upper_bound</dt><dd>Shipped answers with a gold id in the top 5 retrieved ids, over all shipped answers: the highest chr the retriever allows</dd>',
    );
    expect(html.match(/<dt>/g)).toHaveLength(9); // one per metric of the suite
    expect(html).toContain('<td class="tok">chr@5_upper_bound</td>');
    expect(html).toContain('<td class="tok">&gt;= 0.75</td>'); // chr's gate: `>=` stays with its number
    // FM004: a 64-character question folded under its first words; the 47-character claim is not, and keeps
    // its column's width (prose).
    expect(html).toContain(
      [
        '<tr><td class="id">FM004</td><td class="labels"><code>under_refusal</code></td>',
        '<td class="long"><details><summary>What is the maximum number of keys a…</summary>',
        '<div class="full">What is the maximum number of keys a single namespace can hold?</div></details></td>',
        '<td class="prose">A single namespace can hold at most 1,000 keys.</td>',
        '<td><span class="tok">keys#2</span></td>',
        '<td><span class="tok">keys#2</span>, <span class="tok">faq#4</span>, <span class="tok">keys#5</span>, ',
        '<span class="tok">limits#1</span>, <span class="tok">retention#6</span></td>',
        '<td class="none">—</td><td><span class="tok">runs/qa-regressed.trace.jsonl:5</span></td><td><span class="tok">pass → fail</span></td>',
      ].join(''),
    );
    expect(html).toContain('<table class="offenders sortable">');
    // A list of sentences wraps between words; a list of ids (above) only between its items.
    expect(html).toContain(
      '<td class="prose">Tokens must be rotated every 90 days.</td><td class="prose">Tokens should be rotated every 90 days.</td>',
    );
  });

  it('escapes ids, labels and fields, folds a long list under its count and keeps a number for sorting', async () => {
    const { report } = await exampleReport();
    const ids = Array.from({ length: 12 }, (_, i) => `doc-${i}`);
    report.suites.qa!.offenders = [
      {
        id: '</td><script>alert(1)</script>',
        labels: ['<b>x</b>'],
        retrieved_ids: ids,
        latency_ms: 12.345678,
        note: 'z'.repeat(60),
      },
    ];
    report.suites.qa!.offenders_total = 1;
    const html = renderHtml(report);
    expect(html).toContain(
      '<tr><td class="id">&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;</td><td class="labels"><code>&lt;b&gt;x&lt;/b&gt;</code></td>',
    );
    expect(html).toContain(
      `<td class="long"><details><summary>12 items: doc-0, doc-1, doc-2, doc-3, doc-4…</summary><div class="full">${ids.map((i) => `<span class="tok">${i}</span>`).join(', ')}</div></details></td>`,
    );
    expect(html).toContain('<td class="num" data-v="12.345678">12.3457</td>');
    // 60 characters without a space are no id: folded under the first 40, free to break when opened.
    expect(html).toContain(
      `<td class="long"><details><summary>${'z'.repeat(40)}…</summary><div class="full">${'z'.repeat(60)}</div></details></td>`,
    );
    expect(html.match(/<script/g)).toHaveLength(1);
  });
});

describe.skipIf(!CHROMIUM && !process.env.CI)('the HTML report in headless Chromium', () => {
  let file: string;
  const pages: Page[] = [];
  const open = async (f: string, options: Parameters<typeof openPage>[1]) => {
    const page = await openPage(f, options);
    pages.push(page);
    return page;
  };
  const ids = (page: Page) =>
    page.evaluate<string[]>(
      '[...document.querySelectorAll("table.offenders tbody tr:not([hidden]) td.id")].map((td) => td.textContent)',
    );
  /** Each id cell, label, metric name, threshold and listed id, as the lines its text was laid out on. */
  const tokenLines = (page: Page) =>
    page.evaluate<{ text: string; lines: number; height: number }[]>(
      `[...document.querySelectorAll("td.id, .labels code, .tok")].map((e) => {
        const r = document.createRange();
        r.selectNodeContents(e);
        return { text: e.textContent, lines: r.getClientRects().length, height: r.getBoundingClientRect().height };
      })`,
    );
  beforeAll(async () => {
    const dir = tmpTree({});
    file = path.join(dir, 'report.html');
    writeFileSync(file, (await exampleReport()).html);
  });
  afterAll(async () => {
    for (const page of pages) await page.close();
  });

  it('at 1280 px: every id and label on one line, a screenshot, no CSP violation', async () => {
    const page = await open(file, { width: 1280 });
    const lines = await tokenLines(page);
    expect(lines.filter((l) => l.text.startsWith('FM'))).toHaveLength(22 + 14); // id cells + the triage table's first offenders (3+3+3+2+2+1)
    expect(lines.filter((l) => l.lines !== 1)).toEqual([]);
    const lineHeight = await page.evaluate<number>('parseFloat(getComputedStyle(document.body).lineHeight)');
    expect(Math.max(...lines.map((l) => l.height))).toBeLessThanOrEqual(lineHeight);
    const shot = await page.screenshot(path.join(SHOTS, 'report-1280.png'));
    expect(shot.width).toBe(1280);
    expect(shot.height).toBeGreaterThan(1000);
    // The script ran (its buttons are there) and nothing was refused.
    expect(await page.evaluate('document.querySelectorAll("table.offenders th button").length')).toBe(14);
    expect(page.problems).toEqual([]);
  }, 60_000);

  it('at 390 px on a phone: the page does not scroll sideways, the tables scroll in their boxes', async () => {
    const page = await open(file, { width: 390, height: 844, mobile: true });
    const widths = await page.evaluate<{ inner: number; page: number; table: number; box: number }>(
      `(() => { const t = document.querySelector("table.offenders");
        return { inner: innerWidth, page: document.documentElement.scrollWidth, table: t.scrollWidth, box: t.parentElement.clientWidth }; })()`,
    );
    expect(widths.inner).toBe(390);
    expect(widths.page).toBe(390);
    expect(widths.table).toBeGreaterThan(widths.box); // it scrolls inside .scroll instead
    expect((await tokenLines(page)).filter((l) => l.lines !== 1)).toEqual([]);
    const shot = await page.screenshot(path.join(SHOTS, 'report-390.png'));
    expect(shot.width).toBe(390);
    expect(page.problems).toEqual([]);
  }, 60_000);

  it('sorts by a clicked header, stably, ids by code unit, and filters by text and label', async () => {
    const page = await open(file, { width: 1280 });
    expect(await ids(page)).toEqual(REPORT_ORDER);
    await page.click('table.offenders th:nth-child(1) button');
    expect(await ids(page)).toEqual(SORTED_IDS);
    expect(
      await page.evaluate('document.querySelector("table.offenders th").getAttribute("aria-sort")'),
    ).toBe('ascending');
    await page.click('table.offenders th:nth-child(1) button');
    expect(await ids(page)).toEqual([...SORTED_IDS].reverse());
    expect(
      await page.evaluate('document.querySelector("table.offenders th").getAttribute("aria-sort")'),
    ).toBe('descending');

    await page.click('.filter input');
    await page.type('tls');
    expect(await ids(page)).toEqual(['FM044']); // "TLS" is in FM044's question alone
    expect(await page.evaluate('document.querySelector(".filter span").textContent')).toBe('1 of 22 rows');
    await page.evaluate(
      `(() => { const i = document.querySelector(".filter input"); i.value = ""; i.dispatchEvent(new Event("input"));
        const s = document.querySelector(".filter select"); s.value = "over_refusal"; s.dispatchEvent(new Event("change")); })()`,
    );
    expect(await ids(page)).toEqual(['FM043', 'FM037', 'FM026', 'FM009', 'FM005']);
    expect(page.problems).toEqual([]);
  }, 60_000);

  it('sorts numbers numerically with empty cells last, and equal keys keep their order', async () => {
    const { report } = await exampleReport();
    report.suites.qa!.offenders = [
      { id: 'a9', labels: ['x'], latency_ms: 100 },
      { id: 'a10', labels: ['y'], latency_ms: 9 },
      { id: 'B1', labels: ['x'], latency_ms: 10 },
      { id: 'b2', labels: ['x'], latency_ms: 9 },
      { id: 'c', labels: ['y'] },
    ];
    report.suites.qa!.offenders_total = 5;
    const dir = tmpTree({ 'r.html': renderHtml(report) });
    const page = await open(path.join(dir, 'r.html'), { width: 1280 });
    await page.click('table.offenders th:nth-child(3) button'); // latency_ms
    expect(await ids(page)).toEqual(['a10', 'b2', 'B1', 'a9', 'c']);
    await page.click('table.offenders th:nth-child(3) button');
    expect(await ids(page)).toEqual(['a9', 'B1', 'a10', 'b2', 'c']);
    await page.click('table.offenders th:nth-child(1) button'); // by code unit: not 'a10', 'a9', 'B1'
    expect(await ids(page)).toEqual(['B1', 'a10', 'a9', 'b2', 'c']);
    expect(page.problems).toEqual([]);
  }, 60_000);

  it('at 1280 px with every offender column: a claim is a few lines, not a word a line', async () => {
    const { report } = await exampleReport();
    const claim = 'Keys are limited to 512 bytes of UTF-8 text.'; // 10 words, 45 characters
    report.suites.qa!.offenders = Array.from({ length: 6 }, (_, i) => ({
      id: `FM10${i}`,
      labels: ['scu_violation', 'citation_miss', 'claim_miss'],
      question: 'What is the maximum length of a key, in bytes?',
      claim,
      citations: ['keys#1', 'faq#2'],
      retrieved_ids: ['configuration#12', 'keys#1', 'faq#2', 'install#1', 'cli#2'],
      gold_citations: ['keys#1'],
      gold_claim_substr: ['512 bytes', 'FM-E102'],
      constraints: ['Ferrymark rejects null keys.'],
      constraints_echo: ['Ferrymark rejects null keys.'],
      contradiction: 'accepts null keys',
      trace: `runs/qa-regressed.trace.jsonl:${10 + i}`,
    }));
    report.suites.qa!.offenders_total = 6;
    const dir = tmpTree({ 'r.html': renderHtml(report) });
    const page = await open(path.join(dir, 'r.html'), { width: 1280 });
    /** Each row's cell of a column: its width and how many lines its text takes. */
    const column = (name: string) =>
      page.evaluate<{ width: number; lines: number }[]>(
        `(() => { const col = [...document.querySelectorAll("table.offenders thead th")].findIndex((th) => th.textContent === ${JSON.stringify(name)});
          return [...document.querySelectorAll("table.offenders tbody tr")].map((tr) => { const td = tr.cells[col];
            const r = document.createRange(); r.selectNodeContents(td);
            return { width: td.getBoundingClientRect().width, lines: Math.round(r.getBoundingClientRect().height / parseFloat(getComputedStyle(td).lineHeight)) }; }); })()`,
      );
    // The claim was 64 px and 8 lines: the table squeezed it to its longest word. 14em of 14 px is 196 px.
    for (const name of ['claim', 'constraints']) {
      const cells = await column(name);
      expect(cells).toHaveLength(6);
      for (const c of cells) {
        expect(c.lines).toBeLessThanOrEqual(3);
        expect(c.width).toBeGreaterThanOrEqual(196);
      }
    }
    expect(page.problems).toEqual([]);
  }, 60_000);

  it('with scripts off shows every offender in the report’s order, and a changed script is refused', async () => {
    const off = await open(file, { width: 1280, scripts: false });
    expect(await ids(off)).toEqual(REPORT_ORDER);
    expect(await off.evaluate('document.querySelectorAll(".filter, th button").length')).toBe(0);

    // The detector works: one character more and the hash no longer matches.
    const { html } = await exampleReport();
    const dir = tmpTree({ 'r.html': html.replace('"use strict";', '"use strict"; ') });
    const changed = await open(path.join(dir, 'r.html'), { width: 1280 });
    expect(changed.problems.join('\n')).toMatch(/Content Security Policy/);
    expect(await changed.evaluate('document.querySelectorAll("th button").length')).toBe(0);
  }, 60_000);
});
