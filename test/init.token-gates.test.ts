import { describe, expect, it } from 'vitest';
import { renderGates } from '../src/init/render.js';
import { sampledUsage, tokenGates } from '../src/init/token-gates.js';

// What init writes for a suite's token counts (src/init/token-gates.ts): the gate, and pricing: as an example.

describe('init token gates', () => {
  it('gates tokens_in only when today measured it', () => {
    expect(
      tokenGates({ tokens_in: { value: null, reason: 'no trace counts tokens' } }, ['tokens_in']),
    ).toEqual([]);
    expect(tokenGates({}, ['tokens_in'])).toEqual([]);
    expect(tokenGates({ tokens_in: { value: 1234.5678 } }, ['tokens_in'])).toEqual([
      {
        metric: 'tokens_in',
        fraction: 0.1,
        note: "measured 1234.57 per request; fails when the mean over the requests both runs have is more than 10% above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)",
      },
    ]);
  });

  it('names the sampled models in code-unit order, at most 5, with cached_input when a record counts cached tokens', () => {
    const models = ['m7', 'M1', 'm3', 'm2', 'm5', 'm4', 'm6', 'm3', ''];
    const records = models.map((model, i) => ({ model, ...(i === 2 && { tokens_cached: 0 }) }));
    expect(sampledUsage(records)).toEqual({
      models: ['M1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'],
      cached: true,
    });
    const lines = (usage?: ReturnType<typeof sampledUsage>) =>
      renderGates(
        [
          {
            proposal: {
              name: 'latency',
              kind: 'latency',
              inputs: { traces: 'r.jsonl' },
              why: [],
              ...(usage && { usage }),
            },
            gates: [],
            maxDrop: {},
            skipped: [],
            increases: tokenGates({ tokens_in: { value: 10 } }, ['tokens_in']),
          },
        ],
        { confidence: 0.95, day: '2026-12-07' },
      )
        .split('\n')
        .filter(
          (l) => l.startsWith('    #   ') || l.startsWith('    gates') || l.startsWith('      tokens_in'),
        );
    expect(lines(sampledUsage(records))).toEqual([
      '    #   M1: { input: <USD>, output: <USD>, cached_input: <USD> }',
      '    #   m2: { input: <USD>, output: <USD>, cached_input: <USD> }',
      '    #   m3: { input: <USD>, output: <USD>, cached_input: <USD> }',
      '    #   m4: { input: <USD>, output: <USD>, cached_input: <USD> }',
      '    #   m5: { input: <USD>, output: <USD>, cached_input: <USD> }',
      '    #   … (2 more models)',
      '    gates:',
      expect.stringMatching(/^ {6}tokens_in: \{ max_increase: 0\.1 \} # measured 10 per request; /),
    ]);
    // Given with --suite (no sample), or records that name no model: a name to replace; no cached counts.
    expect(lines()).toEqual([
      '    #   your-model-name: { input: <USD>, output: <USD> }',
      '    gates:',
      expect.stringMatching(/^ {6}tokens_in: /),
    ]);
    // A model name that YAML would misread is quoted, and a line break cannot end the comment.
    expect(lines({ models: ['a: b\nc'], cached: false })[0]).toBe(
      '    #   "a: b\\nc": { input: <USD>, output: <USD> }',
    );
  });
});
