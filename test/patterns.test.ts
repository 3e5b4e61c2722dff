import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { otlpLines, readJsonlFile } from './helpers/formats.js';
import { checkOnThreads } from './helpers/process.js';
import { jsonl, tmpTree } from './helpers/tmp.js';
import { scored } from './helpers/scored.js';

// gates.yaml patterns run on RE2 (issue #54): the patterns a backtracking engine takes minutes or hours on
// (`a*a*b`: 34 s on 5,000 characters; `a*a*a*b`: past 30 s on 1,000) judge 20 kB claims through the real
// loader and scorer, with the verdicts counted by hand.

type Report = {
  metrics: Record<string, { value?: number | null; numerator?: number; denominator?: number }>;
  counts: Record<string, number>;
};

const RUN = 'a'.repeat(20_000);
const QA = { kind: 'grounded-qa', k: 5, gold: 'gold.jsonl' };
const item = (qid: string, answerable: boolean, citations: string[], constraints: string[] = []) => ({
  qid,
  question: `${qid}?`,
  answerable,
  gold_claim_substr: answerable ? ['sky'] : [],
  gold_citations: citations,
  constraints,
});
const trace = (qid: string, claim: string, more: object = {}) => ({
  qid,
  retrieved_ids: ['d1', 'aa'],
  answer_json: { claim, ...more },
});

describe('gates.yaml patterns on 20 kB claims', () => {
  it.each(['a*a*b', '.*.*x', 'a*a*a*b'])(
    'refusal pattern %s: the answer with no match is shipped, the claim that ends in a match is refused',
    async (pattern) => {
      const suites = await scored<Report>(
        {
          'gold.jsonl': jsonl([item('A', true, ['d1']), item('U', false, [])]),
          // A's claim has no b and no x: every pattern fails at each of its 20,000 starts.
          'traces.jsonl': jsonl([
            trace('A', `sky ${RUN}`, { citations: ['d1'] }),
            trace('U', `${RUN}bx`, { citations: [] }),
          ]),
        },
        {
          ruled: { ...QA, traces: 'traces.jsonl', refusal: { patterns: [pattern] } },
          unruled: { ...QA, traces: 'traces.jsonl' },
        },
      );
      expect(suites.ruled!.counts).toMatchObject({ answered: 1, refused: 1 });
      expect(suites.ruled!.metrics.precision).toMatchObject({ numerator: 1, denominator: 1 });
      expect(suites.ruled!.metrics.under_refusal).toMatchObject({ numerator: 0, denominator: 1 });
      // Without the pattern U's claim is an answer to an unanswerable question.
      expect(suites.unruled!.metrics.under_refusal).toMatchObject({ numerator: 1, denominator: 1 });
    },
  );

  it('citation marker (a*)a*b: capture group 1 of the one match is the citation, a claim without one cites nothing', async () => {
    const suites = await scored<Report>(
      {
        'gold.jsonl': jsonl([item('A', true, ['aa']), item('B', true, ['aa'])]),
        // A's only b follows " aa": the match is "aab", its group "aa" (the first a* is greedy).
        'traces.jsonl': jsonl([trace('A', `sky ${RUN} aab`), trace('B', `sky ${RUN}`)]),
      },
      {
        qa: {
          ...QA,
          traces: 'traces.jsonl',
          citation_markers: { pattern: '(a*)a*b', refers_to: 'id' },
        },
      },
    );
    expect(suites.qa!.counts).toMatchObject({ answered: 2, refused: 0 });
    expect(suites.qa!.metrics.chr).toMatchObject({ numerator: 1, denominator: 2 });
    expect(suites.qa!.metrics.precision).toMatchObject({ numerator: 1, denominator: 2 });
  });

  it('SCU contradiction a*a*a*b runs on the lowercased claim', async () => {
    const must = ['you must stay'];
    const suites = await scored<Report>(
      {
        'gold.jsonl': jsonl([item('A', true, ['d1'], must), item('B', true, ['d1'], must)]),
        'traces.jsonl': jsonl([
          trace('A', `sky ${RUN}`, { citations: ['d1'], constraints_echo: must }),
          trace('B', `sky ${RUN.toUpperCase()}B`, { citations: ['d1'], constraints_echo: must }),
        ]),
      },
      {
        qa: {
          ...QA,
          traces: 'traces.jsonl',
          scu: { default_rules: false, rules: [{ lock: 'must', contradiction: 'a*a*a*b' }] },
        },
      },
    );
    expect(suites.qa!.metrics.scu_violations).toMatchObject({ value: 1 });
    expect(suites.qa!.metrics.constraint_integrity).toMatchObject({ numerator: 1, denominator: 2 });
  });
});

describe('dist/cli: patterns cross to helper threads as their sources', () => {
  it('OpenInference traces judged on helper threads with refusal patterns, id markers and SCU: the report one thread writes', () => {
    const gold = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
    const question = new Map(gold.map((g) => [g.qid, g.question]));
    // The example's traces with each citation written as a [id] marker and each refusal reworded.
    const traces = readJsonlFile<TraceLine>('runs/qa.trace.jsonl').map((t) => {
      const { citations, ...answer } = t.answer_json;
      const claim =
        answer.claim === 'not in context'
          ? 'Sorry - no idea at all'
          : [answer.claim, ...citations.map((id) => `[${id}]`)].join(' ');
      return { ...t, answer_json: { ...answer, claim } as TraceLine['answer_json'] };
    });
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.otlp.jsonl': otlpLines(traces, (t) => question.get(t.qid) ?? t.qid),
    });
    const qa = {
      kind: 'grounded-qa',
      k: 5,
      scu: true,
      gold: 'gold.jsonl',
      traces: 'traces.otlp.jsonl',
      format: 'openinference',
      refusal: { patterns: ['^a*a*a*b$', '^sorry\\b.*\\bno idea'] },
      citation_markers: { pattern: '\\[([a-z]+#\\d+)\\]', refers_to: 'id' },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites: { qa } }));
    const report = (threads: string) => checkOnThreads(dir, threads);
    const one = report('1');
    expect(report('3')).toEqual(one);
    const counts = (JSON.parse(one.report) as { suites: { qa: Report } }).suites.qa.counts;
    // The example's figures (see refusal.test.ts): 15 refusal lines, 14 of them winning runs.
    expect(counts).toMatchObject({ traced: 47, refused: 14, answered: 33 });
  }, 60_000);
});
