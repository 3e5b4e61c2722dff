import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { InputError } from '../src/errors.js';
import { canonicalJson, canonicalJsonOfBytes } from '../src/gold/canonical.js';
import { canonicalBytesWriter } from '../src/gold/canonical-bytes.js';
import { run } from '../src/run.js';
import { shapeTest } from '../src/io/record-shape.js';
import { runLineSchema, runShape } from '../src/suites/stability/contract.js';
import { safeParse } from '../src/io/validate.js';
import { isOffenderFields, offenderFieldsSchema } from '../src/suites/offender-fields.js';
import {
  asGoldLine,
  asTraceLine,
  goldLineSchema,
  traceLineSchema,
  type TraceLine,
} from '../src/grounded-answer/contract.js';
import { goldFields, loadedGold, scanGoldLine } from '../src/grounded-answer/gold-scan.js';
import {
  judgedTrace,
  mappedTraceScanner,
  scannedQid,
  scannedTs,
  scanTraceLine,
  traceFields,
} from '../src/grounded-answer/trace-scan.js';
import { ANSWER, memberReader, memberShapes, STRINGS } from '../src/grounded-answer/member-shapes.js';
import { JUNK } from './helpers/junk.js';
import { nestedA, nestedB, otlpLines } from './helpers/formats.js';
import { compileFieldMap } from '../src/io/field-map.js';
import { lineSpans } from '../src/grounded-answer/spans/openinference.js';
import { spanFacts } from '../src/grounded-answer/spans/span-facts.js';
import { assemble } from '../src/grounded-answer/spans/trace-assembly.js';
import { leanReader } from '../src/grounded-answer/spans/otlp-lean.js';
import { notePlaces, placedReader } from '../src/grounded-answer/sources/otlp/otlp-places.js';
import { runReader } from '../src/grounded-answer/sources/held-lines.js';
import { recordChecker } from '../src/io/field-map.js';
import { TRACE_WHAT, traceShape, traceTest } from '../src/grounded-answer/contract.js';
import { unescapeInto } from '../src/io/json-scan.js';
import { otlpScanner } from '../src/grounded-answer/spans/otlp-scan.js';
import type { SpanFacts } from '../src/grounded-answer/spans/span-values.js';
import { seeded } from './helpers/random.js';
import { FIXTURES, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

const GOLD = readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8').trimEnd().split('\n');
const TRACES = readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8').trimEnd().split('\n');
const FIXTURE_GOLD = ['wfgy/gold.jsonl', 'contextbench/gold_rows_contextbench_verified_test.jsonl'].flatMap(
  (f) => readFileSync(path.join(FIXTURES, f), 'utf8').trimEnd().split('\n'),
);
const RUNS = readFileSync(path.join(REPO, 'examples/stability/runs.jsonl'), 'utf8').trimEnd().split('\n');
const CONFIG = qaOnlyGates();
const VALUES = [null, 0, -1, 1.5, '', 'x', [], {}, [1], ['a'], { claim: 1 }, true, 'not in context'];

/** One random edit: bytes (delete, insert, swap) or structure (drop a key, change a value's type). */
function mutate(line: string, rnd: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const at = Math.floor(rnd() * (line.length + 1));
  switch (Math.floor(rnd() * 5)) {
    case 0:
      return line.slice(0, at) + line.slice(at + 1 + Math.floor(rnd() * 5));
    case 1:
      return line.slice(0, at) + pick(JUNK) + line.slice(at);
    case 2:
      return line.slice(0, at) + '\n' + line.slice(at);
    default: {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(line);
      } catch {
        return line.slice(0, at) + pick(JUNK) + line.slice(at); // already broken by an earlier edit
      }
      if (obj === null || typeof obj !== 'object') return line + pick(JUNK);
      const target =
        rnd() < 0.3 && typeof obj.answer_json === 'object' && obj.answer_json
          ? (obj.answer_json as Record<string, unknown>)
          : obj;
      const key = pick(Object.keys(target));
      if (rnd() < 0.4) delete target[key];
      else target[key] = pick(VALUES);
      return JSON.stringify(obj);
    }
  }
}

/** `count` mutations of the lines in turn, those that are still JSON, parsed. */
function* mutatedValues(lines: readonly string[], count: number, rnd: () => number): Generator<unknown> {
  for (let i = 0; i < count; i++) {
    let value: unknown;
    try {
      value = JSON.parse(mutate(lines[i % lines.length]!, rnd));
    } catch {
      continue;
    }
    yield value;
  }
}

