import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderGates } from '../src/init/render.js';
import { sampledUsage, tokenGates } from '../src/init/token-gates.js';
import { run } from '../src/run.js';
import { gatesOf, init, qaRepo } from './helpers/init.js';
import { copyOf } from './helpers/shapes.js';

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
      counted: false,
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
    // Records that count tokens and name no model: the example is said not to apply until they name one.
    expect(lines({ counted: true, models: [], cached: false })).toEqual([
      '    #   your-model-name: { input: <USD>, output: <USD> }',
      '    gates:',
      expect.stringMatching(/^ {6}tokens_in: /),
    ]);
    // A model name that YAML would misread is quoted, and a line break cannot end the comment.
    expect(lines({ counted: true, models: ['a: b\nc'], cached: false })[0]).toBe(
      '    #   "a: b\\nc": { input: <USD>, output: <USD> }',
    );
  });
});

/** The gate init wrote on tokens_in, as check judges it on the data in `dir` now. */
async function tokensGate(dir: string) {
  const { report } = await run({ config: path.join(dir, 'gates.yaml') });
  return report.gates.find((g) => g.metric === 'tokens_in');
}

describe('init on grounded-qa traces that count tokens', () => {
  // The openinference-otlp shape: 12 runs of a LangChain chain under the OpenInference instrumentor, run i's
  // LLM span counting 1000 + i prompt tokens; FM002 asked twice (the later run, 1002, is its answer), so 11
  // answers of 1001 … 1011: mean 11066 / 11 = 1006.
  const EXPORT = 'traces/qa.otlp.jsonl';
  const prompt = (n: number) => `"llm.token_count.prompt","value":{"intValue":${n}}`;
  const grow = (dir: string, counts: readonly number[]) => {
    const file = path.join(dir, EXPORT);
    let text = readFileSync(file, 'utf8');
    for (const n of counts) text = text.replace(prompt(n), prompt(2 * n));
    writeFileSync(file, text);
  };

  it('gates tokens_in per answer by max_increase, paired against the baseline it commits', async () => {
    const dir = copyOf('openinference-otlp', 'project');
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(r.out).toContain(
      "  qa.tokens_in: max_increase 0.1, measured 1006 per answer; fails when the mean over the answers both runs have is more than 10% above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)\n",
    );
    const written = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    // The instrumentor names no model (LangChain's fake chat model has none); even runs count cached tokens.
    expect(written).toContain(
      [
        '    # pricing: USD per million tokens, as your provider lists them; yours to keep current (groundgate looks',
        "    # none up). With it, each answer's cost is reported and can be gated, e.g. cost: { max_increase: 0.1 }.",
        '    # The sampled traces name no model (model, llm.model_name, gen_ai.response.model): each answer is priced',
        '    # at the model it names, so record one before filling this in.',
        '    # pricing:',
        '    #   your-model-name: { input: <USD>, output: <USD>, cached_input: <USD> }',
        '    gates:',
      ].join('\n'),
    );
    expect(written).toContain(
      "      tokens_in: { max_increase: 0.1 } # measured 1006 per answer; fails when the mean over the answers both runs have is more than 10% above the baseline's (the base commit's report, else .groundgate/baseline.jsonl)\n",
    );
    // The committed baseline holds each answer's count: what the gate pairs with.
    const items = readFileSync(path.join(dir, '.groundgate/baseline.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: string; values?: { tokens_in?: number } })
      .filter((l) => l.id !== undefined);
    expect(items.map((l) => [l.id, l.values?.tokens_in])).toEqual([
      ['FM001', 1001],
      ['FM002', 1002],
      ['FM003', 1003],
      ['FM004', 1004],
      ['FM005', 1005],
      ['FM006', 1006],
      ['FM007', 1007],
      ['FM008', 1008],
      ['FM009', 1009],
      ['FM010', 1010],
      ['FM011', 1011],
    ]);
    expect(await tokensGate(dir)).toMatchObject({
      op: 'max_increase',
      passed: true,
      reason: '+0.0% (1006 → 1006) over 11 paired items',
    });
    // FM011's prompt doubled: (11066 + 1011) / 11 = 1097.91, +9.1%: passes. FM010's too: (11066 + 2021) / 11
    // = 1189.73, +18.3%: fails, naming the answers grown most.
    grow(dir, [1011]);
    expect(await tokensGate(dir)).toMatchObject({
      passed: true,
      reason: '+9.1% (1006 → 1097.91) over 11 paired items; grew most: FM011 tokens_in 1011 → 2022',
    });
    grow(dir, [1010]);
    expect(await tokensGate(dir)).toMatchObject({
      passed: false,
      reason:
        '+18.3% (1006 → 1189.73) over 11 paired items; grew most: FM011 tokens_in 1011 → 2022, FM010 tokens_in 1010 → 2020',
    });
  });

  it('names the models the JSON Lines traces name, and gates their tokens_in', async () => {
    const dir = qaRepo();
    const file = path.join(dir, 'runs/qa.trace.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    // 50 runs: run i counts 2000 + i input and 10 output tokens, by one of two models.
    writeFileSync(
      file,
      lines
        .map((l, i) =>
          JSON.stringify({
            ...(JSON.parse(l) as object),
            tokens_in: 2000 + i,
            tokens_out: 10,
            model: i % 2 ? 'gpt-4o-mini-2024-07-18' : 'claude-3-5-haiku-20241022',
          }),
        )
        .join('\n') + '\n',
    );
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    const written = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(written).toContain(
      [
        '    # pricing:',
        '    #   claude-3-5-haiku-20241022: { input: <USD>, output: <USD> }',
        '    #   gpt-4o-mini-2024-07-18: { input: <USD>, output: <USD> }',
        '    gates:',
      ].join('\n'),
    );
    expect(gatesOf(dir).suites.qa!.gates.tokens_in).toEqual({ max_increase: 0.1 });
    expect(await tokensGate(dir)).toMatchObject({ passed: true, reason: expect.stringMatching(/^\+0\.0% /) });
  });

  it("maps OpenAI's usage on traces in the contract's shape, a mapping init can do without", async () => {
    const withUsage = () => {
      const dir = qaRepo();
      const file = path.join(dir, 'runs/qa.trace.jsonl');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      // 50 runs: run i counts 3000 + i prompt and 20 completion tokens.
      writeFileSync(
        file,
        lines
          .map((l, i) =>
            JSON.stringify({
              ...(JSON.parse(l) as object),
              usage: { prompt_tokens: 3000 + i, completion_tokens: 20 },
            }),
          )
          .join('\n') + '\n',
      );
      return dir;
    };
    const dir = withUsage();
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).toContain(
      [
        '    fields: # proposed by groundgate init: your records mapped to the contract (docs/formats.md)',
        '      traces:',
        '        /tokens_in: /usage/prompt_tokens # usage.prompt_tokens → tokens_in (matched name "usage.prompt_tokens")',
        '        /tokens_out: /usage/completion_tokens # usage.completion_tokens → tokens_out (matched name "usage.completion_tokens")',
      ].join('\n'),
    );
    expect(gatesOf(dir).suites.qa!.gates.tokens_in).toEqual({ max_increase: 0.1 });
    expect(await tokensGate(dir)).toMatchObject({ passed: true, reason: expect.stringMatching(/^\+0\.0% /) });
    // Without --yes and no terminal: the traces read without it, so init writes the rest, and no token gate.
    const declined = withUsage();
    const d = await init(declined);
    expect([d.status, d.err]).toEqual([0, '']);
    expect(d.out).toContain('  not written: the proposal above; --yes writes it\n');
    expect(readFileSync(path.join(declined, 'gates.yaml'), 'utf8')).not.toMatch(/tokens_in|pricing/);
  });

  it('writes no token gate and no pricing: when no trace counts tokens', async () => {
    const dir = qaRepo();
    const r = await init(dir, '--yes');
    expect([r.status, r.err]).toEqual([0, '']);
    expect(r.out).not.toContain('tokens_in');
    expect(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')).not.toMatch(/tokens_in|pricing/);
  });
});
