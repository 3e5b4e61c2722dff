import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { traceShape, type GoldLine, type TraceLine } from '../src/grounded-answer/contract.js';
import { CompiledFieldMap, type FieldMap } from '../src/io/field-map.js';
import { readJsonlFile } from './helpers/formats.js';
import { jsonl } from './helpers/tmp.js';
import { scored, scoredPart } from './helpers/scored.js';
import { fieldsError } from './helpers/config-error.js';

// Transforms beside a `fields:` mapping: seconds scaled to milliseconds, epoch milliseconds read as epoch
// seconds, a value compared with a scalar to make a boolean. The example so written scores exactly as the
// canonical files.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = {
  good: readJsonlFile<TraceLine>('runs/qa.trace.jsonl'),
  regressed: readJsonlFile<TraceLine>('runs/qa-regressed.trace.jsonl'),
};
const QA = { kind: 'grounded-qa', k: 5, scu: true };
const WHAT = '(a trace {qid, retrieved_ids, answer_json: {claim, citations}})';

/**
 * A trace as a pipeline writes it: its time in epoch milliseconds (the first one an ISO string, read as
 * today), its latency in seconds, and its refusals as a finish reason with the pipeline's own wording.
 */
const transformed = ({ ts, latency_ms, ...t }: TraceLine, i: number) => {
  const refused = t.answer_json.claim.trim().toLowerCase() === 'not in context';
  return {
    ...t,
    created_ms: i === 0 ? new Date((ts as number) * 1000).toISOString() : (ts as number) * 1000,
    latency_s: latency_ms! / 1000,
    answer_json: {
      ...t.answer_json,
      claim: refused ? 'I could not find that in the docs.' : t.answer_json.claim,
    },
    finish_reason: refused ? 'refused' : 'stop',
  };
};
const TRANSFORMED = {
  '/ts': { from: '/created_ms', unit: 'ms' },
  '/latency_ms': { from: '/latency_s', scale: 1000 },
  '/refused': { from: '/finish_reason', equals: 'refused' },
} satisfies FieldMap;
const transformedGold = ({ answerable, ...g }: GoldLine) => ({
  ...g,
  kind: answerable ? 'answerable' : 'out of scope',
});
const TRANSFORMED_GOLD = { '/answerable': { from: '/kind', equals: 'answerable' } };

