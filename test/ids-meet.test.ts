import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { InputError } from '../src/errors.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import YAML from 'yaml';
import { otlpLines } from './helpers/formats.js';
import { checkOnThreads, runCli } from './helpers/process.js';
import { seeded } from './helpers/random.js';
import { FIXTURES, jsonl, REPO, tmpTree } from './helpers/tmp.js';

// #55 point 3: ids that meet nothing are never scored quietly. Below 5% of the gold set's ids met by the
// winners' retrieved and cited ids, another key that meets them is a mis-read (exit 2), else the finding is
// the first thing every output says.

interface Trace {
  ts: number;
  qid: string;
  retrieved_ids: string[];
  answer_json: { claim: string; citations: string[]; constraints_echo?: string[] };
}
const exampleTraces = (): Trace[] =>
  readFileSync(path.join(REPO, 'runs/qa.trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Trace);
const exampleGold = () => readFileSync(path.join(REPO, 'gold/qa.gold.jsonl'), 'utf8');

/** A node UUID for a doc id, as a vector store gives one: from another namespace than the gold set's. */
function uuid(id: string): string {
  const h = createHash('sha256').update(id).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const gates = (more = '') =>
  `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    gates:\n      precision: '>= 0'\n${more}`;

describe('ids that meet no gold id, another key meeting them: a mis-read, exit 2', () => {
  it('names the mapping, a sample of ids on each side, and the key that meets them (JSON Lines, fields)', async () => {
    // Each context keeps the node UUID in doc_id and the team's doc id in source.
    const traces = exampleTraces().map((t) => ({
      ts: t.ts,
      qid: t.qid,
      contexts: t.retrieved_ids.map((id) => ({ doc_id: uuid(id), source: id })),
      answer: { claim: t.answer_json.claim, citations: t.answer_json.citations.map(uuid) },
    }));
    const dir = tmpTree({
      'gold.jsonl': exampleGold(),
      'traces.jsonl': jsonl(traces),
      'gates.yaml': gates(
        '    fields:\n      traces:\n        /retrieved_ids: /contexts/*/doc_id\n        /answer_json/claim: /answer/claim\n        /answer_json/citations: /answer/citations\n',
      ),
    });
    const err = await run({ config: path.join(dir, 'gates.yaml') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    // FM001's winner retrieved faq#2, keys#5, configuration#1, …; the gold set's first ids are keys#1,
    // install#5, install#2; the 47 winners' sources hold 35 of its 35 distinct ids.
    expect((err as InputError).detail).toBe(
      `retrieved ids (fields.traces./retrieved_ids: /contexts/*/doc_id) look like ${uuid('faq#2').slice(0, 9)}…, ${uuid('keys#5').slice(0, 9)}…, …; gold ids like keys#1, install#5, …; /contexts/*/source meets 35 of 35 gold ids: set fields.traces./retrieved_ids: /contexts/*/source`,
    );
  });
});

describe('ids that meet no gold id, no key meeting them: scored, the finding first everywhere', () => {
  // Traces of another gold set: every retrieved and cited id renamed into that set's namespace.
  const other = exampleTraces().map((t) => ({
    ...t,
    retrieved_ids: t.retrieved_ids.map((id) => `other/${id}`),
    answer_json: { ...t.answer_json, citations: t.answer_json.citations.map((id) => `other/${id}`) },
  }));
  const WARNING =
    'only 0 of the gold set\'s 35 ids are among the scored traces\' retrieved ids (retrieved ids look like other/faq#2, other/keys#5, …; gold ids like keys#1, install#5, …), and no other key of the traces meets them: traces of another gold set, a retriever broken, or ids read from the wrong place ("retrieved_ids", or a mapping fields.traces./retrieved_ids)?';

  it('scores them, by the gates, with the warning first in report.json, the text view and the comment', async () => {
    const dir = tmpTree({ 'gold.jsonl': exampleGold(), 'traces.jsonl': jsonl(other), 'gates.yaml': gates() });
    const { report, misreads } = await run({ config: path.join(dir, 'gates.yaml') });
    const qa = report.suites.qa!;
    // Scored: no answered trace hits a gold citation, and precision >= 0 passes.
    expect(qa.metrics.precision!.value).toBe(0);
    expect(qa.metrics.chr!.value).toBe(0);
    expect(report.verdict).toBe('pass');
    expect(qa.warnings[0]).toBe(WARNING);
    expect(qa.headline).toBe(WARNING);
    // Every metric that compares ids with gold's, in the metrics table's order (grounded-answer/metrics/).
    expect(misreads.qa![0]).toEqual({
      warning: WARNING,
      metrics: ['precision', 'chr', 'recall@*', 'chr@*_upper_bound'],
    });
    const text = renderText(report, { offenders: 0 });
    expect(text.split('\n')[0]).toBe(`warning: qa: ${WARNING}`);
    // Once: not again among the suite's warnings.
    expect(text.split(WARNING).length).toBe(2);
    const markdown = renderMarkdown(report, { offenders: 0, marker: '<!-- groundgate -->' });
    const lines = markdown.split('\n');
    // After the hidden marker, before the verdict heading: the first thing the comment and the summary say.
    expect(lines[1]).toMatch(/^> ⚠️ \*\*qa: only 0 of the gold set's 35 ids are among the scored traces/);
    expect(lines[3]).toBe('### ✅ groundgate: PASS — 1 of 1 gates passed');
    expect(markdown.split('only 0 of the gold set').length).toBe(2);
  });
});

/** The node UUID scripts/openinference-fixtures.mjs gives a chunk (as a LlamaIndex index does: one per node). */
function nodeId(chunk: string): string {
  const h = createHash('sha256').update(`node:${chunk}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

describe("LlamaIndex's OpenInference export: the node UUID in document.id, the doc id in its metadata", () => {
  const LLAMA = 'llama-index.otlp.jsonl';
  const workspace = (documentId?: string) => {
    const dir = tmpTree({
      'gold.jsonl': exampleGold(),
      'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: ${LLAMA}\n    format: openinference\n    openinference:\n      qid: metadata.qid\n${documentId ? `      document_id: ${documentId}\n` : ''}    gates:\n      recall@5: '>= 0'\n`,
    });
    copyFileSync(path.join(FIXTURES, 'openinference', LLAMA), path.join(dir, LLAMA));
    return dir;
  };
  // FM001's winner retrieved faq#2 and keys#5 first; the 50 runs' nodes' doc_id hold all 35 gold ids.
  const MESSAGE = `${LLAMA}: retrieved ids (openinference.document_id: document.id) look like ${nodeId('faq#2').slice(0, 9)}…, ${nodeId('keys#5').slice(0, 9)}…, …; gold ids like keys#1, install#5, …; document.metadata.doc_id meets 35 of 35 gold ids: set openinference.document_id: metadata.doc_id`;

  it('read as is: exit 2 naming metadata.doc_id, not recall@5 0/35 under a passing gate', async () => {
    const dir = workspace();
    let stderr = '';
    const io = {
      stdout: () => undefined,
      stderr: (t: string) => void (stderr += t),
      isTty: false,
      env: { NO_COLOR: '1' },
    };
    const code = await main(['check', '--config', path.join(dir, 'gates.yaml')], io);
    expect(stderr.replaceAll(dir + path.sep, '')).toBe(`groundgate: ${MESSAGE}\n`);
    expect(code).toBe(2);
  });

  it('the bundled CLI says the same in a process', () => {
    const dir = workspace();
    const r = runCli(['check'], dir);
    expect(r.stderr).toBe(`groundgate: ${MESSAGE}\n`);
    expect(r.status).toBe(2);
  });

  it("read by metadata.doc_id as the message says: the example's recall@5, 32 of 35, and no warning", async () => {
    const { report } = await run({ config: path.join(workspace('metadata.doc_id'), 'gates.yaml') });
    const qa = report.suites.qa!;
    expect([qa.metrics['recall@5']!.numerator, qa.metrics['recall@5']!.denominator]).toEqual([32, 35]);
    expect(qa.headline).toBeUndefined();
  });
});

describe('as a new user reads the LangChain.js export: document_id naming the wrong metadata key', () => {
  it('exit 2 naming metadata.id, though the answers cite gold ids (their citations are not what was retrieved)', async () => {
    const file = 'langchain.otlp.jsonl';
    const dir = tmpTree({
      'gold.jsonl': exampleGold(),
      'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: ${file}\n    format: openinference\n    openinference:\n      qid: metadata.qid\n      document_id: metadata.source\n    gates:\n      recall@5: '>= 0'\n`,
    });
    copyFileSync(path.join(FIXTURES, 'openinference', file), path.join(dir, file));
    const err = await run({ config: path.join(dir, 'gates.yaml') }).catch((e: unknown) => e);
    // metadata.source holds each chunk's file name; metadata.id its chunk id, the gold set's.
    expect((err as InputError).detail).toBe(
      'retrieved ids (openinference.document_id: metadata.source) look like faq.md, keys.md, …; gold ids like keys#1, install#5, …; document.metadata.id meets 35 of 35 gold ids: set openinference.document_id: metadata.id',
    );
  });
});

describe('--quiet', () => {
  const quiet = async (traces: unknown[]) => {
    const dir = tmpTree({
      'gold.jsonl': exampleGold(),
      'traces.jsonl': jsonl(traces),
      'gates.yaml': gates(),
    });
    const out = { stdout: '', stderr: '' };
    const io = {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTty: false,
      env: { NO_COLOR: '1' },
    };
    return { code: await main(['check', '-q', '--config', path.join(dir, 'gates.yaml')], io), ...out };
  };
  const renamed = (t: Trace, what: 'retrieved' | 'both') => ({
    ...t,
    retrieved_ids: t.retrieved_ids.map((id) => `other/${id}`),
    answer_json: {
      ...t.answer_json,
      citations:
        what === 'both' ? t.answer_json.citations.map((id) => `other/${id}`) : t.answer_json.citations,
    },
  });

  it('a pass prints nothing but the finding: a pass over ids that meet no gold id is no pass', async () => {
    const r = await quiet(exampleTraces().map((t) => renamed(t, 'both')));
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(
      /^groundgate: warning: qa: only 0 of the gold set's 35 ids are among the scored traces' retrieved ids \(retrieved ids look like other\/faq#2, other\/keys#5, …; gold ids like keys#1, install#5, …\)/,
    );
    expect(r.stderr.split('\n').length).toBe(2);
  });

  it('answers citing gold ids do not hide retrieved ids that meet none (recall@5 0/35 all the same)', async () => {
    const r = await quiet(exampleTraces().map((t) => renamed(t, 'retrieved')));
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(
      /^groundgate: warning: qa: only 0 of the gold set's 35 ids are among the scored traces' retrieved ids/,
    );
  });
});

describe('the count on threads (dist): the same report at every GROUNDGATE_THREADS', () => {
  // 300 gold items with ids d0…d299; 3,000 runs, JSON Lines and OTLP, whose ids are the x-namespace's but for
  // `met` gold ids: 14 of 300 (4.7%) are under the rule's 5%, 15 (5%) are not. The gold ids met are the last
  // items', whose winners are at the end of the input: on 4 threads, helpers read and judge them.
  const rnd = seeded(55);
  const gold = Array.from({ length: 300 }, (_, i) => ({
    qid: `Q${i}`,
    question: `question ${i}?`,
    answerable: true,
    gold_claim_substr: [`fact number ${i}`],
    gold_citations: [`d${i}`],
  }));
  const traces = (met: number) =>
    Array.from({ length: 3000 }, (_, n) => {
      const i = n % 300;
      const id = i >= 300 - met ? `d${i}` : `x${Math.floor(rnd() * 1000)}`;
      return {
        ts: 1 + Math.floor(n / 300),
        qid: `Q${i}`,
        retrieved_ids: [id, `x${Math.floor(rnd() * 1000)}`],
        answer_json: { claim: `It is fact number ${i}.`, citations: [id] },
        latency_ms: 100,
      };
    });
  const workspace = (met: number) => {
    const t = traces(met);
    const qa = { kind: 'grounded-qa', gold: 'gold.jsonl', gates: { precision: '>= 0' } };
    const dir = tmpTree({
      'gold.jsonl': jsonl(gold),
      'traces.jsonl': jsonl(t),
      'traces.otlp.jsonl': otlpLines(t, (x) => `question ${x.qid.slice(1)}?`),
      'gates.yaml': YAML.stringify({
        version: 1,
        suites: {
          lines: { ...qa, traces: 'traces.jsonl' },
          otlp: { ...qa, traces: 'traces.otlp.jsonl', format: 'openinference' },
        },
      }),
    });
    return dir;
  };

  it('14 of 300 gold ids met: the headline on both suites, byte-identical on 1 and 4 threads', () => {
    const dir = workspace(14);
    const one = checkOnThreads(dir, '1');
    const four = checkOnThreads(dir, '4');
    expect(one.status).toBe(0);
    expect(four.report).toBe(one.report);
    expect(four.stderr).toBe(one.stderr);
    const report = JSON.parse(one.report) as { suites: Record<string, { headline?: string }> };
    for (const name of ['lines', 'otlp'])
      expect(report.suites[name]!.headline).toMatch(/^only 14 of the gold set's 300 ids are among/);
  }, 60_000);

  it('15 of 300 (5%): no headline', () => {
    const dir = workspace(15);
    const one = checkOnThreads(dir, '1');
    const four = checkOnThreads(dir, '4');
    expect(four.report).toBe(one.report);
    const report = JSON.parse(one.report) as { suites: Record<string, { headline?: string }> };
    expect([report.suites.lines!.headline, report.suites.otlp!.headline]).toEqual([undefined, undefined]);
  }, 60_000);
});

describe('quiet on every example in the repository', () => {
  it.each(['gates.yaml', 'examples/semantic/gates.yaml'])('%s: no headline, no mis-read', async (config) => {
    const { report } = await run({ config: path.join(REPO, config) });
    for (const suite of Object.values(report.suites)) {
      expect(suite.headline).toBeUndefined();
      expect(suite.warnings.filter((w) => w.includes('gold set'))).toEqual([]);
    }
  });

  it.each(['langchain.otlp.jsonl', 'core.otlp.jsonl'])(
    'the OpenInference fixture %s, read as documented',
    async (file) => {
      const dir = tmpTree({
        'gold.jsonl': exampleGold(),
        'gates.yaml': `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: ${file}\n    format: openinference\n    openinference:\n      qid: metadata.qid\n${file.startsWith('langchain') ? '      document_id: metadata.id\n' : ''}    gates:\n      recall@5: '>= 0'\n`,
      });
      copyFileSync(path.join(FIXTURES, 'openinference', file), path.join(dir, file));
      const { report } = await run({ config: path.join(dir, 'gates.yaml') });
      expect(report.suites.qa!.headline).toBeUndefined();
    },
  );
});

describe("the stability suite: its runs' ids against its gold set", () => {
  const example = (file: string) => readFileSync(path.join(REPO, 'examples/stability', file), 'utf8');
  it('runs of another gold set: the headline first, scored by the gates', async () => {
    // Every id renamed: the example's gold set has 2 distinct ids (p1#2, pB#1), none met.
    const runs = example('runs.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Trace)
      .map((r) => ({
        ...r,
        retrieved_ids: r.retrieved_ids.map((id) => `other/${id}`),
        answer_json: { ...r.answer_json, citations: r.answer_json.citations.map((id) => `other/${id}`) },
      }));
    const dir = tmpTree({
      'gold.jsonl': example('gold.jsonl'),
      'runs.jsonl': jsonl(runs),
      'gates.yaml': `version: 1\nsuites:\n  st:\n    kind: stability\n    gold: gold.jsonl\n    runs: runs.jsonl\n    gates:\n      coverage: '== 1'\n`,
    });
    const { report, misreads } = await run({ config: path.join(dir, 'gates.yaml') });
    const st = report.suites.st!;
    expect(st.headline).toBe(
      `only 0 of the gold set's 2 ids are among the scored runs' retrieved ids (retrieved ids look like other/p1#1, other/p1#2, …; gold ids like p1#2, pB#1): runs of another gold set, a retriever broken, or ids read from the wrong place ("retrieved_ids", or a mapping fields.runs./retrieved_ids)?`,
    );
    expect(st.warnings[0]).toBe(st.headline);
    expect(misreads.st![0]!.metrics).toEqual(['stable_rate', 'unstable_questions', 'citation_hit_rate']);
    expect(report.verdict).toBe('pass');
  });
});
