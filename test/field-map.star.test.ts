import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { readJsonlFile } from './helpers/formats.js';
import { jsonl } from './helpers/tmp.js';
import { scored, scoredPart } from './helpers/scored.js';
import { fieldsError } from './helpers/config-error.js';

// `*` in a `fields:` pointer: every element of the array there. The example's traces and gold with their
// ids kept as lists of objects, as most pipelines write them, score exactly as the canonical files.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = {
  good: readJsonlFile<TraceLine>('runs/qa.trace.jsonl'),
  regressed: readJsonlFile<TraceLine>('runs/qa-regressed.trace.jsonl'),
};
const QA = { kind: 'grounded-qa', k: 5, scu: true };
const WHAT = '(a trace {qid, retrieved_ids, answer_json: {claim, citations}})';

/** A trace as a pipeline writes it: each retrieved chunk an object with its score, each source a link. */
const listed = (t: TraceLine) => ({
  qid: t.qid,
  ts: t.ts,
  contexts: t.retrieved_ids.map((id, i) => ({ doc_id: id, score: 1 - i / 10 })),
  output: {
    text: t.answer_json.claim,
    sources: t.answer_json.citations.map((id) => ({ id, url: `https://docs.example/${id}` })),
    echo: t.answer_json.constraints_echo,
  },
  latency_ms: t.latency_ms,
});
const LISTED = {
  '/retrieved_ids': '/contexts/*/doc_id',
  '/answer_json/claim': '/output/text',
  '/answer_json/citations': '/output/sources/*/id',
  '/answer_json/constraints_echo': '/output/echo',
};
/** Gold whose citations are evidence objects and whose substrings are facts. */
const listedGold = ({ gold_citations, gold_claim_substr, ...g }: GoldLine) => ({
  ...g,
  evidence: gold_citations.map((chunk) => ({ chunk, page: 1 })),
  facts: gold_claim_substr.map((text) => ({ text })),
});
const LISTED_GOLD = { '/gold_citations': '/evidence/*/chunk', '/gold_claim_substr': '/facts/*/text' };

