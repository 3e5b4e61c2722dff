import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

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
    'only 0 of the gold set\'s 35 ids are among the scored traces\' retrieved or cited ids (retrieved ids look like other/faq#2, other/keys#5, …; gold ids like keys#1, install#5, …), and no other key of the traces meets them: traces of another gold set, a retriever broken, or ids read from the wrong place ("retrieved_ids", or a mapping fields.traces./retrieved_ids)?';

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
    expect(misreads.qa![0]).toEqual({ warning: WARNING, metrics: ['precision', 'chr', 'chr@*', 'recall@*'] });
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
