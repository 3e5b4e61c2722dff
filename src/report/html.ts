import { createHash } from 'node:crypto';
import { describeBaselineSource, shortSha } from './baseline-source.js';
import { escapeXml as esc } from './escape.js';
import {
  cellText,
  offenderNumber,
  formatDelta,
  formatP,
  formatNumber,
  formatThreshold,
  fraction,
  gateStatus,
  verdictLine,
} from './format.js';
import { legend } from './legend.js';
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
td{overflow-wrap:break-word}td.num,.tok,td.id,.labels code{white-space:nowrap}
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
td.long,td.prose{min-width:14em}td.long details{overflow-wrap:anywhere}.full{margin-top:4px}summary{cursor:pointer}
.legend{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0;color:#59636e}
.legend dt{white-space:nowrap;font-family:ui-monospace,monospace;font-size:12px;color:#1f2328}.legend dd{margin:0}
th button{font:inherit;color:inherit;background:none;border:0;padding:0;cursor:pointer;text-align:left}
th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
.filter{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0}.filter input{min-width:12em}
@media (max-width:600px){main{padding:12px}section{padding:12px}.legend{grid-template-columns:1fr;gap:0}
.legend dd{margin-bottom:6px}}
.charts svg{max-width:100%;height:auto}
`;

/**
 * The report's one script: sorts the offenders by a clicked header and filters them by text and label. It
 * adds its buttons and fields itself, so without scripts the table is whole and nothing on the page is dead.
 * It reads the DOM and writes text only (no markup), and the CSP allows it by its hash alone.
 */
export const SCRIPT = `"use strict";
const key = (cell) => {
  if (!cell || cell.classList.contains("none")) return null;
  if (cell.classList.contains("num")) return Number(cell.dataset.v ?? cell.textContent);
  return (cell.querySelector(".full") ?? cell).textContent;
};
const compare = (a, b) => {
  if (a === b) return 0;
  if (a === null || b === null) return a === null ? 1 : -1;
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  return a < b ? -1 : 1;
};
for (const table of document.querySelectorAll("table.sortable")) {
  const body = table.tBodies[0];
  const rows = [...body.rows];
  const heads = [...table.tHead.rows[0].cells];
  heads.forEach((th, col) => {
    const button = document.createElement("button");
    button.type = "button";
    button.append(...th.childNodes);
    th.append(button);
    button.addEventListener("click", () => {
      const dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      for (const h of heads) h.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      const keyed = rows.map((row, i) => ({ row, i, k: key(row.cells[col]) }));
      keyed.sort((a, b) => (a.k === null || b.k === null ? compare(a.k, b.k) : dir * compare(a.k, b.k)) || a.i - b.i);
      body.append(...keyed.map((e) => e.row));
    });
  });
  const labelsOf = rows.map((row) => [...row.querySelectorAll("td.labels code")].map((c) => c.textContent));
  const textOf = rows.map((row) => row.textContent.toLowerCase());
  const bar = document.createElement("div");
  bar.className = "filter";
  const text = document.createElement("input");
  text.type = "search";
  text.placeholder = "filter rows";
  text.setAttribute("aria-label", "filter rows by text");
  const label = document.createElement("select");
  label.setAttribute("aria-label", "filter rows by label");
  label.append(new Option("every label", ""), ...[...new Set(labelsOf.flat())].sort().map((l) => new Option(l, l)));
  const shown = document.createElement("span");
  shown.setAttribute("aria-live", "polite");
  bar.append(text, label, shown);
  (table.closest(".scroll") ?? table).before(bar);
  const filter = () => {
    const q = text.value.trim().toLowerCase();
    let n = 0;
    rows.forEach((row, i) => {
      row.hidden = !((!q || textOf[i].includes(q)) && (!label.value || labelsOf[i].includes(label.value)));
      if (!row.hidden) n++;
    });
    shown.textContent = n + " of " + rows.length + " rows";
  };
  text.addEventListener("input", filter);
  label.addEventListener("change", filter);
  filter();
}
`;

/** What the CSP names to let SCRIPT, and nothing else, run. */
export const SCRIPT_HASH = `sha256-${createHash('sha256').update(SCRIPT).digest('base64')}`;

/** Past this many characters a field is folded in a <details>, its summary the first words. */
const FOLD = 48;
/** A value this short is one line, spaces or not: a squeezed column split `pass → fail` into three. */
const SHORT = 24;

/**
 * One self-contained file (no external resource, no script but SCRIPT; a CSP forbids the rest) with the
 * gates, a legend of the metrics, the trend charts and every offender — for upload as a workflow artifact.
 */
export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const verdict = report.verdict;
  const out = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '${SCRIPT_HASH}'">`,
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
  out.push(`</main><script>${SCRIPT}</script></body></html>`);
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
    `<div class="scroll"><table class="gates"><thead><tr><th>metric</th><th>value</th><th>n</th><th>95% CI</th>${withDelta ? '<th>Δ base</th>' : ''}<th>gate</th><th>status</th></tr></thead><tbody>`,
  );
  const gates = report.gates.filter((g) => g.suite === name);
  for (const [metric, m] of Object.entries(suite.metrics)) {
    const unit = specOf(suite.kind, metric)?.unit;
    const ci = m.ci95 ? `${formatNumber(m.ci95[0], unit)}–${formatNumber(m.ci95[1], unit)}` : '';
    const cells = [
      `<td class="tok">${esc(metric)}</td>`,
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
        `<tr>${first}<td class="tok">${esc(formatThreshold(g))}</td><td class="st-${status}">${status}${g.reason ? ` — ${esc(g.reason)}` : ''}</td></tr>`,
      );
    });
  }
  out.push('</tbody></table></div>');
  const lines = legend(suite.kind, Object.keys(suite.metrics));
  if (lines.length)
    out.push(
      `<dl class="legend">${lines.map((l) => `<dt>${esc(l.metric)}</dt><dd>${esc(l.text)}</dd>`).join('')}</dl>`,
    );
  const stages = suite.triage ? stageRows(suite.triage) : [];
  if (stages.length) {
    const withDelta = suite.triage!.baseline !== undefined;
    const most = Math.max(...stages.map((r) => r.count), 1);
    out.push(
      `<h3>Where it fails <small>${esc(triageSummary(suite.triage!))}</small></h3>`,
      `<div class="scroll"><table class="triage"><thead><tr><th>stage</th><th>items</th><th></th>${withDelta ? '<th>Δ base</th>' : ''}<th>what to do next</th><th>first offenders</th></tr></thead><tbody>`,
    );
    for (const r of stages) {
      const first = firstOffenders(suite, r.key).map(token).join(', ') || '—';
      out.push(
        `<tr><td>${esc(r.title)}</td><td class="num">${r.count}</td><td><span class="bar" style="width:${Math.round((100 * r.count) / most)}px"></span></td>${withDelta ? `<td class="num">${countDelta(r.delta ?? 0)}</td>` : ''}<td>${esc(r.advice)}</td><td>${first}</td></tr>`,
      );
    }
    out.push('</tbody></table></div>');
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
    // Many columns: on a narrow window the table scrolls, not the page; long fields are folded.
    out.push(
      `<div class="scroll"><table class="offenders sortable"><thead><tr><th>id</th><th>labels</th>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}</tr></thead><tbody>`,
    );
    for (const o of suite.offenders) out.push(offenderRow(o, keys, options.maxField ?? 500));
    out.push('</tbody></table></div>');
  }
  out.push('</section>');
  return out.join('\n');
}

