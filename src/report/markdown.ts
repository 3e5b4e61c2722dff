import { describeBaselineSource, shortSha } from './baseline-source.js';
import { suiteKind } from '../suites/registry.js';
import { escapeList, escapeMarkdown, markdownCode } from './escape.js';
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
import { belowItemBar } from './item-bar.js';
import type { JudgeSpendReport, OffenderJson, Report, SuiteReport } from './schema.js';
import { spendParts } from '../claims/judge-spend.js';
import { mermaidTrend } from './mermaid.js';
import { specOf } from './specs.js';
import type { Trend } from './trend.js';
import { countDelta, firstOffenders, stageRows, triageSummary } from './triage.js';

/** The longest id an offender row shows whole: ids are copied and searched for (URLs and paths run long). */
const MAX_ID = 200;

/** GitHub rejects comment bodies over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export interface MarkdownOptions {
  offenders: number;
  /** Hidden first line that finds the sticky comment again. */
  marker?: string;
  /** Lines after the verdict (e.g. a gold-set change notice); trusted Markdown. */
  notices?: string[];
  /** Trusted Markdown at the end: run link, lock digest. */
  footer?: string[];
  maxChars?: number;
  /** Where the full offender list lives, named when rows had to be left out. */
  fullReportHint?: string;
  /** Gated metrics over the history, drawn as Mermaid charts. */
  trends?: Trend[];
  /** The repository's web address (trusted, from the workflow): links the baseline's commit. */
  repoUrl?: string;
  /** Now, for the baseline's age. */
  now?: number;
}

const STATUS_ICON = { pass: '✅', fail: '❌', skip: '⏭️' } as const;

/**
 * The PR comment and job summary. Everything from gold or traces passes through escapeMarkdown; the body
 * stays under `maxChars` by dropping offender rows, and says how many were dropped.
 */
export function renderMarkdown(report: Report, options: MarkdownOptions): string {
  const maxChars = options.maxChars ?? GITHUB_COMMENT_LIMIT;
  const head: string[] = [];
  if (options.marker) head.push(options.marker);
  // Before the verdict: a pass over ids that meet no gold id is no pass (SuiteResult.headline).
  const first = headlines(report).map((h) => `> ⚠️ **${escapeMarkdown(h, { maxLength: 600 })}**`);
  if (first.length) head.push(...first, '');
  const icon = report.verdict === 'pass' ? '✅' : '❌';
  head.push(`### ${icon} groundgate: ${verdictLine(report.gates)}`, '');
  const notices = [...(options.notices ?? []), ...baselineNotice(report, options), ...goldNotices(report)];
  if (notices.length) head.push(...notices, '');

  const suiteParts = Object.entries(report.suites).map(([name, suite]) => suiteSection(report, name, suite));
  const footer = [
    ...trendSection(options.trends ?? []),
    ...(options.footer?.length ? ['', ...options.footer] : []),
  ];

  // Fixed parts first; offender rows then share what is left, in suite order.
  const fixed = [...head, ...suiteParts.flatMap((p) => [...p.top, ...p.bottom]), ...footer].join('\n');
  let budget = maxChars - fixed.length - 2_000 * suiteParts.length - 200;
  const body: string[] = [...head];
  for (const part of suiteParts) {
    body.push(...part.top);
    const shown = part.offenders.slice(0, options.offenders);
    if (shown.length > 0) {
      const rows: string[] = [];
      for (const row of shown) {
        if (budget - row.length - 1 < 0) break;
        budget -= row.length + 1;
        rows.push(row);
      }
      const total = part.suite.offenders_total;
      const left = total - rows.length;
      const [title, noun] = belowItemBar(part.suite.kind)
        ? ['Items below the per-item bar', 'item']
        : ['Top offenders', 'offender'];
      body.push('<details>', `<summary>${title} (${rows.length} of ${total})</summary>`, '');
      if (rows.length) body.push(part.tableHead, ...rows);
      if (left > 0) {
        const where = options.fullReportHint ? `; the full list is in ${options.fullReportHint}` : '';
        body.push('', `${left} more ${noun}${left === 1 ? '' : 's'} not shown${where}.`);
      }
      body.push('', '</details>');
    }
    body.push(...part.bottom);
  }
  body.push(...footer);
  let text = body.join('\n') + '\n';
  // The estimates above leave room; this is the guarantee.
  if (text.length > maxChars)
    text = text.slice(0, maxChars - 80) + '\n\n… (truncated to fit GitHub’s size limit)\n';
  return text;
}

function baselineNotice(report: Report, options: MarkdownOptions): string[] {
  if (!report.baseline) return [];
  return [
    describeBaselineSource(report.baseline, {
      commit: (sha) =>
        options.repoUrl ? `[\`${shortSha(sha)}\`](${options.repoUrl}/commit/${sha})` : `\`${shortSha(sha)}\``,
      escape: (text) => escapeMarkdown(text, { maxLength: 100 }),
      now: options.now,
    }),
  ];
}

