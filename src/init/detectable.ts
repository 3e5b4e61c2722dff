import type { MetricSpec, MetricValue } from '../metrics/spec.js';
import { wilson } from '../metrics/wilson.js';
import type { SuiteReport } from '../report/schema.js';
import type { SuiteKind } from '../suites/types.js';
import { zFor, type Calibrated } from './calibrate.js';

/**
 * What a gold set can detect, per metric, and the gates init writes for it. A level gate at the bound of
 * today's interval catches only a change that carries the value past the bound: on a few items that is a
 * large change. A paired gate counts the items that passed on the base branch and fail now, so it catches
 * a change of a few items whatever n is. A level gate whose bound is too far from the value to catch a
 * real regression (USELESS_REACH or more away, or fewer than MIN_ITEMS items) is left out, and the comment
 * says how many items would make one meaningful.
 */
export const USELESS_REACH = 0.4;
export const MIN_ITEMS = 10;
/** A level gate is meaningful once the bound of the same rate lies this close to it. */
export const MEANINGFUL_REACH = 0.1;

export interface DetectInput {
  value: MetricValue;
  spec: MetricSpec;
  confidence: number;
  /** The items a bootstrap bound was computed over (means, percentiles). */
  resampled?: number;
  /** The size of the metric's population (see populationSize), or why it has no paired gate. */
  population?: number | string;
  /** init's --max-drop: the share of the population the paired gate allows as noise. */
  maxDrop: number;
}

/**
 * The paired gate's N: max(1, floor(max_drop × n)). The same share of the items that max_drop allows the
 * level to drop, and at least one: a flaky item flipping once is run-to-run noise, not a regression. Below
 * n, so that the gate can fail at all (a population of one item gets 0).
 */
export function pairedAllowance(maxDrop: number, population: number): number {
  return Math.min(Math.max(1, Math.floor(maxDrop * population + 1e-9)), Math.max(0, population - 1));
}

const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

/**
 * The number of items in the metric's population (every item, or the count its population is named for),
 * or why the metric has no paired gate.
 */
export function populationSize(kind: SuiteKind, spec: MetricSpec, report: SuiteReport): number | string {
  if (!report.items) return `no paired gate: kind ${kind.kind} reports no item verdicts`;
  if (!kind.populations)
    return `no max_new_failures: kind ${kind.kind} counts no new failures; max_drop pairs each item's value with the baseline's`;
  const population = kind.populations[spec.name];
  if (population === null) return "no paired gate: an item's verdict does not tell this metric's failures";
  return population === undefined ? report.items.size : (report.counts[population] ?? 0);
}

/**
 * A calibrated gate with its paired gate and what the pair can detect; a metric calibrate skipped for too
 * few items gets a paired gate only, when the kind has one. Other skips stay skips.
 */
export function withDetectable(
  metric: string,
  calibrated: Calibrated | { skipped: string },
  input: DetectInput,
): Calibrated | { skipped: string } {
  const { value, spec } = input;
  const population = typeof input.population === 'number' ? input.population : undefined;
  const paired =
    population === undefined || population === 0 ? undefined : pairedAllowance(input.maxDrop, population);
  const pairedText =
    paired === undefined
      ? typeof input.population === 'string'
        ? input.population
        : ''
      : `the paired gate catches ${paired + 1} new failure${paired + 1 === 1 ? '' : 's'}${population === value.denominator ? '' : ` among its ${population} items`}`;
  const pairedRule =
    paired === undefined
      ? undefined
      : {
          most: paired,
          rule:
            paired === population! - 1 && paired < Math.max(1, Math.floor(input.maxDrop * population! + 1e-9))
              ? `max_new_failures: ${paired}, one less than the ${items(population!)}, so that the gate can fail`
              : `max_new_failures: max(1, floor(${input.maxDrop} × ${items(population!)})) = ${paired}: one new failure is run-to-run noise unless the set is large`,
        };
  if ('skipped' in calibrated) {
    const v = value.value;
    if (paired === undefined || v === null || !/too few/.test(calibrated.skipped)) return calibrated;
    const higher = spec.direction === 'higher';
    return {
      metric,
      op: higher ? '>=' : '<=',
      threshold: v,
      note: calibrated.skipped.slice(`${metric}: `.length),
      paired: pairedRule!,
      pairedOnly: true,
      detectable: `${metric}: no level gate (${calibrated.skipped.slice(`${metric}: `.length)}); ${pairedText}`,
    };
  }
  const reach = levelReach(calibrated, input);
  const useless =
    reach.n !== undefined &&
    (reach.n < MIN_ITEMS ||
      (spec.unit === 'ratio' && Math.abs(calibrated.threshold - value.value!) >= USELESS_REACH));
  let level = reach.text;
  if (useless) {
    const needed = reach.needed === undefined ? '' : `; one needs about ${reach.needed}`;
    level +=
      paired === undefined
        ? `, too little to catch a regression, but kept for want of a paired gate${needed}`
        : `, too little to catch a regression: no level gate${needed}`;
  }
  const pairedOnly = useless && paired !== undefined;
  return {
    ...calibrated,
    // Without its bound, the note keeps what was measured.
    ...(pairedOnly ? { note: calibrated.note.split(';')[0]!, pairedOnly } : {}),
    ...(pairedRule ? { paired: pairedRule } : {}),
    detectable: `${metric}: ${[level, ...(pairedText ? [pairedText] : [])].join('; ')}`,
  };
}

