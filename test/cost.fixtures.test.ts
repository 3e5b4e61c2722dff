import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { scopeAt } from '../src/io/confine.js';
import { run } from '../src/run.js';
import { REPO, tmpTree } from './helpers/tmp.js';

// Token counts as the real instrumentation writes them (test/fixtures/openinference/, npm run
// fixtures:openinference): run i of the 50 reports 1000 + i prompt and 100 + i completion tokens, through
// LangChain's llmOutput.tokenUsage (read by @arizeai/openinference-instrumentation-langchain) or
// openinference-core's getLLMAttributes({tokenCount}). Core and LlamaIndex name the model "fake"; LangChain's
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
      '    pricing: { fake: { input: 1.0, output: 2.0 } }',
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
        // Run i costs ((1000 + i)·1 + (100 + i)·2)/1e6 = (1200 + 3i)/1e6: mean 1273.5e-6, 50 of them 0.063675.
        expect(lat.metrics.cost!.value).toBeCloseTo(0.0012735, 15);
        expect(lat.metrics['cost.total']!.value).toBeCloseTo(0.063675, 14);
      }
    });
  }
});
