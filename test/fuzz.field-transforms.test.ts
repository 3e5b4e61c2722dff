import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  goldShape,
  goldTest,
  traceShape,
  traceTest,
  type TraceLine,
} from '../src/grounded-answer/contract.js';
import { goldFields, loadedGold, mappedGoldScanner, scanGoldLine } from '../src/grounded-answer/gold-scan.js';
import {
  judgedTrace,
  mappedTraceScanner,
  scannedQid,
  scanTraceLine,
  traceFields,
} from '../src/grounded-answer/trace-scan.js';
import { CompiledFieldMap, type FieldMap } from '../src/io/field-map.js';

/**
 * A list of strings a `fields:` mapping names may be one string (a list of it; "" none). The byte scanner
 * derived from the mapping and JSON.parse with the map must read every such record alike: the scanner
 * accepts a line exactly when the parsed, mapped record meets the contract, and builds the same values.
 * FUZZ_RUNS sets the records per contract (see fuzz.loaders.test.ts).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120) * 10;
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;

const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(
    '',
    ' ',
    'keys#1',
    'caf\u00e9',
    '\u2028',
    '"quoted"',
    'back\\slash',
    'a\nb',
    '\ud83d\ude00',
  ),
);
/** What a team's list member holds: a list, one string, or something no list is. */
const listish = fc.oneof(
  { weight: 4, arbitrary: fc.array(text, { maxLength: 3 }) },
  { weight: 4, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 3, true, {}, [1], ['a', null], [['a']]) },
);
/** A member left out, or its value. */
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 6 });
const record = (members: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(members, { requiredKeys: [] }).map((r) =>
    // JSON has no undefined: a member left out is absent from the line.
    JSON.stringify(Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))),
  );

const GOLD_MAP: FieldMap = {
  '/qid': '/id',
  '/question': '/user_input',
  '/answerable': '/has_answer',
  '/gold_claim_substr': '/reference',
  '/gold_citations': '/docs',
  '/constraints': '/rules',
};
const TRACE_MAP: FieldMap = {
  '/qid': '/id',
  '/retrieved_ids': '/contexts',
  '/answer_json/claim': '/out/text',
  '/answer_json/citations': '/out/cites',
  '/answer_json/constraints_echo': '/echo',
};

describe(`one string as a list, on bytes and parsed (${RUNS} records per contract; FUZZ_RUNS sets it)`, () => {
  it('gold: the scanner accepts a line exactly when the mapped record is a gold item, with the same values', () => {
    const scanner = mappedGoldScanner(GOLD_MAP);
    const map = new CompiledFieldMap(GOLD_MAP, goldShape);
    const found = goldFields();
    const seen = { accepted: 0, refused: 0, single: 0 };
    fc.assert(
      fc.property(
        record({
          id: fc.oneof(text, fc.constant(1)),
          user_input: maybe(text),
          has_answer: maybe(fc.oneof(fc.boolean(), fc.constant<unknown>('yes'))),
          reference: maybe(listish),
          docs: maybe(listish),
          rules: maybe(listish),
        }),
        (line) => {
          const mapped = map.apply(JSON.parse(line));
          const b = Buffer.from(line);
          const onBytes = scanGoldLine(b, 0, b.length, found, scanner);
          expect([line, onBytes]).toEqual([line, goldTest(mapped)]);
          if (!onBytes) return void seen.refused++;
          seen.accepted++;
          if (/"(?:reference|docs)":"/.test(line)) seen.single++;
          const { qid, answerable, gold_claim_substr, gold_citations, constraints } = mapped as Record<
            string,
            unknown
          >;
          expect(loadedGold(b, b.length, found), line).toEqual({
            qid,
            answerable,
            gold_claim_substr,
            gold_citations,
            ...(constraints !== undefined && { constraints }),
          });
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    expect(seen.single).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it('traces: the scanner accepts a line exactly when the mapped record is a trace, with the same values', () => {
    const scanner = mappedTraceScanner(TRACE_MAP);
    const map = new CompiledFieldMap(TRACE_MAP, traceShape);
    const found = traceFields();
    const seen = { accepted: 0, refused: 0, single: 0 };
    fc.assert(
      fc.property(
        record({
          id: fc.oneof(text, fc.constant(1)),
          contexts: maybe(listish),
          out: maybe(
            record({ text: maybe(text), cites: maybe(listish) }).map((s) => JSON.parse(s) as unknown),
          ),
          echo: maybe(listish),
        }),
        (line) => {
          const mapped = map.apply(JSON.parse(line));
          const b = Buffer.from(line);
          const onBytes = scanTraceLine(b, 0, b.length, found, scanner);
          expect([line, onBytes]).toEqual([line, traceTest(mapped)]);
          if (!onBytes) return void seen.refused++;
          seen.accepted++;
          if (/"(?:contexts|cites)":"/.test(line)) seen.single++;
          const t = mapped as TraceLine;
          expect(scannedQid(b, found)).toBe(t.qid);
          expect(judgedTrace(b, b.length, found), line).toEqual({
            retrieved_ids: t.retrieved_ids,
            answer_json: {
              claim: t.answer_json.claim,
              citations: t.answer_json.citations,
              ...(t.answer_json.constraints_echo && { constraints_echo: t.answer_json.constraints_echo }),
            },
          });
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    expect(seen.single).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
