import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { scopeAt } from '../src/io/confine.js';
import { traceRecords } from '../src/grounded-answer/trace-records.js';
import { run } from '../src/run.js';
import { REPO, tmpTree } from './helpers/tmp.js';

// Token counts as the real instrumentation writes them (test/fixtures/openinference/, npm run
// fixtures:openinference): run i of the 50 reports 1000 + i prompt and 100 + i completion tokens, an even run
// 512 of its prompt tokens read from cache, through LangChain's AIMessage.usage_metadata (input_token_details.
// cache_read; read by @arizeai/openinference-instrumentation-langchain) or openinference-core's
// getLLMAttributes({tokenCount: {promptDetails: {cacheRead}}}), both written as
// llm.token_count.prompt_details.cache_read. Core and LlamaIndex name the model "fake"; LangChain's
// instrumentation writes no llm.model_name for a model that has none.

async function latencyOver(fixture: string) {
  const dir = tmpTree({
    'gates.yaml': [
      'version: 1',
      'suites:',
      '  lat:',
      '    kind: latency',
      `    traces: ${fixture}`,
      '    format: openinference',
      // LangChain.js keeps chunk ids in document.metadata (see test/openinference.real.test.ts).
      `    openinference: { qid: metadata.qid${fixture.startsWith('langchain') ? ', document_id: metadata.id' : ''} }`,
      '    pricing: { fake: { input: 1.0, output: 2.0, cached_input: 0.5 } }',
      '    gates:',
      '      tokens_in: { max: 2000 }',
      '',
    ].join('\n'),
  });
  copyFileSync(path.join(REPO, 'test/fixtures/openinference', fixture), path.join(dir, fixture));
  const file = path.join(dir, 'gates.yaml');
  const scope = scopeAt(dir, 'the repository');
  const { report } = await run({
    config: file,
    loaded: parseConfig(readFileSync(file, 'utf8'), file, scope),
    scope,
  });
  return report.suites.lat!;
}

describe('token counts from OTLP exports made by the real instrumentation', () => {
  for (const fixture of ['langchain.otlp.jsonl', 'core.otlp.jsonl', 'llama-index.otlp.jsonl']) {
    it(`sums each trace's LLM span counts (${fixture})`, async () => {
      const lat = await latencyOver(fixture);
      // Means of 1000 + i and 100 + i over i = 0 … 49; tokens their sum.
      expect(lat.metrics.tokens_in!.value).toBe(1024.5);
      expect(lat.metrics.tokens_out!.value).toBe(124.5);
      expect(lat.metrics.tokens!.value).toBe(1149);
      expect(lat.metrics['tokens_in.p50']!.value).toBe(1024.5);
      expect(lat.counts.untokened).toBe(0);
      if (fixture === 'langchain.otlp.jsonl') {
        expect(lat.metrics.cost!.value).toBeNull();
        expect(lat.warnings).toContain(
          '50 requests name no model (model, llm.model_name, gen_ai.response.model): n/a for cost',
        );
      } else {
        // Run i costs ((1000 + i)·1 + (100 + i)·2)/1e6 = (1200 + 3i)/1e6, less 512·(1 − 0.5)/1e6 = 256e-6 when
        // i is even: 50·1200 + 3·1225 − 25·256 = 57275, so 0.057275 in all and 1145.5e-6 per run.
        expect(lat.metrics.cost!.value).toBeCloseTo(0.0011455, 15);
        expect(lat.metrics['cost.total']!.value).toBeCloseTo(0.057275, 14);
      }
    });
  }
});

describe('cached token counts from OTLP exports made by the real instrumentation', () => {
  for (const fixture of ['langchain.otlp.jsonl', 'core.otlp.jsonl', 'llama-index.otlp.jsonl']) {
    it(`reads llm.token_count.prompt_details.cache_read into tokens_cached (${fixture})`, async () => {
      const seen: [number, number | undefined][] = [];
      for await (const r of traceRecords(
        [path.join(REPO, 'test/fixtures/openinference', fixture)],
        {
          format: 'openinference',
          qid: 'metadata.qid',
          // LangChain.js keeps chunk ids in document.metadata (see test/openinference.real.test.ts).
          ...(fixture.startsWith('langchain') && { documentId: 'metadata.id' }),
        },
        true,
      )) {
        const v = r.value as { tokens_in: number; tokens_cached?: number };
        seen.push([v.tokens_in - 1000, v.tokens_cached]);
      }
      // Run i has 1000 + i prompt tokens: 512 of them cached when i is even, none counted when odd.
      seen.sort((a, b) => a[0] - b[0]);
      expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => [i, i % 2 ? undefined : 512]));
    });
  }
});
