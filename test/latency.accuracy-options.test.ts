import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as settings from '../src/grounded-answer/config.js';
import { DEFAULT_SCU_RULES } from '../src/grounded-answer/scu.js';
import { configSchema } from '../src/suites/latency/config.js';
import { scoreConfigurations } from '../src/suites/latency/accuracy.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/** latency's accuracy path judges with the options of the one builder grounded-qa judges with. */

// The builder as it is, watched: the latency path must take its options from it, not build its own.
vi.mock('../src/grounded-answer/config.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/grounded-answer/config.js')>();
  return { ...actual, scoreOptionsOf: vi.fn(actual.scoreOptionsOf) };
});

describe('scoreOptionsOf, the one builder of ScoreOptions', () => {
  it('gives every answer and input setting of gates.yaml, at the cutoffs asked', () => {
    const config = {
      refusal_token: 'n/a',
      refusal: { phrases: ['I cannot tell'], patterns: [] },
      citation_markers: { pattern: '\\[(\\d+)\\]', refers_to: 'rank' as const },
      scu: true,
      claims: { match: 'normalized', nfkc: true, min_token_recall: 1 },
      format: 'jsonl',
      fields: { traces: { '/qid': '/id' } },
    };
    expect(settings.scoreOptionsOf(config, [5, 10])).toEqual({
      refusalToken: 'n/a',
      refusal: { phrases: ['I cannot tell'], patterns: [] },
      markers: { pattern: '\\[(\\d+)\\]', refers_to: 'rank' },
      scuRules: DEFAULT_SCU_RULES,
      cutoffs: [5, 10],
      traces: { format: 'jsonl', qid: 'input.value', fields: { '/qid': '/id' }, markers: true },
      claims: { match: 'normalized', nfkc: true, min_token_recall: 1 },
    });
  });
});

describe("a latency suite's accuracy", () => {
  it("is judged with the builder's options: refusal phrases set in the suite refuse a claim", async () => {
    const dir = tmpTree({
      'gold.jsonl': jsonl(
        ['alpha one', 'beta two'].map((fact, i) => ({
          qid: `Q${i + 1}`,
          question: `q${i + 1}`,
          answerable: true,
          gold_claim_substr: [fact],
          gold_citations: [`d${i + 1}`],
        })),
      ),
      'runs/a.jsonl': jsonl([
        { qid: 'Q1', retrieved_ids: ['d1'], answer_json: { claim: 'alpha one', citations: ['d1'] } },
        {
          qid: 'Q2',
          retrieved_ids: ['d2'],
          answer_json: { claim: 'I cannot tell from these.', citations: [] },
        },
      ]),
    });
    const suite = { kind: 'latency', traces: 'runs/*.jsonl', gold: 'gold.jsonl' };
    const precision = async (extra: object) => {
      const config = configSchema.parse({ ...suite, ...extra });
      const builder = vi.mocked(settings.scoreOptionsOf);
      builder.mockClear();
      const { byConfiguration } = await scoreConfigurations(
        [path.join(dir, 'runs/a.jsonl')],
        [path.join(dir, 'gold.jsonl')],
        config,
        (f) => path.relative(dir, f),
      );
      // Latency reads precision, chr and coverage: no cutoff is asked for.
      expect(builder.mock.calls).toEqual([[config, []]]);
      return byConfiguration.get('runs/a.jsonl')!.precision;
    };
    // Shipped: Q1 (correct) and Q2, whose claim holds no fact: 1 of 2.
    expect(await precision({})).toBe(1 / 2);
    // Q2 refused by the phrase: Q1 alone is shipped, and correct.
    expect(await precision({ refusal: { phrases: ['I cannot tell'] } })).toBe(1);
  });
});