/** Runs the engine; anything but a result or an InputError with a file:line location is a defect. */
async function expectCleanOutcome(dir: string): Promise<'ok' | 'input-error'> {
  try {
    await run({ config: path.join(dir, 'gates.yaml') });
    return 'ok';
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    expect(err.message).not.toContain('\n');
    expect(err.where?.file).toBeTruthy();
    return 'input-error';
  }
}

function parsedOrUndefined(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A scan from bytes agrees with JSON.parse and the contract: on `edge` lines it accepts, and on 20k
 * mutations of `lines` whenever it accepts one. Refusing a good line costs only speed, but it must be rare;
 * and both kinds of line must have been tried.
 */
function agreesWithParse<T>(
  lines: readonly string[],
  edge: readonly string[],
  rnd: () => number,
  fromBytes: (line: string) => T | undefined,
  fromParse: (line: string) => T | undefined,
): void {
  for (const line of edge) {
    expect(fromBytes(line)).toBeDefined();
    expect(fromBytes(line)).toEqual(fromParse(line));
  }
  const counts = { accepted: 0, refusedGood: 0, bad: 0 };
  for (let i = 0; i < 20000; i++) {
    let line = lines[i % lines.length]!;
    for (let j = Math.floor(rnd() * 4); j > 0; j--) line = mutate(line, rnd).split('\n')[0]!;
    const bytes = fromBytes(line);
    const parsed = fromParse(line);
    if (bytes) expect([line, bytes]).toEqual([line, parsed]);
    if (bytes) counts.accepted++;
    else if (parsed) counts.refusedGood++;
    else counts.bad++;
  }
  expect(counts.refusedGood).toBeLessThan(counts.accepted / 50);
  expect(counts.accepted).toBeGreaterThan(5000);
  expect(counts.bad).toBeGreaterThan(5000);
}

describe('loader fuzzing (seeded)', () => {
  it('turns every mutated gold or trace line into a result or a one-line InputError', async () => {
    const rnd = seeded(20261121);
    const dir = tmpTree({
      'gates.yaml': CONFIG.replace('gold/qa.gold.jsonl', 'gold.jsonl').replace(
        'runs/qa.trace.jsonl',
        'traces.jsonl',
      ),
    });
    const outcomes = { ok: 0, 'input-error': 0 };
    for (let i = 0; i < 400; i++) {
      const gold = [...GOLD];
      const traces = [...TRACES];
      const lines = rnd() < 0.5 ? gold : traces;
      const n = 1 + Math.floor(rnd() * 3);
      for (let j = 0; j < n; j++) {
        const idx = Math.floor(rnd() * lines.length);
        lines[idx] = mutate(lines[idx]!, rnd);
      }
      writeFileSync(path.join(dir, 'gold.jsonl'), gold.join('\n') + '\n');
      writeFileSync(path.join(dir, 'traces.jsonl'), traces.join(rnd() < 0.2 ? '\r\n' : '\n'));
      outcomes[await expectCleanOutcome(dir)]++;
    }
    // Both paths are exercised: the mutations are neither all harmless nor all fatal.
    expect(outcomes.ok).toBeGreaterThan(20);
    expect(outcomes['input-error']).toBeGreaterThan(150);
  });

  it('parses alike before and after zod compiles a schema (safeParse switches after 256 values)', () => {
    const rnd = seeded(29);
    const cases: [ZodType, string[]][] = [
      [traceLineSchema, TRACES],
      [goldLineSchema, GOLD],
    ];
    for (const [schema, lines] of cases) {
      // Fresh copies: one goes through safeParse (uncompiled, then compiled), one is compiled from the start.
      const switching = schema.clone();
      const compiled = schema.clone();
      let failures = 0;
      for (const value of mutatedValues(lines, 1200, rnd)) {
        const ours = safeParse(switching, value);
        const reference = compiled.safeParse(value);
        expect(ours.success).toBe(reference.success);
        if (reference.success) expect(ours.data).toEqual(reference.data);
        // safeParse stops at the first issue (abortEarly), the one every caller words.
        else expect(ours.error!.issues[0]).toEqual(reference.error.issues[0]);
        if (!reference.success) failures++;
      }
      expect(failures).toBeGreaterThan(100); // the mutations reach the error paths on both sides
    }
  });

  it('accepts a stability run by hand exactly when its schema does (both derived from one declaration)', () => {
    const rnd = seeded(97);
    const byHand = shapeTest(runShape);
    let accepted = 0;
    for (const value of mutatedValues(RUNS, 2000, rnd)) {
      const fast = byHand(value);
      expect([fast, JSON.stringify(value)]).toEqual([
        runLineSchema.safeParse(value).success,
        JSON.stringify(value),
      ]);
      if (fast) accepted++;
    }
    expect(accepted).toBeGreaterThan(200);
    expect(accepted).toBeLessThan(2000);
  });

  it.each([
    ['nested objects', nestedA.trace, nestedA.traceFields],
    ['array indices, escaped keys, a parent mapped whole', nestedB.trace, nestedB.traceFields],
  ] as const)(
    'reads a trace mapped by fields: (%s) from its bytes only when JSON.parse, the mapping and the contract do',
    (_, shape, fields) => {
      const lines = TRACES.map((l) => JSON.stringify(shape(JSON.parse(l) as TraceLine)));
      const scanner = mappedTraceScanner(fields);
      const map = compileFieldMap(fields, traceShape)!;
      const found = traceFields();
      const fromBytes = (line: string) => {
        const b = Buffer.from(line);
        if (!scanTraceLine(b, 0, b.length, found, scanner)) return undefined;
        return {
          qid: scannedQid(b, found),
          ts: scannedTs(b, found) ?? null,
          judged: judgedTrace(b, b.length, found),
        };
      };
      const fromParse = (line: string) => {
        const t = asTraceLine(map.apply(parsedOrUndefined(line)));
        if (!t) return undefined;
        const { claim, citations, constraints_echo } = t.answer_json;
        const answer = { claim, citations, ...(constraints_echo ? { constraints_echo } : {}) };
        return {
          qid: t.qid,
          ts: t.ts ?? null,
          judged: { retrieved_ids: t.retrieved_ids, answer_json: answer },
        };
      };
      agreesWithParse(lines, lines.slice(0, 3), seeded(4646), fromBytes, fromParse);
    },
  );

  it('reads an OTLP export from its bytes only as JSON.parse and the span reader do', () => {
    const traces = TRACES.map((l) => JSON.parse(l) as TraceLine);
    const lines = otlpLines(traces, (t) => t.qid)
      .trimEnd()
      .split('\n');
    const scan = otlpScanner('llm.model_name');
    const fromBytes = (line: string) => {
      const b = Buffer.from(line);
      return scan(b, 0, b.length, 1, 'o.jsonl');
    };
    const fromParse = (line: string) => {
      try {
        return spanFacts(JSON.parse(line), 'o.jsonl', 1, 'llm.model_name');
      } catch {
        return undefined;
      }
    };
    const edge = [
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"1700000000123456789","endTimeUnixNano":1700000001000000000,"attributes":[{"value":{"intValue":"7"},"key":"retrieval.documents.1.document.id"},{"key":"retrieval.documents.0.document.id","value":{"stringValue":"d\\u00e9"}},{"key":"openinference.span.kind","value":{"stringValue":"retriever"}},{"key":"llm.model_name","value":{"doubleValue":1.5}}]}]}]}]}',
      // An int64 qid as its digits (exact past 2^53), a document index too large to hold, the latest time.
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"0","endTimeUnixNano":"9999999999999999999","attributes":[{"key":"llm.model_name","value":{"intValue":"-009007199254740993"}},{"key":"retrieval.documents.12345678901.document.id","value":{"stringValue":"d"}},{"key":"retrieval.documents.99999999999.document.id","value":{"intValue":"x"}},{"key":"input.value","value":{"doubleValue":"NaN"}},{"key":"output.value","value":{"intValue":9007199254740993}}]}]}]}]}',
    ];
    agreesWithParse(lines, edge, seeded(4747), fromBytes, fromParse);
  });

  it('decodes a JSON string into UTF-8 bytes as JSON.parse and Buffer.from do, refusing lone surrogates', () => {
    const rnd = seeded(5151);
    const pieces = ['a', 'é', '💥', '\\', '"', '\n', '\u0000', '\u2028', '\ud83d', '\ude00', '<', '{', ' '];
    const out = Buffer.alloc(256);
    let refused = 0;
    for (let i = 0; i < 5000; i++) {
      let text = '';
      for (let n = Math.floor(rnd() * 12); n > 0; n--) text += pieces[Math.floor(rnd() * pieces.length)];
      // Written as JSON.stringify does, or with every character beyond ASCII (and some within) as \uXXXX.
      let literal = JSON.stringify(text);
      if (rnd() < 0.5)
        literal = literal.replace(
          /[^\x20-\x7e]|[<{]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
      const b = Buffer.from(literal);
      const n = unescapeInto(b, 0, b.length, out);
      const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
      if (lone) refused++;
      expect([literal, n < 0 ? null : out.subarray(0, n).toString('hex')]).toEqual([
        literal,
        lone ? null : Buffer.from(JSON.parse(literal) as string).toString('hex'),
      ]);
    }
    expect(refused).toBeGreaterThan(100);
    expect(unescapeInto(Buffer.from('"abc"'), 0, 5, Buffer.alloc(2))).toBe(-1);
  });

  it('checks an OTLP trace read with placeholders exactly as with its values: verdict, qid, time and error', () => {
    const rnd = seeded(5252);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const answers = [
      '{"claim":"x","citations":["a"]}',
      '{"claim":"x","citations":["a"],"constraints_echo":["c"],"extra":{"y":[1]}}',
      ' {"claim":"x","citations":[]}',
      '\n{"claim":"x","citations":[]}',
      '\u00a0{"claim":"x","citations":[]}',
      '{"claim":"x","claim":5,"citations":[]}',
      '{"claim":5,"citations":[]}',
      '{"claim":"x","citations":[1]}',
      '{"claim":"x"}',
      '{"claim":"x","citations":[],"constraints_echo":"c"}',
      '{"claim":"<é & 💥>","citations":["d<1>"]}',
      '{"claim":"x",',
      '[]',
      '["a"]',
      '',
      'plain text',
      '<p>text</p>',
      'é text',
      '{}',
      'null',
      '"x"',
      '\ud800{',
    ];
    const metadata = [
      '{"qid":"q1"}',
      '{"tenant":"t","qid":"q<2>"}',
      '{"qid":""}',
      '{"qid":5}',
      '{"qid":"a","qid":"b"}',
      '{"qid":"a","qid":7}',
      '{"tenant":"t"}',
      ' {"qid":"q3"} ',
      'qid',
      '{"qid":"é',
      '[{"qid":"q"}]',
      '{"qid":null}',
    ];
    const traces = TRACES.map((l) => JSON.parse(l) as TraceLine);
    const base = otlpLines(traces, (t) => t.qid)
      .trimEnd()
      .split('\n');
    const varied = (line: string): string => {
      const o = JSON.parse(line) as {
        resourceSpans: { scopeSpans: { spans: { attributes: { key: string; value: unknown }[] }[] }[] }[];
      };
      for (const span of o.resourceSpans[0]!.scopeSpans[0]!.spans)
        for (const a of span.attributes) {
          if (a.key === 'output.value' && rnd() < 0.7)
            a.value = { stringValue: pick(['', '', ' ', '\n', '\t', '\u00a0', '\ufeff']) + pick(answers) };
          if (a.key === 'metadata' && rnd() < 0.4) a.value = { stringValue: pick(metadata) };
          if (a.key === 'retrieval.documents.1.document.id' && rnd() < 0.1)
            a.value = pick([{ intValue: '3' }, {}]);
          if (a.key === 'input.value' && rnd() < 0.1) a.value = { boolValue: true };
        }
      const text = JSON.stringify(o);
      // Go's encoder writes <, > and & (and here anything beyond ASCII) as \uXXXX.
      return rnd() < 0.5
        ? text.replace(/[<>&]|[^ -~\t\n\r]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
        : text;
    };
    const checker = recordChecker(traceLineSchema, traceTest, undefined, TRACE_WHAT, traceShape);
    let good = 0;
    let bad = 0;
    let placedRuns = 0;
    let notPlaced = 0;
    const placed = placedReader();
    const judgedOf = runReader();
    for (const qid of ['metadata.qid', 'input.value']) {
      const full = lineSpans(undefined);
      const lean = lineSpans(undefined, leanReader(qid));
      /** Each trace of the line: its qid and time, or its error; or the line's own error. */
      const outcome = (spansOf: typeof full, line: string) => {
        const b = Buffer.from(line);
        try {
          const spans = spansOf(b, 0, b.length, 1, 'o.jsonl');
          const byTrace = new Map<string, typeof spans>();
          for (const x of spans) byTrace.set(x.traceId, [...(byTrace.get(x.traceId) ?? []), x]);
          return [...byTrace.values()].map((group) => {
            try {
              const r = assemble(group, { qid });
              const t = checker.check(r.value, r.file, r.line);
              good++;
              return { qid: t.qid, ts: t.ts, latency: t.latency_ms, line: r.line };
            } catch (err) {
              if (!(err instanceof InputError)) throw err;
              bad++;
              return { error: err.message };
            }
          });
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          return err.message;
        }
      };
      /**
       * What judging reads of each trace of the line that checks, from the places the lean scan noted (see
       * otlp-places.ts): undefined where it has none or they cannot tell its output; and from its values.
       */
      const byPlaces = (line: string) => {
        const b = Buffer.from(line);
        const traces = (spansOf: typeof full) => {
          const byTrace = new Map<string, SpanFacts[]>();
          for (const x of spansOf(b, 0, b.length, 1, 'o.jsonl', 0))
            byTrace.set(x.traceId, [...(byTrace.get(x.traceId) ?? []), x]);
          return byTrace;
        };
        let leanTraces: Map<string, SpanFacts[]>;
        try {
          leanTraces = traces(lean);
        } catch {
          return [];
        }
        const fullTraces = traces(full);
        const out: [unknown, unknown][] = [];
        for (const [id, group] of leanTraces) {
          let spans;
          try {
            const r = assemble(group, { qid });
            checker.check(r.value, 'o.jsonl', 1);
            spans = r.spans!;
          } catch {
            continue;
          }
          const places: number[] = [];
          const run = notePlaces(spans, 0, places) ? placed(b, 0, places) : undefined;
          const t = checker.check(assemble(fullTraces.get(id)!, { qid }).value, 'o.jsonl', 1);
          const { claim, citations, constraints_echo } = t.answer_json;
          const judged = {
            retrieved_ids: t.retrieved_ids,
            answer_json: { claim, citations, ...(constraints_echo ? { constraints_echo } : {}) },
          };
          if (run) placedRuns++;
          else notPlaced++;
          out.push([run && judgedOf(run), run && judged]);
        }
        return out;
      };
      for (let i = 0; i < 6000; i++) {
        let line = varied(base[i % base.length]!);
        if (rnd() < 0.2) line = mutate(line, rnd).split('\n')[0]!;
        expect([line, outcome(lean, line)]).toEqual([line, outcome(full, line)]);
        for (const [fromPlaces, fromValues] of byPlaces(line))
          expect([line, fromPlaces]).toEqual([line, fromValues]);
      }
    }
    expect(good).toBeGreaterThan(3000);
    expect(bad).toBeGreaterThan(1000);
    expect(placedRuns).toBeGreaterThan(1000);
    expect(notPlaced).toBeGreaterThan(100);
  });

  it("accepts a partial's offender fields by hand only when the zod schema does, and all it does but __proto__", () => {
    const rnd = seeded(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const members: unknown[] = [
      '',
      'claim',
      0,
      -1.5,
      1e300,
      true,
      false,
      null,
      [],
      ['d1#2', ''],
      [1],
      ['a', null],
    ];
    members.push({}, { a: 'b' }, [[]], 'x'.repeat(3));
    const keys = ['question', 'claim', 'trace', '', '__proto__', 'constructor', 'toString', '0'];
    const counts = { accepted: 0, refused: 0 };
    for (let i = 0; i < 4000; i++) {
      const text =
        i % 10 === 0
          ? JSON.stringify(pick([null, 1, 'fields', [], [{}], true]))
          : `{${Array.from({ length: Math.floor(rnd() * 5) }, () => `${JSON.stringify(pick(keys))}:${JSON.stringify(pick(members))}`).join(',')}}`;
      const value: unknown = JSON.parse(text);
      const zod = offenderFieldsSchema.safeParse(value);
      const fast = isOffenderFields(value);
      // zod leaves out an own __proto__ member, whatever it holds; the test by hand refuses any (the merge then
      // asks zod): the only way they may differ.
      if (fast || !text.includes('"__proto__"')) expect([text, fast]).toEqual([text, zod.success]);
      if (fast) expect(zod.data).toEqual(value);
      counts[fast ? 'accepted' : 'refused']++;
    }
    expect(counts.accepted).toBeGreaterThan(500);
    expect(counts.refused).toBeGreaterThan(500);
  });

  it('accepts a trace line by hand exactly when the zod contract does', () => {
    const rnd = seeded(99);
    let accepted = 0;
    for (const value of mutatedValues(TRACES, 3000, rnd)) {
      const fast = asTraceLine(value) !== undefined;
      expect([fast, JSON.stringify(value)]).toEqual([
        traceLineSchema.safeParse(value).success,
        JSON.stringify(value),
      ]);
      if (fast) accepted++;
    }
    expect(accepted).toBeGreaterThan(300);
  });

  it('accepts a trace line from its bytes only when JSON.parse and the contract do, with their values', () => {
    const rnd = seeded(4242);
    const fields = traceFields();
    /** What scanTraceLine found, in JSON.parse's terms; undefined when it refused the line. */
    const fromBytes = (line: string) => {
      const b = Buffer.from(line);
      if (!scanTraceLine(b, 0, b.length, fields)) return undefined;
      return {
        qid: scannedQid(b, fields),
        ts: scannedTs(b, fields) ?? null,
        judged: judgedTrace(b, b.length, fields),
      };
    };
    const fromParse = (line: string) => {
      const t = asTraceLine(parsedOrUndefined(line));
      const { claim, citations, constraints_echo } = t?.answer_json ?? {};
      const answer = { claim, citations, ...(constraints_echo ? { constraints_echo } : {}) };
      return (
        t && { qid: t.qid, ts: t.ts ?? null, judged: { retrieved_ids: t.retrieved_ids, answer_json: answer } }
      );
    };
    // Escapes, text beyond ASCII, a repeated key (JSON.parse keeps the last) and an echo only the first had.
    const edge = [
      '{"qid":"q\\u00e9\\"1","retrieved_ids":["d1","d\\n2", "\\ud83d\\ude00"],"answer_json":{"claim":"été 💥 \\\\","citations":[]}}',
      '{"qid":"q","retrieved_ids":["a"],"retrieved_ids":[ "b" , "c" ],"answer_json":{"claim":"x","citations":["a"],"constraints_echo":["k"]},"answer_json":{"claim":"y","citations":["b"]}}',
      '{ "answer_json" : { "constraints_echo" : [ ] , "citations" : [ "z" ] , "claim" : "" } , "qid" : "é" , "retrieved_ids" : [ ] }',
    ];
    agreesWithParse(TRACES, edge, rnd, fromBytes, fromParse);
  });

  it('tags the JSON bytes of a trace member only when JSON.parse gives a value of that shape, read alike', () => {
    // What Parquet traces keep unparsed (member-shapes.ts): retrieved_ids and answer_json of the example traces.
    const members = TRACES.flatMap((line) => {
      const t = JSON.parse(line) as TraceLine;
      return [JSON.stringify(t.retrieved_ids), JSON.stringify(t.answer_json, null, 1)];
    });
    const shapeOf = memberShapes();
    const read = memberReader();
    const none = Buffer.from('{"claim":"","citations":[]}');
    // Tagged bytes are also read as judging reads them, on the thread the pages are handed to.
    const fromBytes = (text: string) => {
      const b = Buffer.from(text);
      const shape = shapeOf(b);
      if (!shape) return undefined;
      const judged = shape === STRINGS ? read(b, none).retrieved_ids : read(Buffer.from('[]'), b).answer_json;
      return { shape, value: JSON.parse(text) as unknown, judged };
    };
    const fromParse = (text: string) => {
      const value = parsedOrUndefined(text);
      const strings = Array.isArray(value) && value.every((v) => typeof v === 'string');
      const answer = asTraceLine({ qid: 'q', retrieved_ids: [], answer_json: value }) !== undefined;
      if (strings) return { shape: STRINGS, value, judged: value };
      if (!answer) return undefined;
      const { claim, citations, constraints_echo } = value as TraceLine['answer_json'];
      const judged = { claim, citations, ...(constraints_echo ? { constraints_echo } : {}) };
      return { shape: ANSWER, value, judged };
    };
    const edge = [
      ' [ "d1" , "d\\u00e9\\n" ] ',
      '[]',
      '{"claim":"été \\ud83d\\ude00","citations":[],"extra":{"a":[1e999,null]}}',
      '{"citations":["a"],"claim":"x","claim":"y","constraints_echo":["k"]}',
    ];
    agreesWithParse(members, edge, seeded(4646), fromBytes, fromParse);
  });

  it("builds canonical JSON from a line's bytes exactly as canonicalJson(JSON.parse(line)) does", () => {
    const fromParse = (line: string) => {
      try {
        return canonicalJson(JSON.parse(line));
      } catch {
        return undefined;
      }
    };
    const fromBytes = (line: string) => {
      const b = Buffer.from(line);
      return canonicalJsonOfBytes(b, 0, b.length);
    };
    const edge = [
      '{"b":[1e2,-0,1.50,1e999,0.1e-7,123456789012345678901234567890,-1E-400],"a":{"z":null,"y":true,"x":false}}',
      '{"s":"\\u00e9\\ud800\\u2028\\/\\b\\f\\n\\r\\t\\"\\\\","raw":"é\u2028💥\u007f","k":1,"k":[2],"__proto__":{"x":1}}',
      ' [ {"b":1,"a":[{}, [], "", [[{"c":{}}]]]} , 3 ] \r',
      '"a string"',
      '-12.5e+3',
      '{"10":1,"9":2,"a":3,"B":4,"é":5,"\u00e9x":6}',
    ];
    agreesWithParse(GOLD, edge, seeded(4545), fromBytes, fromParse);
  });

  it("writes a line's canonical JSON as bytes only where they are canonicalJson(JSON.parse(line))'s", () => {
    const write = canonicalBytesWriter();
    const fromParse = (line: string | Buffer) => {
      try {
        return Buffer.from(canonicalJson(JSON.parse(line.toString())));
      } catch {
        return undefined;
      }
    };
    const fromBytes = (line: string | Buffer) => {
      const b = Buffer.from(line);
      const out = write(b, 0, b.length);
      return out && Buffer.from(out);
    };
    const accepted = [
      '{"b":[1e2,-0,1.50,1e999,0.1e-7,123456789012345678901234567890,-1E-400,-12,0,999999999999999,1234567890123456],"a":{"z":null,"y":true,"x":false}}',
      '{"raw":"é\u2028💥\u007f","k":1,"__proto__":{"x":1},"": ""}',
      ' [ {"b":1,"a":[{}, [], "", [[{"c":{},"a":-0.0}]]]} , 3 ] \r',
      '"a string"',
      '-12.5e+3',
      '{"10":1,"9":2,"a":3,"B":4,"_":5}',
      '{"z":{"y":{"x":{"w":[{"v":1,"u":2}]}}},"a":[1,[2,[3]]]}',
    ];
    for (const line of [...accepted, ...GOLD, ...FIXTURE_GOLD]) {
      const bytes = fromBytes(line);
      if (accepted.includes(line) || GOLD.includes(line))
        expect([line, bytes]).toEqual([line, fromParse(line)]);
      else if (bytes) expect([line, bytes]).toEqual([line, fromParse(line)]);
    }
    // Where it is unsure, it says so; what the caller then makes of the line is canonicalJsonOfBytes's.
    const unsure = [
      '{"s":"\\n"}',
      '{"k":1,"k":[2]}',
      '{"b":1,"a":2,"b":3}',
      '{"é":1}',
      '\ufeff{"a":1}',
      '{"a":1} x',
      Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0x41]), Buffer.from('"}')]),
      `${'['.repeat(70)}${']'.repeat(70)}`,
    ];
    for (const line of unsure) expect([line, fromBytes(line)]).toEqual([line, undefined]);
    const rnd = seeded(4747);
    let taken = 0;
    for (let i = 0; i < 20000; i++) {
      let line = GOLD[i % GOLD.length]!;
      for (let j = Math.floor(rnd() * 4); j > 0; j--) line = mutate(line, rnd).split('\n')[0]!;
      const bytes = fromBytes(line);
      if (!bytes) continue;
      taken++;
      expect([line, bytes]).toEqual([line, fromParse(line)]);
    }
    expect(taken).toBeGreaterThan(5000);
  });

  it('accepts a gold line from its bytes only when JSON.parse and the contract do, with their values', () => {
    const rnd = seeded(4343);
    const fields = goldFields();
    const fromBytes = (line: string) => {
      const b = Buffer.from(line);
      return scanGoldLine(b, 0, b.length, fields) ? loadedGold(b, b.length, fields) : undefined;
    };
    const fromParse = (line: string) => {
      const g = asGoldLine(parsedOrUndefined(line));
      if (!g) return undefined;
      const { qid, answerable, gold_claim_substr, gold_citations, constraints } = g;
      return { qid, answerable, gold_claim_substr, gold_citations, ...(constraints ? { constraints } : {}) };
    };
    const edge = [
      '{"qid":"\\u0071","question":"\\"?","answerable":false,"gold_claim_substr":[],"gold_citations":["d\\t1"],"x":{"y":[1,{"z":null}]}}',
      '{"qid":"a","question":"","answerable":true,"answerable":false,"gold_claim_substr":["ééééé"],"gold_citations":[],"constraints":["c"],"constraints":[]}',
      ' { "notes" : "n" , "gold_citations" : [ "💥" ] , "gold_claim_substr" : [ ] , "answerable" : true , "question" : "q" , "qid" : "é" } ',
    ];
    // Values the contract refuses go to JSON.parse and the schema, which word the error.
    for (const bad of [
      '{"qid":"","question":"q","answerable":true,"gold_claim_substr":[],"gold_citations":[]}',
      '{"qid":"a","question":"q","answerable":true,"gold_claim_substr":[],"gold_citations":[],"notes":null}',
      '{"qid":"a","question":"q","answerable":1,"gold_claim_substr":[],"gold_citations":[]}',
      '{"qid":"a","question":"q","answerable":true,"gold_claim_substr":[]}',
    ])
      expect([bad, fromBytes(bad)]).toEqual([bad, undefined]);
    agreesWithParse(GOLD, edge, rnd, fromBytes, fromParse);
  });

  it.each([
    [
      'duplicate keys: the last one counts',
      '{"qid":"a","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]},"qid":"b","ts":1,"ts":"2026-01-01"}',
      { qid: 'b', ts: '2026-01-01' },
    ],
    [
      'a key spelled with escapes is the same key',
      '{"qid":"a","q\\u0069d":5,"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      'escapes and non-ASCII in the qid',
      '{"qid":"\\u00e9t\\u00e9 \\"x\\" é","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      { qid: 'été "x" é', ts: null },
    ],
    [
      'a number too large to be finite',
      '{"qid":"a","ts":1e999,"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      '-0 is a latency of zero',
      '{"qid":"a","latency_ms":-0,"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      { qid: 'a', ts: null },
    ],
    [
      'a negative latency',
      '{"qid":"a","latency_ms":-1,"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      'spaces, tabs and CRs between tokens',
      ' \t{ "qid" :\r"a" , "retrieved_ids" : [ "x" , "y" ] ,"answer_json":{ "claim":"c" ,"citations":[ ] } }\t',
      { qid: 'a', ts: null },
    ],
    [
      'a raw control character in a string',
      '{"qid":"a\u0001","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      'a raw tab in a string',
      '{"qid":"a\t","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      'a raw unit separator (U+001F) in a string',
      '{"qid":"a\u001f","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      undefined,
    ],
    [
      'a raw DEL (U+007F) in a string, which JSON allows',
      '{"qid":"a\u007f","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}',
      { qid: 'a\u007f', ts: null },
    ],
    [
      'trailing text',
      '{"qid":"a","retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}} x',
      undefined,
    ],
    [
      'null constraints_echo',
      '{"qid":"a","retrieved_ids":[],"answer_json":{"claim":"c","citations":[],"constraints_echo":null}}',
      undefined,
    ],
    [
      'deep extra values',
      '{"qid":"a","x":[{"y":[[[{"z":[1,-2.5e+3,true,false,null,"\\/"]}]]]}],"retrieved_ids":[],"answer_json":{"claim":"c","citations":[],"more":{}}}',
      { qid: 'a', ts: null },
    ],
    [
      'nesting past the depth limit, left to JSON.parse',
      `{"qid":"a","x":${'{"y":'.repeat(70)}1${'}'.repeat(70)},"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}`,
      undefined,
    ],
    [
      'nesting just within it',
      `{"qid":"a","x":${'{"y":'.repeat(62)}1${'}'.repeat(62)},"retrieved_ids":[],"answer_json":{"claim":"c","citations":[]}}`,
      { qid: 'a', ts: null },
    ],
  ])('%s', (_, line, expected) => {
    const fields = traceFields();
    const b = Buffer.from(line);
    const ok = scanTraceLine(b, 0, b.length, fields);
    const got = ok
      ? {
          qid: scannedQid(b, fields),
          ts: scannedTs(b, fields) ?? null,
        }
      : undefined;
    expect(got).toEqual(expected);
    if (expected) expect(asTraceLine(JSON.parse(line))).toBeTruthy();
  });

  it('turns every mutated gates.yaml into a result or a one-line InputError', async () => {
    const rnd = seeded(7);
    const dir = tmpTree({
      'gold.jsonl': GOLD.join('\n'),
      'traces.jsonl': TRACES.join('\n'),
    });
    const base = CONFIG.replace('gold/qa.gold.jsonl', 'gold.jsonl').replace(
      'runs/qa.trace.jsonl',
      'traces.jsonl',
    );
    let errors = 0;
    for (let i = 0; i < 300; i++) {
      let text = base;
      for (let j = 0; j < 1 + Math.floor(rnd() * 2); j++) {
        const at = Math.floor(rnd() * text.length);
        text =
          rnd() < 0.5
            ? text.slice(0, at) + text.slice(at + 1 + Math.floor(rnd() * 4))
            : text.slice(0, at) + JUNK[Math.floor(rnd() * JUNK.length)] + text.slice(at);
      }
      writeFileSync(path.join(dir, 'gates.yaml'), text);
      if ((await expectCleanOutcome(dir)) === 'input-error') errors++;
    }
    expect(errors).toBeGreaterThan(100);
  });
});
