import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryFor } from '../src/history/history.js';
import { mermaidTrend } from '../src/report/mermaid.js';
import { serializeReport } from '../src/report/schema.js';
import { buildTrends } from '../src/report/trend.js';
import { run } from '../src/run.js';
import { CHROMIUM, dumpDom, screenshot } from './helpers/chromium.js';
import { runCli } from './helpers/process.js';
import { jsonl, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

const config = path.join(REPO, 'gates.yaml');
const regressed = [{ suite: 'qa', key: 'traces', path: path.join(REPO, 'runs/qa-regressed.trace.jsonl') }];

describe('history and trends', () => {
  it('appends one line per report and draws each gated metric with its gate lines', async () => {
    const dir = tmpTree({ 'gates.yaml': qaOnlyGates() });
    const pass = (await run({ config, suites: ['qa'] })).report;
    const fail = (await run({ config, suites: ['qa'], inputs: regressed })).report;
    writeFileSync(path.join(dir, 'pass.json'), serializeReport(pass));
    writeFileSync(path.join(dir, 'fail.json'), serializeReport(fail));
    const history = path.join(dir, 'history.jsonl');
    const env = { SOURCE_DATE_EPOCH: '1767225600' };
    expect(
      runCli(
        ['history', 'append', path.join(dir, 'pass.json'), '--file', history, '--label', 'v1'],
        REPO,
        env,
      ),
    ).toMatchObject({
      status: 0,
      stdout: `appended v1 (pass) to ${history}\n`,
    });
    expect(
      runCli(['history', 'append', path.join(dir, 'fail.json'), '--file', history], REPO, {
        ...env,
        GITHUB_SHA: 'abcdef0123',
      }).status,
    ).toBe(0);
    const lines = readFileSync(history, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.label, l.verdict, l.recorded])).toEqual([
      ['v1', 'pass', '2026-01-01T00:00:00.000Z'],
      ['abcdef0', 'fail', '2026-01-01T00:00:00.000Z'],
    ]);
    expect(lines[0].metrics['qa.precision']).toBe(30 / 33);
    expect(lines[0].gates['qa.recall@5']).toEqual([{ op: '>=', threshold: 0.85 }]);

    // Trends: two history points plus the current run; recall@5 has one threshold line (max_drop is relative).
    const trends = buildTrends(lines, pass, 20);
    const recall = trends.find((t) => t.key === 'qa.recall@5')!;
    expect(recall.points).toEqual([
      { label: 'v1', value: 32 / 35 },
      { label: 'abcdef0', value: 26 / 35 },
      { label: 'now', value: 32 / 35 },
    ]);
    expect(mermaidTrend(recall)).toBe(
      [
        '```mermaid',
        'xychart-beta',
        '  title "qa.recall@5 (gate >= 0.85)"',
        '  x-axis ["v1", "abcdef0", "now"]',
        '  y-axis 0 --> 1',
        '  line [0.9143, 0.7429, 0.9143]',
        '  line [0.85, 0.85, 0.85]',
        '```',
      ].join('\n'),
    );
    // --trend 2 keeps the last history entry and the current run.
    expect(
      buildTrends(lines, pass, 2)
        .find((t) => t.key === 'qa.chr')!
        .points.map((p) => p.label),
    ).toEqual(['abcdef0', 'now']);
    const md = runCli(['--suite', 'qa', '--format', 'markdown', '--history', history]).stdout;
    expect(md).toContain('<summary>Trends (7 gated metrics)</summary>');
    expect(md.match(/```mermaid/g)).toHaveLength(7);
  });

  it('rejects a corrupt history file with its line', async () => {
    const dir = tmpTree({ 'h.jsonl': '{"recorded": "x"}\n' });
    const pass = (await run({ config, suites: ['qa'] })).report;
    writeFileSync(path.join(dir, 'r.json'), serializeReport(pass));
    const r = runCli(['history', 'append', path.join(dir, 'r.json'), '--file', path.join(dir, 'h.jsonl')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/h\.jsonl:1: missing field "label"/);
    expect(entryFor(pass, 'x', 't').verdict).toBe('pass');
  });
});

describe('trend charts', () => {
  it('leave values and thresholds that are not finite off the chart instead of printing Infinity', async () => {
    const { report } = await run({ config, suites: ['qa'] });
    report.suites.qa!.metrics.precision!.value = Infinity;
    report.gates.find((g) => g.metric === 'chr')!.threshold = -Infinity;
    const history = [
      {
        recorded: 't',
        label: 'r1',
        verdict: 'pass' as const,
        metrics: { 'qa.precision': 0.9, 'qa.chr': 0.8 },
        gates: {},
      },
    ];
    const charts = buildTrends(history, report).map(mermaidTrend).join('\n');
    expect(charts).not.toMatch(/Infinity|NaN/);
    expect(charts).toContain('x-axis ["r1"]'); // precision: only the finite point
    expect(charts).toMatch(/title "qa\.chr"\n/); // no gate line for a threshold of -Infinity
  });
});

describe.skipIf(!CHROMIUM && !process.env.CI)('HTML report in headless Chromium', () => {
  it('renders the gates, the charts and every offender, with hostile text inert', async () => {
    const gold = [
      {
        qid: 'H1',
        question: '<img src=x onerror="document.title=1">',
        answerable: false,
        gold_claim_substr: [],
        gold_citations: [],
      },
      {
        qid: 'H2',
        question: 'fine',
        answerable: true,
        gold_claim_substr: ['right words'],
        gold_citations: ['d'],
      },
    ];
    const traces = [
      {
        qid: 'H1',
        retrieved_ids: ['d'],
        answer_json: { claim: '</td></tr></table><script>document.title=2</script>', citations: ['d'] },
      },
      { qid: 'H2', retrieved_ids: ['d'], answer_json: { claim: 'wrong', citations: ['d'] } },
    ];
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    gates:\n      precision: ">= 0.8"\n',
      'g.jsonl': jsonl(gold),
      't.jsonl': jsonl(traces),
      'h.jsonl': jsonl([
        { recorded: 't', label: 'r1', verdict: 'pass', metrics: { 'qa.precision': 0.9 }, gates: {} },
        { recorded: 't', label: 'r2', verdict: 'pass', metrics: { 'qa.precision': 0.85 }, gates: {} },
      ]),
    });
    const html = path.join(dir, 'report.html');
    expect(runCli(['--format', 'html', '--out', html, '--history', 'h.jsonl'], dir).status).toBe(1);

    const dom = dumpDom(html);
    expect(dom).toMatch(/<span class="badge fail" id="verdict">FAIL<\/span>/);
    expect(dom).toContain('<title>groundgate: FAIL</title>'); // no script rewrote it
    expect(dom.match(/<tr><td class="id">H\d<\/td>/g)).toHaveLength(2);
    expect(dom).toContain('&lt;img src=x onerror="document.title=1"&gt;');
    expect(dom).toContain('&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;');
    // The report's own sorting script is the one script; the hostile ones are text.
    expect(dom.match(/<script/g)).toHaveLength(1);
    expect(dom).toContain('<script>"use strict";');
    expect(dom).not.toMatch(/<img/);
    expect(dom.match(/<svg /g)).toHaveLength(1);
    expect(dom).toContain('<polyline points=');

    const png = path.join(dir, 'shot.png');
    screenshot(html, png, 1000, 800);
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.readUInt32BE(16)).toBe(1000); // IHDR width
    expect(bytes.length).toBeGreaterThan(20_000);
  }, 120_000);

  it('keeps a 5,000-character token from widening the page, shows bidi controls as U+FFFD, and says how many offenders it lists', () => {
    const item = (qid: string) => ({
      qid,
      question: 'q',
      answerable: true,
      gold_claim_substr: ['right words'],
      gold_citations: ['d'],
    });
    const trace = (qid: string, claim: string) => ({
      qid,
      retrieved_ids: ['d'],
      answer_json: { claim, citations: ['d'] },
    });
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nreport_offenders: 2\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    gates:\n      precision: ">= 0.8"\n',
      'g.jsonl': jsonl([item('L1'), item('L2'), item('L3')]),
      't.jsonl': jsonl([
        trace('L1', 'z'.repeat(5000)),
        trace('L2', 'abc\u202edcba\u2066x\u2069'),
        trace('L3', 'wrong'),
      ]),
    });
    const html = path.join(dir, 'report.html');
    expect(runCli(['--format', 'html', '--out', html], dir).status).toBe(1);
    const text = readFileSync(html, 'utf8');
    expect(text).toContain(
      '<h3>Offenders (2 of 3; report.json lists the first 2, report_offenders in gates.yaml sets how many)</h3>',
    );
    expect(text).toContain('abc�dcba�x�');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);

    // The layout, measured in the browser at 1280 pixels: the same page with a script (which its CSP
    // forbids) that records whether the page, or the offenders table within its scrolling box, is wider
    // than the room it has.
    const probe = path.join(dir, 'probe.html');
    writeFileSync(
      probe,
      text
        .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')
        .replace(
          '</body>',
          '<script>const t = document.querySelector("table.offenders"); document.body.dataset.overflow = String(document.documentElement.scrollWidth > innerWidth || t.scrollWidth > t.parentElement.clientWidth)</script></body>',
        ),
    );
    expect(dumpDom(probe)).toMatch(/<body data-overflow="false">/);
  }, 120_000);
});