interface SuitePart {
  suite: SuiteReport;
  top: string[];
  tableHead: string;
  offenders: string[];
  bottom: string[];
}

function suiteSection(report: Report, name: string, suite: SuiteReport): SuitePart {
  const counts = Object.entries(suite.counts)
    .filter(([, v]) => v !== 0)
    .map(([k, v]) => `${v} ${safeName(k).replace(/_/g, ' ')}`)
    .join(' · ');
  const top = [`**${escapeMarkdown(name)}** · ${safeName(suite.kind)} · ${counts}`, ''];
  const c = suite.comparison;
  if (c) {
    const regressed = c.regressed.length
      ? ` (${escapeList(c.regressed, { maxItems: 20, maxLength: 40 })})`
      : '';
    top.push(
      `vs baseline: **${c.regressed.length} regressed** (pass → fail)${regressed}, ${c.fixed.length} fixed (fail → pass), ${c.paired} paired; exact McNemar p ${formatP(c.mcnemar_p)}`,
      '',
    );
  }
  const spend = costLine(suite);
  if (spend) top.push(spend, '');
  // A Δ column only when a baseline report was given.
  const withDelta = Object.values(suite.metrics).some((m) => m.baseline !== undefined);
  top.push(withDelta ? '| metric | value | n | Δ base | gate | |' : '| metric | value | n | gate | |');
  top.push(withDelta ? '|---|---:|---:|---:|---|---|' : '|---|---:|---:|---|---|');
  const gates = report.gates.filter((g) => g.suite === name);
  for (const [metric, m] of Object.entries(suite.metrics)) {
    const unit = specOf(suite.kind, metric)?.unit;
    const first = [safeName(metric), formatNumber(m.value, unit), fraction(m)];
    if (withDelta) first.push(formatDelta(m.delta, unit));
    const mine = gates.filter((g) => g.metric === metric);
    if (mine.length === 0) {
      top.push(`| ${first.join(' | ')} | | ${m.value === null ? escapeMarkdown(m.reason ?? '') : ''} |`);
    }
    mine.forEach((g, i) => {
      const status = gateStatus(g);
      const why = g.reason ? ` ${escapeMarkdown(g.reason)}` : '';
      const cells = i === 0 ? first : first.map(() => '');
      top.push(
        `| ${cells.join(' | ')} | ${escapeMarkdown(formatThreshold(g))} | ${STATUS_ICON[status]}${why} |`,
      );
    });
  }
  top.push('');
  if (suite.triage) top.push(...triageSection(suite));
  if (suite.judge) top.push(judgeLine(suite.judge), '');

  for (const t of suite.tables ?? []) {
    top.push(
      `**${escapeMarkdown(t.title)}**`,
      '',
      `| ${t.columns.map((c) => escapeMarkdown(c)).join(' | ')} |`,
      `|${'---|'.repeat(t.columns.length)}`,
    );
    for (const r of t.rows)
      top.push(`| ${r.map((v) => escapeMarkdown(cellText(v), { maxLength: 80 })).join(' | ')} |`);
    top.push('');
  }
  const columns = suiteKind(suite.kind)?.offenderColumns ?? [];
  const tableHead = [
    `| id | labels | ${[...columns, 'details'].join(' | ')} |`,
    `|${'---|'.repeat(columns.length + 3)}`,
  ].join('\n');
  const offenders = suite.offenders.map((o) => offenderRow(o, columns));
  const bottom = (suite.headline ? suite.warnings.slice(1) : suite.warnings).map(
    (w) => `> ⚠️ ${escapeMarkdown(w, { maxLength: 500 })}`,
  );
  if (bottom.length) bottom.unshift('');
  return { suite, top, tableHead, offenders, bottom };
}

/**
 * What the answers cost beside how long they took, for a suite that prices them (latency or grounded-qa with
 * pricing:):
 * "**cost** 0.000495 USD per answer (Δ +0.00003) · 0.99 USD in all (Δ +0.05) · p95 1200 ms (Δ +40)".
 */
function costLine(suite: SuiteReport): string | undefined {
  const { metrics } = suite;
  const perAnswer = metrics.cost;
  if (perAnswer?.value === undefined || perAnswer.value === null) return undefined;
  const part = (name: string, unit: string, after: string) => {
    const m = metrics[name];
    if (!m || m.value === null) return [];
    const delta = m.delta === undefined ? '' : ` (Δ ${formatDelta(m.delta, unit)})`;
    return [`${formatNumber(m.value, unit)} ${after}${delta}`];
  };
  return `**cost** ${[
    ...part('cost', 'usd', 'USD per answer'),
    ...part('cost.total', 'usd', 'USD in all'),
    ...part('tokens', 'tokens', 'tokens per answer'),
    ...part('p95_ms', 'ms', 'ms at p95'),
  ].join(' · ')}`;
}

