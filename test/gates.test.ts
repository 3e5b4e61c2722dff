import { describe, expect, it } from 'vitest';
import { parseComparison } from '../src/config/gate.js';
import { evaluateGate } from '../src/gates/evaluate.js';
import type { MetricSpec } from '../src/metrics/spec.js';

const higher: MetricSpec = { name: 'precision', direction: 'higher', unit: 'ratio', description: '' };
const lower: MetricSpec = { name: 'under_refusal', direction: 'lower', unit: 'ratio', description: '' };

describe('gate expressions', () => {
  it('parses every comparison', () => {
    expect(parseComparison('>= 0.80')).toEqual({ op: '>=', threshold: 0.8 });
    expect(parseComparison('<=0.05')).toEqual({ op: '<=', threshold: 0.05 });
    expect(parseComparison(' == 0 ')).toEqual({ op: '==', threshold: 0 });
    expect(parseComparison('> .5')).toEqual({ op: '>', threshold: 0.5 });
    expect(parseComparison('< 1e-3')).toEqual({ op: '<', threshold: 0.001 });
    expect(parseComparison('=> 0.8')).toBeUndefined();
    expect(parseComparison('0.8')).toBeUndefined();
    expect(parseComparison('>= 0.8 or so')).toBeUndefined();
  });
});

describe('evaluateGate', () => {
  const rule = (op: '>=' | '<=' | '==', threshold: number, extra = {}) => ({
    checks: [{ op, threshold }],
    allowMissing: false,
    ...extra,
  });

  it('compares values at and around the threshold', () => {
    expect(evaluateGate('precision', rule('>=', 0.8), { value: 4 / 5 }, higher)[0]!.passed).toBe(true);
    expect(evaluateGate('precision', rule('>=', 0.8), { value: 0.7999 }, higher)[0]!.passed).toBe(false);
    expect(evaluateGate('under_refusal', rule('<=', 0.05), { value: 1 / 20 }, lower)[0]!.passed).toBe(true);
    expect(evaluateGate('x', rule('==', 0), { value: 1 }, lower)[0]!.passed).toBe(false);
  });

  it('fails a non-computable metric with the reason, unless allow_missing', () => {
    expect(
      evaluateGate('precision', rule('>=', 0.8), { value: null, reason: 'no shipped answers' }, higher),
    ).toEqual([
      {
        metric: 'precision',
        op: '>=',
        threshold: 0.8,
        value: null,
        passed: false,
        reason: 'not computable: no shipped answers',
      },
    ]);
    expect(
      evaluateGate(
        'precision',
        rule('>=', 0.8, { allowMissing: true }),
        { value: null, reason: 'r' },
        higher,
      )[0],
    ).toMatchObject({
      passed: true,
      reason: 'not computable: r (allow_missing)',
    });
  });

  it('measures max_drop in the direction of the metric', () => {
    const r = { checks: [], maxDrop: 0.02, allowMissing: false };
    expect(evaluateGate('precision', r, { value: 0.9 }, higher, { value: 0.92 })[0]).toMatchObject({
      passed: true,
      baseline: 0.92,
    });
    expect(evaluateGate('precision', r, { value: 0.89 }, higher, { value: 0.92 })[0]!.passed).toBe(false);
    expect(evaluateGate('under_refusal', r, { value: 0.05 }, lower, { value: 0.02 })[0]!.passed).toBe(false);
    expect(evaluateGate('under_refusal', r, { value: 0.0 }, lower, { value: 0.3 })[0]!.passed).toBe(true);
    expect(evaluateGate('precision', r, { value: 0.5 }, higher)[0]).toMatchObject({
      skipped: true,
      passed: true,
      reason: 'no baseline report given',
    });
  });
});
