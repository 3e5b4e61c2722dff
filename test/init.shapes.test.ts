import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { init } from './helpers/init.js';
import { parseConfig } from '../src/config/load.js';
import { scopeAt } from '../src/io/confine.js';
import { proposeRefusal } from '../src/init/refusal-proposal.js';
import { run } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// `groundgate init` on a repository whose data is in its own shape (issue #45, point 2), in-process.

/**
 * 20 gold questions, q1-q5 unanswerable; traces as a pipeline logs them: an id, the answer's text and
 * sources, the retrieved contexts as objects, latency in seconds. q1-q5 answer "I don't know."; q7 and q14
 * answer a claim without the gold fact.
 */
function ownShapeRepo(trace: (i: number, t: Record<string, unknown>) => unknown = (_, t) => t) {
  const gold = [];
  const traces = [];
  for (let i = 1; i <= 20; i++) {
    const answerable = i > 5;
    gold.push({
      qid: `q${i}`,
      question: `What is fact ${i}?`,
      answerable,
      gold_claim_substr: answerable ? [`fact ${i} is ${i * 7}`] : [],
      gold_citations: answerable ? [`doc${i}`] : [],
    });
    const text = !answerable
      ? "I don't know."
      : i % 7 === 0
        ? `fact ${i} is not settled`
        : `Per the docs, fact ${i} is ${i * 7}.`;
    traces.push(
      trace(i, {
        id: `q${i}`,
        question: `What is fact ${i}?`,
        response: { text, sources: answerable ? [`doc${i}`] : [] },
        contexts: [
          { doc_id: `doc${i}`, score: 0.9 },
          { doc_id: `doc${i + 100}`, score: 0.4 },
        ],
        latency_s: 0.5 + i / 100,
      }),
    );
  }
  return tmpTree({
    'eval/gold.jsonl': jsonl(gold),
    'eval/runs.jsonl': jsonl(traces),
    'eval/notes.txt': 'not data\n',
  });
}

/** The written gates.yaml loaded as check loads it, and its suite's metrics on the data. */
async function scored(dir: string, suite = 'qa') {
  const file = path.join(dir, 'gates.yaml');
  const scope = scopeAt(dir, 'the repository');
  const loaded = parseConfig(readFileSync(file, 'utf8'), file, scope);
  const outcome = await run({ config: file, loaded, scope });
  return { verdict: outcome.report.verdict, metrics: outcome.report.suites[suite]!.metrics };
}

const FIELDS = [
  '    fields: # proposed by groundgate init: your records mapped to the contract (docs/formats.md)',
  '      traces:',
  '        /qid: /id # id → qid (matched name "id")',
  '        /q: /question # question → q (matched name "question")',
  '        /retrieved_ids: /contexts/*/doc_id # contexts[*].doc_id → retrieved_ids (matched name "contexts[*].doc_id")',
  '        /answer_json/claim: /response/text # response.text → answer_json.claim (matched name "response.text")',
  '        /answer_json/citations: /response/sources # response.sources → answer_json.citations (matched name "response.sources")',
  '        /latency_ms: { from: /latency_s, scale: 1000 } # latency_s → latency_ms (matched name "latency_s", seconds × 1000)',
  '    refusal: # proposed by groundgate init: 5 of 20 sampled answers start "I don\'t know", which the refusal rule in force does not read as refusals',
  '      phrases: ["I don\'t know"]',
].join('\n');

describe('the refusal wording proposed from the answers', () => {
  const trace = (qid: string, claim: string) => ({ qid, answer_json: { claim } });
  it('claims that start alike and read like refusals, or repeat on two unanswerable items', () => {
    const traces = [
      trace('q1', 'Sorry, that is out of scope.'),
      trace('q2', 'Sorry, that is out of scope!'),
      trace('q3', 'Sorry, that is a good question: 42.'),
      trace('q4', "I don't know which one."),
      trace('q5', "I don't know."),
      trace('q6', 'not in context'),
    ];
    // q1 and q2 are unanswerable and answered alike (their shared start, three words); q3 is answerable and
    // reads like no refusal; q4 and q5 read like refusals; q6 is the default token already.
    expect(proposeRefusal(traces, new Set(['q1', 'q2']), 'not in context')).toEqual({
      phrases: ["I don't know", 'Sorry, that is out of scope'],
      note: `2 of 6 sampled answers start "I don't know"; 2 of 6 sampled answers start "Sorry, that is out of scope", which the refusal rule in force does not read as refusals`,
    });
    // The rule in force reads them: nothing to propose.
    expect(
      proposeRefusal(traces, new Set(['q1', 'q2']), 'not in context', {
        phrases: ["I don't know", 'sorry'],
        patterns: [],
      }),
    ).toBeUndefined();
  });
});