async function errorOf(files: Record<string, string>, suite: Record<string, unknown>): Promise<string> {
  return scored(files, { s: suite }).then(
    () => 'no error',
    (err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return err.message.replace(/[^\s(]*groundgate-test-[^/]+\//g, '');
    },
  );
}

describe.each(Object.entries(TRACES))(
  'the %s example with times, units and flags of its own',
  (_, traces) => {
    it('scores exactly as the canonical files: every metric, count, triage stage; latency too', async () => {
      const mine = traces.map(transformed);
      // The refusals are worded as no refusal rule reads them: the flag alone says so.
      expect(mine.filter((t) => t.finish_reason === 'refused').length).toBeGreaterThan(0);
      const suites = await scored(
        {
          'gold.jsonl': jsonl(GOLD),
          'traces.jsonl': jsonl(traces),
          'gold-mine.jsonl': jsonl(GOLD.map(transformedGold)),
          'traces-mine.jsonl': jsonl(mine),
        },
        {
          canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
          mine: {
            ...QA,
            gold: 'gold-mine.jsonl',
            traces: 'traces-mine.jsonl',
            fields: { traces: TRANSFORMED, gold: TRANSFORMED_GOLD },
          },
          latency: { kind: 'latency', traces: 'traces.jsonl', gold: 'gold.jsonl' },
          latencyMine: {
            kind: 'latency',
            traces: 'traces-mine.jsonl',
            gold: 'gold-mine.jsonl',
            fields: { traces: TRANSFORMED, gold: TRANSFORMED_GOLD },
          },
        },
      );
      const canonical = suites.canonical!;
      expect(Object.keys(canonical.metrics)).toHaveLength(9);
      expect(canonical.counts.trace_lines).toBe(traces.length);
      const { offenders: mineOffenders, ...mineRest } = scoredPart(suites.mine);
      const { offenders: canonicalOffenders, ...canonicalRest } = scoredPart(canonical);
      expect(mineRest).toEqual(canonicalRest);
      // The same offenders, but for the refusals' own wording.
      const unworded = (o: Record<string, unknown>[] | undefined) =>
        JSON.stringify(o).replaceAll('I could not find that in the docs.', 'not in context');
      expect(unworded(mineOffenders)).toBe(unworded(canonicalOffenders));
      expect(suites.latency!.metrics.p95_ms!.value).toBeGreaterThan(1000);
      expect(suites.latencyMine!.metrics).toEqual(suites.latency!.metrics);
      expect(scoredPart(suites.latencyMine).tables).toEqual(scoredPart(suites.latency).tables);
    });
  },
);

describe('what each transform makes of a value', () => {
  const map = new CompiledFieldMap(TRANSFORMED, traceShape);
  const one = (record: Record<string, unknown>) => map.apply(record) as Record<string, unknown>;

  it('scale rounds its product to 15 significant digits: 1.005 s is 1005 ms', () => {
    expect(1.005 * 1000).toBe(1004.9999999999999);
    expect(one({ latency_s: 1.005 }).latency_ms).toBe(1005);
    expect(one({ latency_s: 0.0001 }).latency_ms).toBe(0.1);
    expect('latency_ms' in one({})).toBe(false);
  });

  it('unit: ms divides an epoch number by 1000; an ISO string is read as it is', () => {
    expect(one({ created_ms: 1767225603500 }).ts).toBe(1767225603.5);
    expect(one({ created_ms: '2026-01-01T00:00:03Z' }).ts).toBe('2026-01-01T00:00:03Z');
    expect(new CompiledFieldMap({ '/ts': { from: '/at', unit: 's' } }, traceShape).apply({ at: 17 })).toEqual(
      {
        at: 17,
        ts: 17,
      },
    );
  });

  it('equals: true exactly when the value there is that scalar; absent stays absent', () => {
    expect(one({ finish_reason: 'refused' }).refused).toBe(true);
    expect(one({ finish_reason: 'Refused' }).refused).toBe(false);
    expect(one({ finish_reason: null }).refused).toBe(false);
    expect('refused' in one({})).toBe(false);
    const byNull = new CompiledFieldMap({ '/ok': { from: '/error', equals: null } }, traceShape);
    expect(byNull.apply({ error: null })).toEqual({ error: null, ok: true });
    expect(byNull.apply({ error: 'timeout' })).toEqual({ error: 'timeout', ok: false });
  });

  it('default: the value where the record has none; a value there is kept; each record gets its own copy', () => {
    const cited = new CompiledFieldMap(
      { '/answer_json/citations': { from: '/sources', default: [] } },
      traceShape,
    );
    const a = cited.apply({ sources: ['d1'] }) as { answer_json: { citations: string[] } };
    expect(a.answer_json.citations).toEqual(['d1']);
    const b = cited.apply({}) as { answer_json: { citations: string[] } };
    const c = cited.apply({}) as { answer_json: { citations: string[] } };
    expect(b.answer_json.citations).toEqual([]);
    expect(b.answer_json.citations).not.toBe(c.answer_json.citations);
    // null is a value: the contract's check names it, as it would without the default.
    expect(cited.apply({ sources: null })).toEqual({ sources: null, answer_json: { citations: null } });
  });

  it('default: traces whose refusals leave out their sources score as the canonical ones', async () => {
    // The pipeline logs its citations beside the answer, and leaves them out where it cites nothing.
    const mine = TRACES.good.map(({ answer_json, ...t }) => {
      const { citations, ...rest } = answer_json;
      return citations.length ? { ...t, answer_json: rest, sources: citations } : { ...t, answer_json: rest };
    });
    expect(mine.filter((t) => !('sources' in t)).length).toBe(15);
    const suites = await scored(
      { 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES.good), 'mine.jsonl': jsonl(mine) },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        mine: {
          ...QA,
          gold: 'gold.jsonl',
          traces: 'mine.jsonl',
          fields: { traces: { '/answer_json/citations': { from: '/sources', default: [] } } },
        },
      },
    );
    expect(scoredPart(suites.mine)).toEqual(scoredPart(suites.canonical));
  });

  it('the map crosses to a worker thread as the plain data it was made of', () => {
    expect(structuredClone(map.source)).toEqual(TRANSFORMED);
  });
});