/** An id, path or label: never broken inside (a table squeezed it to a character a line). */
function token(text: string): string {
  return `<span class="tok">${esc(text)}</span>`;
}

/** The first words of a long text, at most FOLD − 8 characters and cut at a space when there is one. */
function firstWords(text: string): string {
  const head = text.slice(0, FOLD - 8);
  const space = head.lastIndexOf(' ');
  return `${(space > 16 ? head.slice(0, space) : head).replace(/[\s,;:]+$/, '')}…`;
}

/**
 * Words of prose wrap between them, a list between its items; an id or a short value (`pass → fail`) stays
 * on one line. A run without spaces longer than FOLD is no id: folded, it may break.
 */
function piece(text: string): string {
  return text.length <= SHORT || (text.length <= FOLD && !/\s/.test(text)) ? token(text) : esc(text);
}

function offenderCell(v: unknown, max: number): string {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return '<td class="none">—</td>';
  if (typeof v === 'number') return `<td class="num" data-v="${v}">${offenderNumber(v)}</td>`;
  const list = Array.isArray(v) ? v.map(String) : undefined;
  const text = list ? list.join(', ') : String(v);
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  const shown = list && text.length <= max ? list.map(piece).join(', ') : piece(cut);
  // Prose (a claim, a list of sentences) keeps a column's width: beside many columns of unbreakable ids a
  // claim got a word a line.
  if (text.length <= FOLD)
    return text.length > SHORT && (list ?? [text]).some((x) => /\s/.test(x))
      ? `<td class="prose">${shown}</td>`
      : `<td>${shown}</td>`;
  const summary = list ? `${list.length} items: ${firstWords(text)}` : firstWords(text);
  return `<td class="long"><details><summary>${esc(summary)}</summary><div class="full">${shown}</div></details></td>`;
}

function offenderRow(o: OffenderJson, keys: readonly string[], max: number): string {
  const labels = o.labels.map((l) => `<code>${esc(l)}</code>`).join(' ');
  return `<tr><td class="id">${esc(o.id)}</td><td class="labels">${labels}</td>${keys.map((k) => offenderCell(o[k], max)).join('')}</tr>`;
}
