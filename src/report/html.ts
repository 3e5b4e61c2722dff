import { describeBaselineSource, shortSha } from './baseline-source.js';
import { escapeXml as esc } from './escape.js';
import {
  cellText,
  fixed4,
  formatDelta,
  formatP,
  formatNumber,
  formatThreshold,
  fraction,
  gateStatus,
  verdictLine,
} from './format.js';
import type { OffenderJson, Report, SuiteReport } from './schema.js';
import { specOf } from './specs.js';
import { svgScatter, svgTrend } from './svg.js';
import { countDelta, firstOffenders, stageRows, triageSummary } from './triage.js';
import type { Trend } from './trend.js';

export interface HtmlOptions {
  /** Now, for the baseline's age. */
  now?: number;
  trends?: Trend[];
  /** Text fields are cut to this many characters (the report.json keeps them whole). */
  maxField?: number;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}
.meta{color:#59636e;margin-bottom:16px}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;color:#fff;font-weight:600}
.pass{background:#1a7f37}.fail{background:#cf222e}.skip{background:#9a6700}
section{background:#fff;border:1px solid #d1d9e0;border-radius:8px;padding:16px 20px;margin-bottom:20px}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid #d1d9e0;padding:5px 8px;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}td.num{white-space:nowrap}
.meta,.note,h2,h3{overflow-wrap:anywhere}
th{background:#f6f8fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.st-fail{color:#cf222e;font-weight:600}td.st-pass{color:#1a7f37}td.st-skip{color:#9a6700}
.note{border-left:4px solid #9a6700;background:#fff8c5;padding:8px 12px;margin:8px 0}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.charts svg{background:#fff;border:1px solid #d1d9e0;border-radius:6px}
svg .t{font-size:12px;font-weight:600}svg .yl{font-size:10px;text-anchor:end;fill:#59636e}
svg .xl{font-size:10px;fill:#59636e}svg .end{text-anchor:end}svg .mid{text-anchor:middle}
.scroll{overflow-x:auto}svg .gl{font-size:10px;text-anchor:end;fill:#cf222e}
svg .axis{stroke:#d1d9e0}svg .gate{stroke:#cf222e;stroke-dasharray:4 3}
svg .line{fill:none;stroke:#0969da;stroke-width:2}svg .pt{fill:#0969da}svg .off{fill:#fff;stroke:#59636e}
code{font-size:12px;background:#eff2f5;padding:1px 4px;border-radius:4px}
.bar{display:inline-block;height:10px;background:#cf222e;border-radius:2px;vertical-align:middle}
.labels code{background:#ffebe9}
`;

/**
 * One self-contained file (no script, no external resource; a CSP forbids both) with the gates, the
 * trend charts and every offender — for upload as a workflow artifact.
 */
export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const verdict = report.verdict;
  const out = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>groundgate: ${esc(verdict.toUpperCase())}</title>`,
    `<style>${STYLE}</style></head><body><main>`,
    `<h1>groundgate <span class="badge ${verdict}" id="verdict">${verdict.toUpperCase()}</span></h1>`,
    `<div class="meta">${esc(verdictLine(report.gates))} · config <code>${esc(report.config)}</code> · groundgate ${esc(report.tool.version)}</div>`,
    ...(report.baseline
      ? [
          `<div class="meta">${describeBaselineSource(report.baseline, { commit: (sha) => `<code>${shortSha(sha)}</code>`, escape: esc, now: options.now })}</div>`,
        ]
      : []),
  ];
  for (const [name, suite] of Object.entries(report.suites)) {
    out.push(suiteHtml(report, name, suite, options));
  }
  out.push('</main></body></html>');
  return out.join('\n') + '\n';
}

function suiteHtml(report: Report, name: string, suite: SuiteReport, options: HtmlOptions): string {
  const out = [
    `<section class="suite" data-suite="${esc(name)}">`,
    `<h2>${esc(name)} <small>${esc(suite.kind)}</small></h2>`,
  ];
  out.push(
    `<div class="meta">${Object.entries(suite.counts)
      .map(([k, v]) => `${esc(k.replace(/_/g, ' '))} ${v}`)
      .join(' · ')}</div>`,
  );
  const lock = suite.gold?.lock;
  if (lock && lock.status !== 'match') {
    const ids = [...lock.changed, ...lock.added, ...lock.removed];
    out.push(
      `<div class="note">Gold lock <code>${esc(lock.file)}</code>: ${esc(lock.status)}${ids.length ? ` — ${ids.slice(0, 20).map(esc).join(', ')}` : ''}</div>`,
    );
  }
  const c = suite.comparison;
  if (c) {
    out.push(
      `<div class="note">vs baseline: <b>${c.regressed.length} regressed</b> (${c.regressed.slice(0, 20).map(esc).join(', ') || '—'}), ${c.fixed.length} fixed, ${c.paired} paired; exact McNemar p ${formatP(c.mcnemar_p)}</div>`,
    );
  }

  const withDelta = Object.values(suite.metrics).some((m) => m.baseline !== undefined);
  out.push(
    `<table class="gates"><thead><tr><th>metric</th><th>value</th><th>n</th><th>95% CI</th>${withDelta ? '<th>Δ base</th>' : ''}<th>gate</th><th>status</th></tr></thead><tbody>`,
  );
  const gates = report.gates.filter((g) => g.suite === name);
  for (const [metric, m] of Object.entries(suite.metrics)) {
    const unit = specOf(suite.kind, metric)?.unit;
    const ci = m.ci95 ? `${formatNumber(m.ci95[0], unit)}–${formatNumber(m.ci95[1], unit)}` : '';
    const cells = [
      `<td>${esc(metric)}</td>`,
      `<td class="num">${formatNumber(m.value, unit)}</td>`,
      `<td class="num">${fraction(m)}</td>`,
      `<td class="num">${ci}</td>`,
    ];
    if (withDelta) cells.push(`<td class="num">${esc(formatDelta(m.delta, unit))}</td>`);
    const mine = gates.filter((g) => g.metric === metric);
    if (mine.length === 0)
      out.push(`<tr>${cells.join('')}<td></td><td>${m.value === null ? esc(m.reason ?? '') : ''}</td></tr>`);
    mine.forEach((g, i) => {
      const status = gateStatus(g);
      const first = i === 0 ? cells.join('') : cells.map(() => '<td></td>').join('');
      out.push(
        `<tr>${first}<td>${esc(formatThreshold(g))}</td><td class="st-${status}">${status}${g.reason ? ` — ${esc(g.reason)}` : ''}</td></tr>`,
      );
    });
  }
  out.push('</tbody></table>');
  const stages = suite.triage ? stageRows(suite.triage) : [];
  if (stages.length) {
    const withDelta = suite.triage!.baseline !== undefined;
    const most = Math.max(...stages.map((r) => r.count), 1);
    out.push(
      `<h3>Where it fails <small>${esc(triageSummary(suite.triage!))}</small></h3>`,
      `<table class="triage"><thead><tr><th>stage</th><th>items</th><th></th>${withDelta ? '<th>Δ base</th>' : ''}<th>what to do next</th><th>first offenders</th></tr></thead><tbody>`,
    );
    for (const r of stages) {
      const first = firstOffenders(suite, r.key).map(esc).join(', ') || '—';
      out.push(
        `<tr><td>${esc(r.title)}</td><td class="num">${r.count}</td><td><span class="bar" style="width:${Math.round((100 * r.count) / most)}px"></span></td>${withDelta ? `<td class="num">${countDelta(r.delta ?? 0)}</td>` : ''}<td>${esc(r.advice)}</td><td>${first}</td></tr>`,
      );
    }
    out.push('</tbody></table>');
  }
  for (const w of suite.warnings) out.push(`<div class="note">${esc(w)}</div>`);

  for (const t of suite.tables ?? []) {
    out.push(`<h3>${esc(t.title)}</h3>`);
    if (t.chart) out.push(`<div class="charts">${svgScatter(t)}</div>`);
    out.push(
      `<div class="scroll"><table class="data"><thead><tr>${t.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>`,
    );
    for (const r of t.rows)
      out.push(
        `<tr>${r.map((v) => `<td${typeof v === 'number' ? ' class="num"' : ''}>${esc(cellText(v))}</td>`).join('')}</tr>`,
      );
    out.push('</tbody></table></div>');
  }
  const trends = (options.trends ?? []).filter((t) => t.key.startsWith(`${name}.`));
  if (trends.length) out.push(`<div class="charts">${trends.map(svgTrend).join('')}</div>`);

  if (suite.offenders.length) {
    // report.json lists the first report_offenders; the heading says when that is fewer than there are.
    const listed = suite.offenders.length;
    const total = suite.offenders_total;
    out.push(
      `<h3>Offenders (${listed === total ? total : `${listed} of ${total}; report.json lists the first ${listed}, report_offenders in gates.yaml sets how many`})</h3>`,
    );
    const keys = [...new Set(suite.offenders.flatMap((o) => Object.keys(o)))].filter(
      (k) => !['id', 'labels', 'source'].includes(k),
    );
    // Many columns: on a narrow window the table scrolls, not the page.
    out.push(
      `<div class="scroll"><table class="offenders"><thead><tr><th>id</th><th>labels</th>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}</tr></thead><tbody>`,
    );
    for (const o of suite.offenders) out.push(offenderRow(o, keys, options.maxField ?? 500));
    out.push('</tbody></table></div>');
  }
  out.push('</section>');
  return out.join('\n');
}

function offenderRow(o: OffenderJson, keys: readonly string[], max: number): string {
  const cell = (v: unknown) => {
    if (v === undefined || v === null) return '—';
    if (typeof v === 'number' && !Number.isInteger(v)) return fixed4(v);
    const text = Array.isArray(v) ? v.map(String).join(', ') : String(v);
    return esc(text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text);
  };
  const labels = o.labels.map((l) => `<code>${esc(l)}</code>`).join(' ');
  return `<tr><td>${esc(o.id)}</td><td class="labels">${labels}</td>${keys.map((k) => `<td>${cell(o[k])}</td>`).join('')}</tr>`;
}