describe('errors', () => {
  const traces = TRACES.good.map(transformed);
  const base = { ...QA, gold: 'gold.jsonl', traces: 'mine.jsonl', fields: { traces: TRANSFORMED } };

  it('a value scale cannot take names its line and pointer', async () => {
    const bad = jsonl(traces.map((t, i) => (i === 3 ? { ...t, latency_s: '1.2' } : t)));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': bad }, base)).toBe(
      `mine.jsonl:4: /latency_s (latency_ms): expected number to scale by 1000, found string ${WHAT}`,
    );
  });

  const configError = fieldsError;

  it('gates.yaml refuses a transform where it is written', async () => {
    expect(await configError(['        /qid: { from: /id, scale: 1000 }'])).toBe(
      'gates.yaml:9:35: suite "s": fields.traces./qid.scale: scale multiplies a number; expected it only for /ts, /latency_ms',
    );
    expect(await configError(['        /ts: { from: /t, scale: -1 }'])).toBe(
      'gates.yaml:9:33: suite "s": fields.traces./ts.scale: expected a number above 0',
    );
    expect(await configError(['        /latency_ms: { from: /t, unit: ms }'])).toBe(
      'gates.yaml:9:40: suite "s": fields.traces./latency_ms.unit: unit says what epoch numbers count; expected it only for /ts',
    );
    expect(await configError(['        /ts: { from: /t, unit: us }'])).toBe(
      'gates.yaml:9:32: suite "s": fields.traces./ts.unit: expected one of "ms"|"s"',
    );
    // Boolean members: /ok, and whatever the contract adds (shapeKinds lists them).
    expect(await configError(['        /qid: { from: /id, equals: x }'])).toMatch(
      /^gates\.yaml:9:36: suite "s": fields\.traces\.\/qid\.equals: equals makes a boolean; expected it only for \/ok\b/,
    );
    // The review found these said only "Invalid input".
    expect(await configError(['        /ok: { from: /status, equals: {a: 1} }'])).toBe(
      'gates.yaml:9:31: suite "s": fields.traces./ok.equals: expected a JSON scalar to compare with: a string, a finite number, true, false or null',
    );
    expect(await configError(['        /ts: { from: /t, unit: ms, scale: 2 }'])).toBe(
      'gates.yaml:9:32: suite "s": fields.traces./ts.unit: scale and unit together; expected one transform of scale, unit, equals, nonempty, content_id, default',
    );
    // default fills in a missing value; scaled or not, it would be written twice: one transform a member.
    expect(await configError(['        /latency_ms: { from: /t, scale: 1000, default: 0 }'])).toBe(
      'gates.yaml:9:56: suite "s": fields.traces./latency_ms.default: scale and default together; expected one transform of scale, unit, equals, nonempty, content_id, default',
    );
    expect(await configError(['        /ok: { from: /status, default: true, equals: done }'])).toBe(
      'gates.yaml:9:40: suite "s": fields.traces./ok.default: equals and default together; expected one transform of scale, unit, equals, nonempty, content_id, default',
    );
    expect(await configError(['        /ts: { from: /t, units: ms }'])).toBe(
      'gates.yaml:9:26: suite "s": fields.traces./ts: unknown key "units"; did you mean "unit"?; expected one of from, scale, unit, equals, nonempty, not, content_id, default',
    );
    expect(await configError(['        /ts: { unit: ms }'])).toBe(
      'gates.yaml:9:9: suite "s": fields.traces./ts.from: missing required key; expected string',
    );
    expect(await configError(['        /ts: 5'])).toBe(
      'gates.yaml:9:14: suite "s": fields.traces./ts: expected a JSON Pointer, or { from: <JSON Pointer>, and scale, unit, equals, nonempty, not, content_id or default }',
    );
    expect(await configError(['        /ts: { from: created, unit: ms }'])).toBe(
      'gates.yaml:9:22: suite "s": fields.traces./ts.from: "created" expected a JSON Pointer starting with "/" (RFC 6901)',
    );
  });
});

describe('the mapped copy', () => {
  it('keeps a key "__proto__" a member, as JSON.parse made it, never the prototype', () => {
    const record = JSON.parse('{"__proto__": {"qid": "inherited"}, "id": "Q1"}') as object;
    const mapped = new CompiledFieldMap({ '/ts': { from: '/at', unit: 'ms' } }, traceShape).apply(
      record,
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(Object.hasOwn(mapped, '__proto__')).toBe(true);
    expect(mapped.qid).toBeUndefined();
  });
});
