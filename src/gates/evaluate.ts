import { compare, type Comparison, type GateRule } from '../config/gate.js';
import type { MetricSpec, MetricValue } from '../metrics/spec.js';
import { escapeTerminal } from '../report/escape.js';
import { formatNumber, formatP } from '../report/format.js';
import { grownText, type PairedIncrease } from './increase.js';
import type { PairedDelta } from '../metrics/paired-delta.js';

/** A metric's population compared item by item with the baseline (gold unchanged): what a paired gate counts. */
export interface PairedOutcome {
  /** The population's name (`unanswerable`), or `all`. */
  population: string;
  /** Items of the population in both reports with the same gold. */
  items: number;
  /** Of them, passed on the baseline and fail now. */
  new_failures: number;
  /** Of them, failed on the baseline and pass now. */
  fixes: number;
  /** The first new failures, in code-unit order. */
  first: string[];
  /** Exact two-sided McNemar test of new failures vs fixes. */
  mcnemar_p: number;
}

/** The flips of a metric's population, as run() finds them: compareItems over the population. */
export interface PopulationFlips {
  population: string;
  paired: number;
  regressed: readonly string[];
  fixed: readonly string[];
  mcnemar_p: number;
}

/** How many new failures an outcome names: enough to find them, few enough for a table cell. */
const FIRST = 5;

export interface GateOutcome {
  metric: string;
  op: Comparison | 'max_drop' | 'max_increase' | 'max_new_failures';
  threshold: number;
  value: number | null;
  passed: boolean;
  /** Not evaluated (max_drop without a baseline); counts as passed. */
  skipped?: boolean;
  baseline?: number | null;
  reason?: string;
  confidence?: 'lower_bound' | 'upper_bound';
  compared?: number | null;
  paired?: PairedOutcome;
  /** max_drop: the two-sided paired randomization p of the per-item differences, when both sides have them. */
  p?: number;
  /** max_drop with significance: the level a drop's p must be below to fail. */
  significance?: number;
}

/**
 * Checks one metric against its rule. A non-computable value fails unless `allow_missing`; `max_drop`
 * measures worsening in the metric's own direction (a fall for higher-is-better, a rise otherwise).
 */
export function evaluateGate(
  metric: string,
  rule: GateRule,
  value: MetricValue | undefined,
  spec: MetricSpec,
  baseline?: MetricValue,
  noBaselineReason = 'no baseline report given',
  /** For max_new_failures: the population's flips, or why there are none to count (skipped). */
  flips?: PopulationFlips | { skipped: string },
  /** For max_increase: the metric over the items both reports have its per-item values for. */
  paired?: PairedIncrease,
): GateOutcome[] {
  const v = value?.value ?? null;
  const missingReason = value?.reason ?? 'not reported';
  const outcomes: GateOutcome[] = [];
  // With a confidence option the check is on a bound of the interval, so small samples cannot pass (or
  // fail) on noise; a metric without an interval is not computable for such a gate.
  const bound = rule.confidence ? value?.ci95?.[rule.confidence === 'lower_bound' ? 0 : 1] : undefined;
  for (const check of rule.checks) {
    if (rule.confidence) {
      const why =
        v === null ? `not computable: ${missingReason}` : `${rule.confidence} needs a proportion with counts`;
      outcomes.push(
        bound === undefined
          ? {
              metric,
              ...check,
              value: v,
              passed: rule.allowMissing,
              reason: why,
              confidence: rule.confidence,
              compared: null,
            }
          : {
              metric,
              ...check,
              value: v,
              passed: compare(bound, check),
              confidence: rule.confidence,
              compared: bound,
            },
      );
    } else if (v === null) {
      outcomes.push({
        metric,
        ...check,
        value: null,
        passed: rule.allowMissing,
        reason: `not computable: ${missingReason}${rule.allowMissing ? ' (allow_missing)' : ''}`,
      });
    } else {
      outcomes.push({ metric, ...check, value: v, passed: compare(v, check) });
    }
  }
  if (rule.maxDrop !== undefined)
    outcomes.push(
      dropOutcome(metric, rule, v, missingReason, spec, baseline, noBaselineReason, value?.paired),
    );
  if (rule.maxIncrease !== undefined)
    outcomes.push(increaseOutcome(metric, rule, v, missingReason, spec, baseline, noBaselineReason, paired));
  if (rule.maxNewFailures !== undefined)
    outcomes.push(pairedOutcome(metric, rule.maxNewFailures, v, flips ?? { skipped: noBaselineReason }));
  return outcomes;
}

/**
 * Why a gate against the baseline cannot be judged when only the baseline lacks the value: most often a
 * metric gated since the baseline was made (a cost once pricing: is added), which the user can settle.
 */
function baselineMissing(reason: string | undefined): string {
  return `baseline value not computable${reason ? ` (${reason})` : ''}; allow_missing: true passes the gate until the baseline has one (groundgate baseline remakes the committed baseline from this gates.yaml)`;
}

/**
 * A max_drop gate: the worsening of the metric against the baseline's value. With the items' paired test
 * (value.paired), its p goes beside the drop; with `significance`, a drop past the limit fails only when that
 * p is below it too. A gate whose p cannot be had judges by the drop alone and says so: a regression is never
 * let through for want of a test.
 */
