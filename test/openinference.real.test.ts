import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { FIXTURES, qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';
import { scoredPart } from './helpers/scored.js';

// The example's 50 runs as LangChain.js (through @arizeai/openinference-instrumentation-langchain) and
// openinference-core export them: test/fixtures/openinference/, made by scripts/openinference-fixtures.mjs with
// the libraries themselves. LangChain.js writes no document.id: each chunk's id is in document.metadata.

const SPANS = path.join(FIXTURES, 'openinference');
const FILES = ['langchain.otlp.jsonl', 'core.otlp.jsonl', 'llama-index.otlp.jsonl'];

/** The committed qa suite, as gates.yaml has it, and its inputs, in a fresh folder beside the exports. */
function workspace(suites: Record<string, Record<string, unknown>>): string {
  const dir = tmpTree({});
  for (const file of ['gold/qa.gold.jsonl', 'gold/qa.gold.lock.json', 'runs/qa.trace.jsonl']) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(REPO, file), path.join(dir, file));
  }
  for (const file of FILES) copyFileSync(path.join(SPANS, file), path.join(dir, file));
  const config = YAML.parse(qaOnlyGates()) as { suites: { qa: Record<string, unknown> } };
  const qa = config.suites.qa;
  const all = Object.fromEntries(Object.entries(suites).map(([name, s]) => [name, { ...qa, ...s }]));
  writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ ...config, offenders: 50, suites: all }));
  return dir;
}

const LANGCHAIN = { traces: 'langchain.otlp.jsonl', format: 'openinference' };

describe('real OpenInference exports of the example runs', () => {
  it('score exactly as the canonical traces: LangChain.js by metadata.id, openinference-core by document.id', async () => {
    const dir = workspace({
      canonical: {},
      langchain: { ...LANGCHAIN, openinference: { qid: 'metadata.qid', document_id: 'metadata.id' } },
      core: { traces: 'core.otlp.jsonl', format: 'openinference', openinference: { qid: 'metadata.qid' } },
    });
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const { canonical, langchain, core } = report.suites;
    // The example's own figures, so that equal cannot mean equally empty.
    const figures = Object.fromEntries(
      Object.entries(canonical!.metrics).map(([name, m]) => {
        const { numerator, denominator } = m as { numerator?: number; denominator?: number };
        return [name, `${numerator}/${denominator}`];
      }),
    );
    expect(figures).toMatchObject({
      precision: '30/33',
      chr: '32/33',
      under_refusal: '0/12',
      over_refusal: '2/35',
      'recall@5': '32/35',
      coverage: '47/47',
    });
    expect(canonical!.triage).toEqual({
      answered_wrong: { retrieval: 0, citation: 1, containment: 2, constraint: 0 },
      over_refused: { not_retrieved: 2, retrieved: 0 },
    });
    expect(canonical!.counts).toMatchObject({
      trace_lines: 50,
      superseded_runs: 3,
      answered: 33,
      refused: 14,
    });
    expect(canonical!.offenders.map((o) => (o as { id: string }).id)).toEqual([
      'FM015',
      'FM011',
      'FM023',
      'FM009',
      'FM043',
    ]);
    expect(scoredPart(langchain)).toEqual(scoredPart(canonical));
    expect(scoredPart(core)).toEqual(scoredPart(canonical));
  });

  it('LangChain.js without openinference.document_id: exit 2 naming it and the metadata keys, not zeros', async () => {
    const dir = workspace({ langchain: { ...LANGCHAIN, openinference: { qid: 'metadata.qid' } } });
    let stderr = '';
    const io = {
      stdout: () => undefined,
      stderr: (t: string) => void (stderr += t),
      isTty: false,
      env: { NO_COLOR: '1' },
    };
    const code = await main(['check', '--config', path.join(dir, 'gates.yaml')], io);
    expect(stderr.replaceAll(dir + path.sep, '')).toMatch(
      /^groundgate: langchain\.otlp\.jsonl:1: .*RunRetriever.*document\.metadata has id, source.*openinference\.document_id: metadata\.id/,
    );
    expect(code).toBe(2);
  });

  it('the generator writes the committed bytes again', () => {
    const out = tmpTree({});
    execFileSync(process.execPath, [path.join(REPO, 'scripts', 'openinference-fixtures.mjs'), out], {
      env: { ...process.env, TZ: 'Pacific/Chatham' },
    });
    for (const file of FILES)
      expect([file, readFileSync(path.join(out, file)).equals(readFileSync(path.join(SPANS, file)))]).toEqual(
        [file, true],
      );
  });
});