interface Reach {
  text: string;
  /** The items the level gate's value is over (none for a count). */
  n?: number;
  /** How many items a meaningful level gate needs, and what that means. */
  needed?: string;
}

/** How far today's value must move before the level gate fails. */
function levelReach(c: Calibrated, input: DetectInput): Reach {
  const { value, spec, confidence } = input;
  const v = value.value!;
  const higher = spec.direction === 'higher';
  const sign = higher ? '−' : '+';
  if (spec.unit === 'count') return { text: `a count: the level gate fails on one more than today's ${v}` };
  const distance = Math.abs(c.threshold - v);
  const shown = spec.unit === 'ratio' ? distance.toFixed(2) : String(Number(distance.toFixed(2)));
  const { numerator: k, denominator: n } = value;
  if (spec.unit === 'ratio' && k !== undefined && n !== undefined && n > 0) {
    // The first k/n past the bound: what today's count must become for the gate to fail.
    const at = higher ? Math.ceil(c.threshold * n - 1e-9) - 1 : Math.floor(c.threshold * n + 1e-9) + 1;
    const m = itemsForMeaningfulBound(k / n, higher, confidence);
    const pct = `${Number((confidence * 100).toFixed(2))}%`;
    // The smallest change caught is today's count moved to that k/n, not the bound's distance: counts
    // move in steps of 1/n, and a value between today's and the bound still passes.
    const text =
      at < 0 || at > n
        ? `${items(n)}: a level gate cannot fail at any count (its bound is ${format(c.threshold)})`
        : `${items(n)}: a level gate cannot catch less than ${sign}${Math.abs(at / n - v).toFixed(2)} (it fails from ${at}/${n}, past its bound ${format(c.threshold)})`;
    return {
      text,
      n,
      needed: `${m} items (the smallest n at which the Wilson ${pct} ${higher ? 'lower' : 'upper'} bound of the same rate, ${format(k / n)}, lies within ${MEANINGFUL_REACH} of it)`,
    };
  }
  const resampled = input.resampled;
  if (resampled === undefined) return { text: `a level gate cannot catch less than ${sign}${shown}` };
  // A bootstrap bound's distance shrinks as 1/√n.
  const m = Math.max(MIN_ITEMS, Math.ceil(resampled * (distance / MEANINGFUL_REACH) ** 2));
  return {
    text: `${items(resampled)}: a level gate cannot catch less than ${sign}${shown} (the bootstrap bound)`,
    n: resampled,
    needed:
      spec.unit === 'ratio'
        ? `${m} items (the bootstrap bound's distance, ${shown}, shrinks as 1/√n: within ${MEANINGFUL_REACH} at that n)`
        : undefined,
  };
}

/**
 * The smallest n at which the Wilson bound of rate p, on the side a gate uses, lies within
 * MEANINGFUL_REACH of p (and at least MIN_ITEMS): how many items a level gate needs to be worth having.
 */
export function itemsForMeaningfulBound(p: number, higher: boolean, confidence: number): number {
  const z = zFor(confidence);
  for (let n = 1; n < 10_000_000; n++) {
    const [lo, hi] = wilson(p * n, n, z);
    if ((higher ? p - lo : hi - p) <= MEANINGFUL_REACH + 1e-12) return Math.max(MIN_ITEMS, n);
  }
  return Infinity;
}

function format(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(4);
}