function dropOutcome(
  metric: string,
  rule: GateRule,
  v: number | null,
  missingReason: string,
  spec: MetricSpec,
  baseline: MetricValue | undefined,
  noBaselineReason: string,
  paired: PairedDelta | undefined,
): GateOutcome {
  const base = baseline?.value ?? null;
  const { significance } = rule;
  const common = {
    metric,
    op: 'max_drop' as const,
    threshold: rule.maxDrop!,
    value: v,
    ...(significance !== undefined ? { significance } : {}),
  };
  if (baseline === undefined) return { ...common, passed: true, skipped: true, reason: noBaselineReason };
  if (base === null || v === null) {
    const which =
      v === null ? `current value not computable: ${missingReason}` : baselineMissing(baseline.reason);
    return { ...common, baseline: base, passed: rule.allowMissing, reason: which };
  }
  const drop = spec.direction === 'higher' ? base - v : v - base;
  // Subtraction of two decimals can land a hair above an exact threshold: allow 1e-12 of float noise.
  const within = drop <= rule.maxDrop! + 1e-12;
  if (!paired) {
    const untested =
      significance === undefined
        ? undefined
        : `significance not tested: the baseline has no per-item values of ${metric}; judged by the drop alone`;
    return { ...common, baseline: base, passed: within, ...(untested ? { reason: untested } : {}) };
  }
  const p = paired.randomization_p;
  const [lo, hi] = paired.ci95;
  const noise = !within && significance !== undefined && p >= significance;
  const tested =
    `drop ${formatNumber(drop, spec.unit)} over ${paired.items} paired items (Δ 95% CI ${formatNumber(lo, spec.unit)} to ${formatNumber(hi, spec.unit)}); ` +
    `paired randomization p ${formatP(p)}, t-test p ${formatP(paired.t_p)}` +
    (noise ? `; not significant at ${significance}: passes` : '');
  return { ...common, baseline: base, passed: within || noise, reason: tested, p };
}

/**
 * A paired gate: fails when more than `most` items of the metric's population passed on the baseline and
 * fail now. Fixes elsewhere do not offset them (each new failure is a question the change broke); they are
 * reported beside, with the exact McNemar p of the two, to tell a trade from noise.
 */
function pairedOutcome(
  metric: string,
  most: number,
  value: number | null,
  flips: PopulationFlips | { skipped: string },
): GateOutcome {
  const common = { metric, op: 'max_new_failures' as const, threshold: most, value };
  if ('skipped' in flips) return { ...common, passed: true, skipped: true, reason: flips.skipped };
  const { population, paired, regressed, fixed, mcnemar_p } = flips;
  const first = regressed.slice(0, FIRST);
  const named = first.map((id) => escapeTerminal(id, 40));
  const more = regressed.length > FIRST ? `, … (${regressed.length - FIRST} more)` : '';
  const among = `among ${paired} paired ${population === 'all' ? '' : `${population} `}item${paired === 1 ? '' : 's'}`;
  return {
    ...common,
    passed: regressed.length <= most,
    reason:
      `${regressed.length} new failure${regressed.length === 1 ? '' : 's'}` +
      `${named.length ? ` (${named.join(', ')}${more})` : ''}, ${fixed.length} fix${fixed.length === 1 ? '' : 'es'} ` +
      `${among}; exact McNemar p ${formatP(mcnemar_p)}`,
    paired: {
      population,
      items: paired,
      new_failures: regressed.length,
      fixes: fixed.length,
      first,
      mcnemar_p,
    },
  };
}

/**
 * A max_increase gate: fails when the value rose by more than the fraction `rule.maxIncrease` of the
 * baseline's (from 0, by anything). Over the paired items when both reports carry per-item values; else the
 * two reports' values as they are. The reason names the items that grew most, before → after.
 */
function increaseOutcome(
  metric: string,
  rule: GateRule,
  value: number | null,
  missingReason: string,
  spec: MetricSpec,
  baseline: MetricValue | undefined,
  noBaselineReason: string,
  paired: PairedIncrease | undefined,
): GateOutcome {
  const common = { metric, op: 'max_increase' as const, threshold: rule.maxIncrease!, value };
  if (baseline === undefined && !paired)
    return { ...common, passed: true, skipped: true, reason: noBaselineReason };
  const now = paired ? paired.current : value;
  const base = paired ? paired.base : (baseline?.value ?? null);
  if (now === null || base === null) {
    const which =
      now === null ? `current value not computable: ${missingReason}` : baselineMissing(baseline?.reason);
    return { ...common, baseline: base, passed: rule.allowMissing, reason: which };
  }
  const rise = base === 0 ? (now > 0 ? Infinity : 0) : (now - base) / Math.abs(base);
  const unit = (v: number) => formatNumber(v, spec.unit);
  const over = paired
    ? ` over ${paired.items} paired item${paired.items === 1 ? '' : 's'}`
    : ' (report values: no per-item values to pair)';
  const grown = paired?.grown.length
    ? `; grew most: ${grownText(paired.grown, (name, v) => formatNumber(v, name === 'cost' ? 'usd' : spec.unit))}`
    : '';
  const percent = Number.isFinite(rise) ? `${rise >= 0 ? '+' : ''}${(rise * 100).toFixed(1)}%` : 'from 0';
  return {
    ...common,
    baseline: base,
    // Division of two decimals can land a hair above an exact threshold: allow 1e-12 of float noise.
    passed: rise <= rule.maxIncrease! + 1e-12,
    reason: `${percent} (${unit(base)} → ${unit(now)})${over}${grown}`,
  };
}
