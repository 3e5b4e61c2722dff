import { yRange, type Trend } from './trend.js';

/** Mermaid draws these in GitHub Markdown: the metric as a line, each gate threshold as a flat line. */
export function mermaidTrend(t: Trend): string {
  const [lo, hi] = yRange(t);
  const label = (s: string) => `"${s.replace(/["\\`\r\n]/g, "'").slice(0, 24)}"`;
  const gates = t.thresholds.map((g) => `${g.op} ${g.threshold}`).join(', ');
  const lines = [
    '```mermaid',
    'xychart-beta',
    `  title "${t.key.replace(/["`]/g, "'")}${gates ? ` (gate ${gates})` : ''}"`,
    `  x-axis [${t.points.map((p) => label(p.label)).join(', ')}]`,
    `  y-axis ${round(lo)} --> ${round(hi)}`,
    `  line [${t.points.map((p) => round(p.value)).join(', ')}]`,
    ...t.thresholds.map((g) => `  line [${t.points.map(() => round(g.threshold)).join(', ')}]`),
    '```',
  ];
  return lines.join('\n');
}

function round(v: number): string {
  return String(Math.round(v * 10_000) / 10_000);
}
