import { printf4 } from '../metrics/ir/printf.js';
import type { GateResult, Report } from './schema.js';

/** Renderers round; report.json never does. Ratios get 4 decimals, as trec_eval prints them. */
export function formatNumber(value: number | null, unit?: string): string {
  if (value === null) return 'n/a';
  if (unit === 'count' || unit === 'tokens')
    return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (unit === 'ms') return value.toFixed(0);
  if (unit === 's') return value.toFixed(2);
  // A dollar or more to the cent; less (an answer's cost) to three significant digits: 0.000412.
  if (unit === 'usd') return Math.abs(value) >= 1 ? value.toFixed(2) : String(Number(value.toPrecision(3)));
  return fixed4(value);
}

/**
 * An offender's number: whole as it is, else four decimals, but three significant digits below 0.01, where four
 * decimals would show an answer's cost (0.000196) as 0.0002 and a smaller one as 0.0000.
 */
export function offenderNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) < 0.01 ? String(Number(value.toPrecision(3))) : fixed4(value);
}

/** Four decimals exactly as trec_eval's printf prints them (ties to even), for either sign. */
export function fixed4(value: number): string {
  return value < 0 ? `-${printf4(-value)}` : printf4(value);
}

export function formatThreshold(g: GateResult): string {
  if (g.op === 'max_drop') return `drop ≤ ${g.threshold}`;
  if (g.op === 'max_increase') return `increase ≤ ${Number((g.threshold * 100).toFixed(4))}%`;
  return g.op === 'max_new_failures' ? `new failures ≤ ${g.threshold}` : `${g.op} ${g.threshold}`;
}

export function gateStatus(g: GateResult): 'pass' | 'fail' | 'skip' {
  if (g.skipped) return 'skip';
  return g.passed ? 'pass' : 'fail';
}

/** The n column: a proportion's counts (`30/33`), or how many items a mean is over (`50`). */
export function fraction(m: { numerator?: number; denominator?: number; n?: number }): string {
  if (m.numerator !== undefined && m.denominator !== undefined) return `${m.numerator}/${m.denominator}`;
  return m.n === undefined ? '' : String(m.n);
}

/**
 * "FAIL — 2 of 7 gates failed", "PASS — 7 of 8 gates passed, 1 skipped": a skipped gate (max_drop without
 * a baseline) is counted apart, so a gate that was never checked never reads as passed.
 */
export function verdictLine(gates: readonly GateResult[]): string {
  if (gates.length === 0) return 'PASS — no gates configured';
  const failed = gates.filter((g) => !g.passed).length;
  const skipped = gates.filter((g) => g.skipped).length;
  const tail = skipped ? `, ${skipped} skipped` : '';
  if (failed === 0) return `PASS — ${gates.length - skipped} of ${gates.length} gates passed${tail}`;
  return `FAIL — ${failed} of ${gates.length} gates failed${tail}`;
}

/** Signed change against the baseline, in the metric's unit: "+0.0200", "−3", "n/a". */
export function formatDelta(delta: number | null | undefined, unit?: string): string {
  if (delta === undefined) return '';
  if (delta === null) return 'n/a';
  const text = formatNumber(Math.abs(delta), unit);
  return delta > 0 ? `+${text}` : delta < 0 ? `−${text}` : `±${text}`;
}

/** p-values below what 4 decimals can show are written as a bound, not as a misleading 0. */
export function formatP(p: number): string {
  return p < 0.0001 ? '< 0.0001' : `= ${p.toFixed(4)}`;
}

/** A table cell as text: numbers rounded like metrics, null as a dash. Not escaped. */
export function cellText(v: string | number | boolean | null): string {
  if (v === null) return '—';
  // Large values are times or counts (ms, tokens): one decimal says enough; small ones are ratios.
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(1) : fixed4(v);
  return String(v);
}

/** The warnings every output shows first (SuiteResult.headline), each after its suite's name. */
export const headlines = (report: Report): string[] =>
  Object.entries(report.suites).flatMap(([name, s]) => (s.headline ? [`${name}: ${s.headline}`] : []));