async function errorOf(files: Record<string, string>, suite: Record<string, unknown>): Promise<string> {
  return scored(files, { s: suite }).then(
    () => 'no error',
    (err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return err.message.replace(/[^\s(]*groundgate-test-[^/]+\//g, '');
    },
  );
}

describe.each(Object.entries(TRACES))('the %s example with ids in lists of objects', (_, traces) => {
  it('scores exactly as the canonical files: every metric, count, triage stage and offender', async () => {
    const suites = await scored(
      {
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(traces),
        'gold-listed.jsonl': jsonl(GOLD.map(listedGold)),
        'traces-listed.jsonl': jsonl(traces.map(listed)),
      },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        listed: {
          ...QA,
          gold: 'gold-listed.jsonl',
          traces: 'traces-listed.jsonl',
          fields: { traces: LISTED, gold: LISTED_GOLD },
        },
      },
    );
    const canonical = suites.canonical!;
    // The example's own figures, so that equal cannot mean equally empty.
    expect(Object.keys(canonical.metrics)).toHaveLength(9);
    expect(canonical.counts.trace_lines).toBe(traces.length);
    expect(canonical.offenders.length).toBeGreaterThan(0);
    expect(scoredPart(suites.listed)).toEqual(scoredPart(canonical));
    expect(suites.listed!.offenders.map((o) => o.trace)).toEqual(
      canonical.offenders.map((o) =>
        (o.trace as string | undefined)?.replace('traces.jsonl', 'traces-listed.jsonl'),
      ),
    );
  });
});

describe('errors name the element, with the pointer the user wrote', () => {
  const traces = TRACES.good.map(listed);
  const base = { ...QA, gold: 'gold.jsonl', traces: 'mine.jsonl', fields: { traces: LISTED } };
  const withLine = (i: number, change: (t: ReturnType<typeof listed>) => Record<string, unknown>) =>
    jsonl(traces.map((t, j) => (j === i ? change(t) : t)));

  it('an element without the member, or with one that is not a string', async () => {
    const missing = withLine(11, (t) => ({
      ...t,
      contexts: t.contexts.map((c, k) => (k === 3 ? { score: 1 } : c)),
    }));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': missing }, base)).toBe(
      `mine.jsonl:12: /contexts/3/doc_id (retrieved_ids[3]): missing; expected string ${WHAT}`,
    );
    const notObject = withLine(2, (t) => ({ ...t, contexts: ['keys#1'] }));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': notObject }, base)).toBe(
      `mine.jsonl:3: /contexts/0/doc_id (retrieved_ids[0]): missing; expected string ${WHAT}`,
    );
    const number = withLine(4, (t) => ({
      ...t,
      output: { ...t.output, sources: [{ id: 'keys#1' }, { id: 7 }] },
    }));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': number }, base)).toBe(
      `mine.jsonl:5: /output/sources/1/id (answer_json.citations[1]): expected string, found number ${WHAT}`,
    );
  });

  it('no array where the "*" is, or nothing there', async () => {
    const object = withLine(0, (t) => ({ ...t, contexts: { doc_id: 'keys#1' } }));
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': object }, base)).toBe(
      `mine.jsonl:1: /contexts (retrieved_ids): expected array, found object ${WHAT}`,
    );
    const absent = withLine(6, ({ contexts: _, ...t }) => t);
    expect(await errorOf({ 'gold.jsonl': jsonl(GOLD), 'mine.jsonl': absent }, base)).toBe(
      `mine.jsonl:7: /contexts (retrieved_ids): missing; expected array ${WHAT}`,
    );
  });

  it('gold: an evidence item without its chunk', async () => {
    const gold = GOLD.map(listedGold);
    gold[8] = { ...gold[8]!, evidence: [...gold[8]!.evidence, { page: 2 } as never] };
    const suite = { ...QA, gold: 'gold-listed.jsonl', traces: 'traces.jsonl', fields: { gold: LISTED_GOLD } };
    expect(
      await errorOf({ 'gold-listed.jsonl': jsonl(gold), 'traces.jsonl': jsonl(TRACES.good) }, suite),
    ).toBe(
      `gold-listed.jsonl:9: /evidence/${gold[8]!.evidence.length - 1}/chunk (gold_citations[${gold[8]!.evidence.length - 1}]): missing; expected string (a gold item {qid, question, answerable, gold_claim_substr, gold_citations})`,
    );
  });

  it('an empty array is an empty list', async () => {
    const empty = (t: TraceLine, i: number) =>
      i === 1 ? { ...t, retrieved_ids: [], answer_json: { ...t.answer_json, citations: [] } } : t;
    const canonical = TRACES.good.map(empty);
    const suites = await scored(
      {
        'gold.jsonl': jsonl(GOLD),
        'traces.jsonl': jsonl(canonical),
        'mine.jsonl': jsonl(canonical.map(listed)),
      },
      { canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' }, listed: base },
    );
    expect(jsonl(canonical.map(listed)).split('\n')[1]).toContain('"contexts":[]');
    expect(scoredPart(suites.listed)).toEqual(scoredPart(suites.canonical));
  });
});

describe('gates.yaml refuses a "*" it cannot read, where it is written', () => {
  const configError = fieldsError;

  it('two "*" in one pointer', async () => {
    expect(await configError(['        /retrieved_ids: /runs/*/contexts/*/id'])).toBe(
      'gates.yaml:9:25: suite "s": fields.traces./retrieved_ids: "/runs/*/contexts/*/id" has 2 "*" tokens; expected at most one (every element of one array)',
    );
  });

  it('"*" for a member that is not a list of strings', async () => {
    expect(await configError(['        /qid: /requests/*/id'])).toBe(
      'gates.yaml:9:15: suite "s": fields.traces./qid: "/requests/*/id" reads every element of an array ("*"), which only a list of strings holds; expected "*" only for /retrieved_ids, /answer_json/citations, /answer_json/constraints_echo',
    );
    expect(await configError(['        /answer_json: /choices/*/message'])).toMatch(
      /^gates\.yaml:9:23: suite "s": fields\.traces\.\/answer_json: "\/choices\/\*\/message" reads every element/,
    );
  });
});