/** What the judge spent, on one line (see spendParts). */
function judgeLine(judge: JudgeSpendReport): string {
  const model = judge.model ? ` (${markdownCode(judge.model)})` : '';
  return `**Judge**${model}: ${spendParts(judge, 'the judge model').join(' · ')}`;
}

/** "Where it fails": the stages as a small table, the largest first, each with what to do and its first offenders. */
function triageSection(suite: SuiteReport): string[] {
  const rows = stageRows(suite.triage!);
  if (rows.length === 0) return [];
  const withDelta = suite.triage!.baseline !== undefined;
  const out = [
    `**Where it fails** (${triageSummary(suite.triage!)})`,
    '',
    withDelta
      ? '| stage | items | Δ base | what to do next | first offenders |'
      : '| stage | items | what to do next | first offenders |',
    withDelta ? '|---|---:|---:|---|---|' : '|---|---:|---|---|',
  ];
  for (const r of rows) {
    const first = firstOffenders(suite, r.key).map((id) => markdownCode(id, { maxLength: 40, table: true }));
    const cells = [
      r.title,
      String(r.count),
      ...(withDelta ? [countDelta(r.delta ?? 0)] : []),
      r.advice,
      first.join(', ') || '—',
    ];
    out.push(`| ${cells.join(' | ')} |`);
  }
  out.push('');
  return out;
}

function offenderRow(o: OffenderJson, columns: readonly string[]): string {
  const cell = (v: unknown): string => {
    if (v === null || v === undefined) return '—';
    if (Array.isArray(v)) return escapeList(v.map(String), { table: true });
    if (typeof v === 'number') return offenderNumber(v);
    return escapeMarkdown(String(v));
  };
  const details = Object.entries(o)
    .filter(([k]) => !['id', 'labels', 'source', ...columns].includes(k))
    .map(([k, v]) => `${safeName(k)}: ${cell(v)}`)
    .join('<br>');
  const labels = o.labels.map((l) => `\`${l.replace(/[^a-z_@0-9]/gi, '')}\``).join(' ');
  return `| ${markdownCode(o.id, { maxLength: MAX_ID, table: true })} | ${labels} | ${columns.map((c) => cell(o[c])).join(' | ')} | ${details || ''} |`;
}

/**
 * Kinds, metric names, count and field keys: groundgate's own names, left as they are. A report that is an
 * artifact (mode: comment) could hold any string there, and those are escaped like trace text.
 */
function safeName(s: string): string {
  return /^[A-Za-z0-9_.@-]{1,80}$/.test(s) ? s : escapeMarkdown(s, { maxLength: 80 });
}

/** A gold set that differs from its lock or from the baseline needs a human's sign-off: say so first. */
function goldNotices(report: Report): string[] {
  const out: string[] = [];
  for (const [name, suite] of Object.entries(report.suites)) {
    const lock = suite.gold?.lock;
    const who = `**${escapeMarkdown(name)}**`;
    if (lock?.status === 'mismatch') {
      out.push(
        `> [!WARNING]\n> ${who}: the gold set does not match its lock ${markdownCode(lock.file, { maxLength: 300 })}: ${describeIds(lock)}. Re-freeze (\`groundgate freeze\`) after sign-off.`,
      );
    } else if (lock?.status === 'missing') {
      out.push(
        `> [!WARNING]\n> ${who}: no gold lock at ${markdownCode(lock.file, { maxLength: 300 })}; run \`groundgate freeze\` and commit it.`,
      );
    }
    const changes = suite.comparison?.gold_changes;
    if (changes && changes.added.length + changes.removed.length + changes.changed.length > 0) {
      out.push(
        `> [!IMPORTANT]\n> ${who}: gold set changed since the baseline: ${changes.changed.length} items edited, ${changes.added.length} added, ${changes.removed.length} removed — needs sign-off. ${describeIds(changes)}.`,
      );
    }
  }
  return out;
}

function describeIds(d: { added: string[]; removed: string[]; changed: string[] }): string {
  const part = (label: string, ids: string[]) =>
    ids.length ? `${ids.length} ${label} (${escapeList(ids, { maxLength: 40 })})` : '';
  return [part('changed', d.changed), part('added', d.added), part('removed', d.removed)]
    .filter(Boolean)
    .join(', ');
}

function trendSection(trends: readonly Trend[]): string[] {
  const drawn = trends.filter((t) => t.points.length > 0);
  if (drawn.length === 0) return [];
  return [
    '',
    '<details>',
    `<summary>Trends (${drawn.length} gated metrics)</summary>`,
    '',
    ...drawn.flatMap((t) => [mermaidTrend(t), '']),
    '</details>',
  ];
}