describe('init on data in its own shape', () => {
  it('says per file why it was taken or not, and writes the proposed fields: and refusal: with --yes; check scores through them', async () => {
    const dir = ownShapeRepo();
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain(
      [
        'groundgate init: looked at 3 files in ' + dir,
        '  eval/gold.jsonl: grounded-answer gold set: the first 20 records have qid, question, answerable, gold_claim_substr, gold_citations',
        '  eval/notes.txt: not JSON Lines, nor TREC qrels or run lines',
        '  eval/runs.jsonl: grounded-answer traces: read through fields: id → qid, question → q, contexts[*].doc_id → retrieved_ids, response.text → answer_json.claim, response.sources → answer_json.citations, latency_s → latency_ms',
        '',
      ].join('\n'),
    );
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(`    traces: eval/runs.jsonl\n${FIELDS}\n    gates:\n`);
    // Read through the mapping: 15 answerable, q7 and q14 claim no gold fact: precision 13/15. The five
    // "I don't know." are refusals by the proposed phrase: under_refusal 0/5, over_refusal 0/15.
    const { verdict, metrics } = await scored(dir);
    expect(verdict).toBe('pass');
    expect(metrics.precision).toMatchObject({ value: 13 / 15, numerator: 13, denominator: 15 });
    expect(metrics.under_refusal).toMatchObject({ value: 0, numerator: 0, denominator: 5 });
    expect(metrics.over_refusal).toMatchObject({ value: 0, numerator: 0, denominator: 15 });
    expect(metrics['recall@5']).toMatchObject({ value: 1 });
    // The gate came from the mapped data: Wilson 95% lower bound of 13/15 is 0.6211 (hand: centre
    // (13/15 + z²/30)/(1 + z²/15) = 0.7959, half-width 0.1748).
    expect(text).toMatch(/\n {6}precision: \{ min: 0\.6211, max_drop: 0\.02.* # measured 0\.8667 \(13\/15\)/);
  });

  it('without --yes and no terminal: prints the proposal, writes nothing, exits 2 naming --yes', async () => {
    const dir = ownShapeRepo();
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.out).toContain('proposed for the suite qa of gates.yaml:\n');
    expect(r.out).toContain('        /qid: /id # id → qid (matched name "id")\n');
    expect(r.err).toBe(
      'groundgate: the suite qa can read its data only through the fields: mapping above; --yes writes it into gates.yaml (or copy it there yourself) (see groundgate init --help)\n',
    );
    expect(existsSync(path.join(dir, 'gates.yaml'))).toBe(false);
  });

  it('a top-level sources list is read as the citations when the record has a retrieved list of its own', async () => {
    const dir = ownShapeRepo((_, t) => {
      const { response, contexts, ...rest } = t as { response: { text: string; sources: string[] } } & Record<
        string,
        unknown
      >;
      return {
        ...rest,
        answer: response.text,
        sources: response.sources,
        retrieved: (contexts as { doc_id: string }[]).map((c) => ({ id: c.doc_id })),
      };
    });
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      '        /retrieved_ids: /retrieved/*/id # retrieved[*].id → retrieved_ids (matched name "retrieved[*].id"; also /sources)\n',
    );
    expect(text).toContain(
      '        /answer_json/citations: /sources # sources → answer_json.citations (matched name "sources")\n',
    );
    // q7 and q14 miss their fact: precision 13/15, chr 15/15 (each cites its gold doc).
    const { metrics } = await scored(dir);
    expect(metrics.precision).toMatchObject({ numerator: 13, denominator: 15 });
    expect(metrics.chr).toMatchObject({ numerator: 15, denominator: 15 });
  });

  it('writes a line it is unsure of commented out, with the alternatives; the file still loads', async () => {
    // Two names a latency in seconds goes by: which one is the end-to-end latency is the user's call.
    const dir = ownShapeRepo((i, t) => ({ ...t, latency_seconds: 0.25 }));
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      '        # /latency_ms: { from: /latency_s, scale: 1000 } # unsure: also /latency_seconds; latency_s → latency_ms (matched name "latency_s", seconds × 1000)\n',
    );
    expect((await scored(dir)).verdict).toBe('pass');
  });

  it('nothing found: the exit-2 message has one line per file with its reason', async () => {
    const dir = tmpTree({
      'eval/runs.jsonl': jsonl([{ uuid: 'a', prompt: 'p', reply: 'r' }]),
      'eval/latency.csv': 'qid,seconds\nq1,0.5\n',
    });
    const r = await init(dir);
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      '; eval/latency.csv: latency CSV? no column e2e_ms: its header has qid, seconds; eval/runs.jsonl: gold? no "qid", "answerable", "gold_claim_substr", "gold_citations": its records have uuid, prompt, reply; name them with --suite KIND --gold FILE --traces FILE\n',
    );
  });

  it('a list left out where it would be empty (refusals logged without sources) is mapped with default: []', async () => {
    const dir = ownShapeRepo((i, t) =>
      i <= 5 ? { ...t, response: { text: (t.response as { text: string }).text } } : t,
    );
    const r = await init(dir, '--yes');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      '        /answer_json/citations: { from: /response/sources, default: [] } # response.sources → answer_json.citations (matched name "response.sources"; absent on 5 of 20 sampled records: read as [])\n',
    );
    const { verdict, metrics } = await scored(dir);
    expect(verdict).toBe('pass');
    expect(metrics.precision).toMatchObject({ numerator: 13, denominator: 15 });
    expect(metrics.under_refusal).toMatchObject({ numerator: 0, denominator: 5 });
  });

  it('a member the contract needs on every record, of another type on some: the line says where and on how many', async () => {
    // Refusals logged with an empty string for sources: no list, and no default can say what was meant.
    const dir = ownShapeRepo((i, t) =>
      i <= 5 ? { ...t, response: { text: (t.response as { text: string }).text, sources: '' } } : t,
    );
    const r = await init(dir, '--yes');
    expect(r.status).toBe(2);
    expect(r.err).toContain(
      '; eval/runs.jsonl: traces? no "answer_json.citations" (response.sources is a list of strings on 15 of 20 sampled records; the contract needs it on each): its records have id, question, response, contexts, latency_s;',
    );
  });

  it('keeps the fields: and settings of the gates.yaml it replaces (--force), and reads the data through them', async () => {
    // A shape no name tried matches: only the existing mapping can read it.
    const dir = ownShapeRepo((i, t) => ({
      request: { key: `q${i}` },
      out: {
        says: (t.response as { text: string }).text,
        cites: (t.response as { sources: string[] }).sources,
      },
      hits: (t.contexts as { doc_id: string }[]).map((c) => c.doc_id),
    }));
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      [
        'version: 1',
        'suites:',
        '  mine:',
        '    kind: grounded-qa',
        '    gold: eval/gold.jsonl',
        '    traces: eval/runs.jsonl',
        '    k: 3',
        "    refusal: { phrases: [I don't know] }",
        '    fields:',
        '      traces: { /qid: /request/key, /answer_json/claim: /out/says, /answer_json/citations: /out/cites, /retrieved_ids: /hits }',
        '    gates: { precision: ">= 0.99" }',
        '',
      ].join('\n'),
    );
    const r = await init(dir, '--force');
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain('  eval/runs.jsonl: read by the suite mine of the gates file, as it says\n');
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain(
      [
        '    traces: eval/runs.jsonl',
        '    k: 3',
        '    refusal:',
        '      phrases:',
        "        - I don't know",
        '    fields:',
        '      traces:',
        '        /qid: /request/key',
        '        /answer_json/claim: /out/says',
        '        /answer_json/citations: /out/cites',
        '        /retrieved_ids: /hits',
        '    gates:',
      ].join('\n'),
    );
    // k: 3 kept: recall is gated at the suite's own cutoff.
    expect(text).toContain('      recall@3: {');
    const { metrics } = await scored(dir, 'mine');
    expect(metrics.precision).toMatchObject({ numerator: 13, denominator: 15 });
    expect(metrics.under_refusal).toMatchObject({ numerator: 0, denominator: 5 });
  });

  it('--suite with own-shape traces: the mapping is proposed for them, and -i sets a suite key as YAML reads it', async () => {
    const dir = ownShapeRepo((i, t) => {
      const r = t.response as { text: string };
      return i <= 5 ? { ...t, response: { ...r, text: "I don't know" } } : t;
    });
    const r = await init(
      dir,
      '--suite',
      'grounded-qa',
      '--gold',
      path.join(dir, 'eval/gold.jsonl'),
      '--traces',
      path.join(dir, 'eval/runs.jsonl'),
      '-i',
      "refusal_token=I don't know",
      '-i',
      'k=3',
      '--yes',
    );
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const text = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    expect(text).toContain("    refusal_token: I don't know\n    k: 3\n    fields:");
    // The token reads the five refusals already: no refusal: is proposed.
    expect(text).not.toMatch(/^ {4}refusal:/m);
    const { metrics } = await scored(dir);
    expect(metrics.under_refusal).toMatchObject({ numerator: 0, denominator: 5 });
    expect(metrics['recall@3']).toMatchObject({ value: 1 });
  });

  it('-i: an unknown key is exit 2 with a did-you-mean', async () => {
    const dir = ownShapeRepo();
    const r = await init(dir, '--suite', 'grounded-qa', '-i', 'refusal_tokn=x');
    expect(r.status).toBe(2);
    expect(r.err).toMatch(
      /^groundgate: --input refusal_tokn: not a key of a grounded-qa suite; did you mean "refusal_token"\?; expected one of gold, traces, refusal_token, refusal, citation_markers, k, scu, claims, format, openinference, fields, pricing \(see groundgate init --help\)\n$/,
    );
  });
});
