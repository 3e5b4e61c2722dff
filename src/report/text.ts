import { describeBaselineSource, shortSha } from './baseline-source.js';
import { escapeTerminal } from './escape.js';
import {
  cellText,
  offenderNumber,
  formatDelta,
  formatP,
  formatNumber,
  formatThreshold,
  fraction,
  gateStatus,
  headlines,
  verdictLine,
} from './format.js';
import { belowItemBar, itemBarLabels, offenderCount } from './item-bar.js';
import type { OffenderJson, Report } from './schema.js';
import { specOf } from './specs.js';
import { countDelta, firstOffenders, stageRows, triageSummary } from './triage.js';

export interface TextOptions {
  offenders: number;
  /** List offenders even when every gate passed. */
  showOffendersOnPass?: boolean;
  color?: boolean;
  /** Now, for the baseline's age. */
  now?: number;
}

/** The terminal view: a table per suite, the top offenders, the verdict. */
export function renderText(report: Report, options: TextOptions): string {
  const paint = (code: string, s: string) => (options.color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const out: string[] = [];
  const failed = report.verdict === 'fail';
  out.push(...headlines(report).map((h) => paint('33;1', `warning: ${escapeTerminal(h, 500)}`)));
  if (out.length > 0) out.push('');
  for (const [name, suite] of Object.entries(report.suites)) {
    const c = suite.counts;
    const countText = Object.entries(c)
      .filter(([key, v]) => v !== 0 || key === 'gold' || key === 'traced')
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    out.push(paint('1', `${name}`) + ` (${suite.kind}) — ${countText}`);
    const lock = suite.gold?.lock;
    if (lock && lock.status !== 'match') {
      const ids = [...lock.changed, ...lock.added, ...lock.removed]
        .slice(0, 10)
        .map((id) => escapeTerminal(id, 40));
      out.push(`  ! gold lock ${lock.file}: ${lock.status}${ids.length ? ` (${ids.join(', ')})` : ''}`);
    }
    const cmp = suite.comparison;
    if (cmp) {
      const ids = cmp.regressed.slice(0, 10).map((id) => escapeTerminal(id, 40));
      out.push(
        `  vs baseline: ${cmp.regressed.length} regressed${ids.length ? ` (${ids.join(', ')})` : ''}, ${cmp.fixed.length} fixed, ${cmp.paired} paired; exact McNemar p ${formatP(cmp.mcnemar_p)}`,
      );
      const g = cmp.gold_changes;
      if (g.changed.length + g.added.length + g.removed.length) {
        out.push(
          `  ! gold changed since the baseline: ${g.changed.length} edited, ${g.added.length} added, ${g.removed.length} removed — needs sign-off`,
        );
      }
    }
    const gatesOf = report.gates.filter((g) => g.suite === name);
    const withDelta = Object.values(suite.metrics).some((m) => m.baseline !== undefined);
    const rows: string[][] = [['metric', 'value', 'n', ...(withDelta ? ['Δ base'] : []), 'gate', '']];
    for (const [metric, m] of Object.entries(suite.metrics)) {
      const gates = gatesOf.filter((g) => g.metric === metric);
      const unit = specOf(suite.kind, metric)?.unit;
      const first = [metric, formatNumber(m.value, unit), fraction(m)];
      if (withDelta) first.push(formatDelta(m.delta, unit));
      if (gates.length === 0) rows.push([...first, '', m.value === null ? `(${m.reason})` : '']);
      gates.forEach((g, i) => {
        const status = gateStatus(g);
        const statusText =
          status === 'fail' ? paint('31', 'FAIL') : status === 'skip' ? 'skip' : paint('32', 'pass');
        const why = g.reason ? ` (${g.reason})` : '';
        rows.push([...(i === 0 ? first : first.map(() => '')), formatThreshold(g), statusText + why]);
      });
    }
    out.push(...table(rows).map((l) => `  ${l}`));
    const stages = suite.triage ? stageRows(suite.triage) : [];
    if (stages.length) {
      out.push('', `  where it fails (${triageSummary(suite.triage!)}):`);
      for (const r of stages) {
        const delta = r.delta === undefined ? '' : ` (${countDelta(r.delta)})`;
        const first = firstOffenders(suite, r.key).map((id) => escapeTerminal(id, 40));
        out.push(
          `    ${r.title} ${r.count}${delta}: ${r.advice}${first.length ? `; first: ${first.join(', ')}` : ''}`,
        );
      }
    }
    for (const t of suite.tables ?? []) {
      out.push('', `  ${escapeTerminal(t.title, 120)}:`);
      out.push(
        ...table([
          t.columns.map((c) => escapeTerminal(c, 40)),
          ...t.rows.map((r) => r.map((v) => escapeTerminal(cellText(v), 60))),
        ]).map((l) => `    ${l}`),
      );
    }
    for (const w of suite.headline ? suite.warnings.slice(1) : suite.warnings)
      out.push(`  warning: ${escapeTerminal(w, 300)}`);

    if (suite.offenders_total > 0) {
      const n = Math.min(options.offenders, suite.offenders.length);
      if ((failed || options.showOffendersOnPass) && n > 0) {
        out.push('', `  top offenders (${n} of ${suite.offenders_total}):`);
        for (const o of suite.offenders.slice(0, n)) out.push(...offenderLines(o));
      } else {
        const labels = belowItemBar(suite.kind) ? itemBarLabels(suite.offenders).join(', ') : '';
        const bar = labels ? `${escapeTerminal(labels, 200)}; ` : '';
        out.push(`  ${offenderCount(suite.kind, suite.offenders_total)} (${bar}--offenders N lists them)`);
      }
    }
    out.push('');
  }
  if (report.baseline)
    out.push(
      describeBaselineSource(report.baseline, {
        commit: shortSha,
        escape: (text) => escapeTerminal(text, 100),
        now: options.now,
      }),
    );
  out.push(...verdictLines(report, options.color ?? false));
  return out.join('\n') + '\n';
}

/** The verdict line, then a line for each failed gate: how the text view ends, and all --quiet shows of a failure. */
export function verdictLines(report: Report, color: boolean): string[] {
  const line = verdictLine(report.gates);
  const code = report.verdict === 'fail' ? '31;1' : '32;1';
  const out = [color ? `\u001b[${code}m${line}\u001b[0m` : line];
  for (const g of report.gates.filter((g) => !g.passed)) {
    const unit = specOf(report.suites[g.suite]!.kind, g.metric)?.unit;
    const value = formatNumber(g.value, unit);
    out.push(
      `  ✗ ${g.suite}.${g.metric} = ${value}, wanted ${formatThreshold(g)}${g.reason ? ` — ${g.reason}` : ''}`,
    );
  }
  return out;
}

function offenderLines(o: OffenderJson): string[] {
  const lines = [`  ${escapeTerminal(o.id, 80)}  ${o.labels.join(', ')}`];
  for (const [key, value] of Object.entries(o)) {
    if (key === 'id' || key === 'labels' || key === 'source') continue;
    const shown = Array.isArray(value)
      ? `[${value.map((v) => escapeTerminal(String(v), 60)).join(', ')}]`
      : value === null
        ? '—'
        : typeof value === 'number'
          ? offenderNumber(value)
          : escapeTerminal(String(value));
    lines.push(`      ${key}: ${shown}`);
  }
  return lines;
}

/** Left-aligned columns; ANSI colour codes do not count towards width. */
function table(rows: string[][]): string[] {
  const visible = (s: string) => s.replace(/\u001b\[[\d;]*m/g, '').length;
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? ''))));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visible(cell))))
      .join('  ')
      .trimEnd(),
  );
}
