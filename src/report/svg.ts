import { escapeXml } from './escape.js';
import { cellText, formatNumber } from './format.js';
import type { Table } from './schema.js';
import { yRange, type Trend } from './trend.js';

const W = 460;
const H = 180;
const PAD = { left: 48, right: 12, top: 28, bottom: 36 };

/** A self-contained SVG line chart: the metric over runs, gate thresholds dashed. No script, no fonts. */
export function svgTrend(t: Trend): string {
  const [lo, hi] = yRange(t);
  const n = t.points.length;
  const x = (i: number) =>
    PAD.left + (n <= 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (n - 1));
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const f = (v: number) => v.toFixed(1);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(t.key)} trend">`,
    `<text x="${PAD.left}" y="16" class="t">${escapeXml(t.key)}</text>`,
    `<line x1="${PAD.left}" y1="${f(H - PAD.bottom)}" x2="${W - PAD.right}" y2="${f(H - PAD.bottom)}" class="axis"/>`,
    `<text x="${PAD.left - 6}" y="${f(y(hi) + 4)}" class="yl">${formatNumber(hi, t.unit)}</text>`,
    `<text x="${PAD.left - 6}" y="${f(y(lo) + 4)}" class="yl">${formatNumber(lo, t.unit)}</text>`,
  ];
  for (const g of t.thresholds) {
    const gy = f(y(g.threshold));
    parts.push(`<line x1="${PAD.left}" y1="${gy}" x2="${W - PAD.right}" y2="${gy}" class="gate"/>`);
    parts.push(
      `<text x="${W - PAD.right}" y="${f(y(g.threshold) - 4)}" class="gl">gate ${escapeXml(g.op)} ${g.threshold}</text>`,
    );
  }
  if (n > 0) {
    parts.push(
      `<polyline points="${t.points.map((p, i) => `${f(x(i))},${f(y(p.value))}`).join(' ')}" class="line"/>`,
    );
    t.points.forEach((p, i) => {
      parts.push(
        `<circle cx="${f(x(i))}" cy="${f(y(p.value))}" r="3" class="pt"><title>${escapeXml(p.label)}: ${formatNumber(p.value, t.unit)}</title></circle>`,
      );
    });
    const first = t.points[0]!;
    const lastPoint = t.points[n - 1]!;
    parts.push(`<text x="${f(x(0))}" y="${H - 12}" class="xl">${escapeXml(first.label.slice(0, 16))}</text>`);
    if (n > 1)
      parts.push(
        `<text x="${f(x(n - 1))}" y="${H - 12}" class="xl end">${escapeXml(lastPoint.label.slice(0, 16))}</text>`,
      );
  } else {
    parts.push(`<text x="${W / 2}" y="${H / 2}" class="xl">no computable values</text>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * A scatter plot of a table's rows (e.g. P95 latency against precision, one point per configuration).
 * Highlighted rows (the Pareto set) are filled and joined by a line.
 */
export function svgScatter(table: Table): string {
  const chart = table.chart!;
  const col = (name: string) => table.columns.indexOf(name);
  const [xi, yi, li, hi] = [
    col(chart.x),
    col(chart.y),
    col(chart.label),
    chart.highlight ? col(chart.highlight) : -1,
  ];
  const pts = table.rows
    .map((r) => ({ x: r[xi], y: r[yi], label: String(r[li] ?? ''), on: hi >= 0 && r[hi] === true }))
    .filter(
      (p): p is { x: number; y: number; label: string; on: boolean } =>
        typeof p.x === 'number' && typeof p.y === 'number',
    );
  const w = 520;
  const h = 240;
  const pad = { left: 56, right: 24, top: 24, bottom: 40 };
  const span = (vs: number[]): [number, number] => {
    const lo = Math.min(...vs);
    const top = Math.max(...vs);
    const d = top - lo || Math.abs(top) || 1;
    return [lo - d * 0.15, top + d * 0.15];
  };
  const [x0, x1] = pts.length ? span(pts.map((p) => p.x)) : [0, 1];
  const [y0, y1] = pts.length ? span(pts.map((p) => p.y)) : [0, 1];
  const sx = (v: number) => pad.left + ((v - x0) / (x1 - x0)) * (w - pad.left - pad.right);
  const sy = (v: number) => pad.top + (1 - (v - y0) / (y1 - y0)) * (h - pad.top - pad.bottom);
  const f = (v: number) => v.toFixed(1);
  const tick = (v: number) => cellText(v);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeXml(table.title)}">`,
    `<line x1="${pad.left}" y1="${h - pad.bottom}" x2="${w - pad.right}" y2="${h - pad.bottom}" class="axis"/>`,
    `<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${h - pad.bottom}" class="axis"/>`,
    `<text x="${pad.left}" y="${h - pad.bottom + 14}" class="xl">${tick(x0)}</text>`,
    `<text x="${w - pad.right}" y="${h - pad.bottom + 14}" class="xl end">${tick(x1)}</text>`,
    `<text x="${(w + pad.left) / 2}" y="${h - 6}" class="xl mid">${escapeXml(chart.x)} →</text>`,
    `<text x="${pad.left - 6}" y="${f(sy(y1) + 4)}" class="yl">${tick(y1)}</text>`,
    `<text x="${pad.left - 6}" y="${f(sy(y0) + 4)}" class="yl">${tick(y0)}</text>`,
    `<text x="${pad.left + 6}" y="${pad.top - 8}" class="xl">↑ ${escapeXml(chart.y)}</text>`,
  ];
  const front = pts.filter((p) => p.on).sort((a, b) => a.x - b.x);
  if (front.length > 1)
    out.push(
      `<polyline points="${front.map((p) => `${f(sx(p.x))},${f(sy(p.y))}`).join(' ')}" class="line"/>`,
    );
  for (const p of pts) {
    // The last path component names a configuration well enough; the table has the full name.
    const name = p.label.split('/').pop()!.slice(0, 32);
    const anchor = sx(p.x) > w * 0.6 ? 'end' : 'start';
    out.push(
      `<circle cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="4" class="${p.on ? 'pt' : 'pt off'}"><title>${escapeXml(p.label)}: ${escapeXml(chart.x)} ${tick(p.x)}, ${escapeXml(chart.y)} ${tick(p.y)}</title></circle>`,
      `<text x="${f(sx(p.x) + (anchor === 'end' ? -7 : 7))}" y="${f(sy(p.y) - 7)}" class="xl${anchor === 'end' ? ' end' : ''}">${escapeXml(name)}</text>`,
    );
  }
  out.push('</svg>');
  return out.join('');
}
