import { escapeXml } from './escape.js';
import { formatNumber } from './format.js';
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
