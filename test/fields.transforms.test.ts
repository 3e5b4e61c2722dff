import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { InputError } from '../src/errors.js';
import { goldShape, traceShape, type GoldLine, type TraceLine } from '../src/grounded-answer/contract.js';
import { CompiledFieldMap, type FieldMap } from '../src/io/field-map.js';
import { renderHtml } from '../src/report/html.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderText } from '../src/report/text.js';
import { run } from '../src/run.js';
import { fieldsError } from './helpers/config-error.js';
import { readJsonlFile } from './helpers/formats.js';
import { scored, scoredPart } from './helpers/scored.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// Gold sets and traces as teams keep them (a RAGAS-like dataset: questions and chunk texts, no ids; a flag
// list whose emptiness says "unanswerable"; one reference string): read through nonempty, not, content_id
// and one string as a list, they score exactly as the same data written by hand in the canonical shape.

const GOLD = readJsonlFile<GoldLine>('gold/qa.gold.jsonl');
const TRACES = readJsonlFile<TraceLine>('runs/qa.trace.jsonl');
const QA = { kind: 'grounded-qa', k: 5, scu: true };
const GOLD_WHAT = '(a gold item {qid, question, answerable, gold_claim_substr, gold_citations})';
const TRACE_WHAT = '(a trace {qid, retrieved_ids, answer_json: {claim, citations}})';

/** A chunk's text, written in its normalized form (NFC é, single spaces, trimmed). */
const chunkText = (id: string) => `Section ${id} of the Ferrymark docs: caf\u00e9 notes on ${id}.`;
/** The same text as another tool wraps and composes it: NFD é, tabs, newlines, no-break spaces, margins. */
const messy = (text: string, i: number) =>
  `${i % 2 ? '  ' : '\n'}${text.replaceAll('\u00e9', 'e\u0301').replaceAll(' ', i % 3 ? ' \t' : '\n\u00a0')} `;
/** The id content_id must give a text: sha256 of its normalized form, computed here by hand. */
const sha = (normalized: string) => createHash('sha256').update(normalized, 'utf8').digest('hex');

const questionOf = new Map(GOLD.map((g) => [g.qid, g.question]));
const idOf = (qid: string) => sha(questionOf.get(qid) ?? qid);

/** The canonical data with every id the hash of its text: what the team's files say, written by hand. */
const canonicalGold = GOLD.map((g) => ({
  ...g,
  qid: idOf(g.qid),
  gold_citations: g.gold_citations.map((c) => sha(chunkText(c))),
}));
const canonicalTraces = TRACES.map((t, i) => ({
  ...t,
  qid: idOf(t.qid),
  retrieved_ids: t.retrieved_ids.map((r) => sha(chunkText(r))),
  answer_json: { ...t.answer_json, citations: t.answer_json.citations.map((c) => sha(chunkText(c))) },
  refused: i % 7 === 0,
}));

/** The gold as a RAGAS-like dataset keeps it: no qid, texts for contexts, an empty id list when unanswerable. */
const teamGold = GOLD.map((g, i) => ({
  user_input: g.question,
  reference: g.gold_claim_substr.length === 1 ? g.gold_claim_substr[0] : g.gold_claim_substr,
  reference_contexts: g.gold_citations.map((c, j) => messy(chunkText(c), i + j)),
  ref_doc_ids: g.answerable ? g.gold_citations : [],
  ...(g.constraints && { constraints: g.constraints.length === 1 ? g.constraints[0] : g.constraints }),
}));
const teamTraces = TRACES.map((t, i) => ({
  ts: t.ts,
  // The question as the pipeline logged it: its id is the gold question's all the same.
  user_input:
    i % 2 ? (questionOf.get(t.qid) ?? t.qid) : ` ${(questionOf.get(t.qid) ?? t.qid).replaceAll(' ', '  ')}\n`,
  retrieved_contexts: t.retrieved_ids.map((r, j) => messy(chunkText(r), i + j)),
  response: t.answer_json.claim,
  cited: t.answer_json.citations.map((c, j) => ({ text: messy(chunkText(c), i * j) })),
  ...(t.answer_json.constraints_echo && { echo: t.answer_json.constraints_echo }),
  answered: i % 7 !== 0,
  ok: t.ok,
  reason: t.reason,
  latency_ms: t.latency_ms,
}));

const TEAM_GOLD = {
  '/qid': { from: '/user_input', content_id: true },
  '/question': '/user_input',
  '/answerable': { from: '/ref_doc_ids', nonempty: true },
  '/gold_claim_substr': '/reference',
  '/gold_citations': { from: '/reference_contexts', content_id: true },
  // Mapped to itself: only a mapped list reads one string as a list of it.
  '/constraints': '/constraints',
} satisfies FieldMap;
const TEAM_TRACES = {
  '/qid': { from: '/user_input', content_id: true },
  '/retrieved_ids': { from: '/retrieved_contexts', content_id: true },
  '/answer_json/claim': '/response',
  '/answer_json/citations': { from: '/cited/*/text', content_id: true },
  '/answer_json/constraints_echo': '/echo',
  '/refused': { from: '/answered', not: true },
} satisfies FieldMap;

describe('a RAGAS-like gold set and traces, kept as the team keeps them', () => {
  it('the hand-made canonical data is what the example says: the same answerable items, the same texts', () => {
    expect(teamGold.filter((g) => g.ref_doc_ids.length === 0).length).toBe(
      GOLD.filter((g) => !g.answerable).length,
    );
    expect(teamGold.some((g) => typeof g.reference === 'string')).toBe(true);
    expect(teamGold.some((g) => Array.isArray(g.reference) && g.reference.length > 1)).toBe(true);
    expect(messy(chunkText('keys#1'), 0)).not.toBe(chunkText('keys#1'));
    expect(sha('Section keys#1 of the Ferrymark docs: caf\u00e9 notes on keys#1.')).toBe(
      sha(chunkText('keys#1')),
    );
  });

  it('scores exactly as the canonical files: every metric, count, triage stage and offender', async () => {
    const suites = await scored(
      {
        'gold.jsonl': jsonl(canonicalGold),
        'traces.jsonl': jsonl(canonicalTraces),
        'team-gold.jsonl': jsonl(teamGold),
        'team-traces.jsonl': jsonl(teamTraces),
      },
      {
        canonical: { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl' },
        team: {
          ...QA,
          gold: 'team-gold.jsonl',
          traces: 'team-traces.jsonl',
          fields: { gold: TEAM_GOLD, traces: TEAM_TRACES },
        },
      },
    );
    const canonical = suites.canonical!;
    expect(Object.keys(canonical.metrics)).toHaveLength(9);
    expect(canonical.counts.trace_lines).toBe(50);
    expect(canonical.counts).toMatchObject({ gold: 47, answerable: 35, unanswerable: 12, refused: 7 });
    const { offenders: teamOffenders, ...team } = scoredPart(suites.team);
    const { offenders: canonicalOffenders, ...rest } = scoredPart(canonical);
    expect(team).toEqual(rest);
    // The same offenders, each chunk id shown as its text (all shorter than 80 characters here).
    const texts = new Map(
      [...GOLD.flatMap((g) => g.gold_citations), ...TRACES.flatMap((t) => t.retrieved_ids)].map((id) => [
        sha(chunkText(id)),
        chunkText(id),
      ]),
    );
    const shown = JSON.stringify(canonicalOffenders).replace(/"([0-9a-f]{64})"/g, (hash, id: string) =>
      texts.has(id) ? JSON.stringify(texts.get(id)) : hash,
    );
    expect(canonicalOffenders!.length).toBeGreaterThan(10);
    expect(JSON.stringify(teamOffenders)).toBe(shown);
  });

  it('a Parquet gold set (as a dataset hub keeps it) scores as its JSON Lines, offenders shown by their texts', async () => {
    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'user_input', data: teamGold.map((g) => g.user_input), type: 'STRING' },
          {
            name: 'reference',
            data: teamGold.map((g) => [g.reference ?? []].flat().join(' | ')),
            type: 'STRING',
          },
          { name: 'reference_contexts', data: teamGold.map((g) => g.reference_contexts) },
          { name: 'ref_doc_ids', data: teamGold.map((g) => g.ref_doc_ids) },
        ],
        rowGroupSize: 16,
      }),
    );
    const asOneString = teamGold.map(({ constraints: _, ...g }) => ({
      ...g,
      reference: [g.reference ?? []].flat().join(' | '),
    }));
    const suite = { ...QA, traces: 'traces.jsonl', fields: { gold: TEAM_GOLD, traces: TEAM_TRACES } };
    const suites = await scored(
      { 'gold.parquet': parquet, 'gold.jsonl': jsonl(asOneString), 'traces.jsonl': jsonl(teamTraces) },
      { parquet: { ...suite, gold: 'gold.parquet' }, lines: { ...suite, gold: 'gold.jsonl' } },
    );
    expect(suites.parquet!.offenders.length).toBeGreaterThan(10);
    expect(JSON.stringify(suites.parquet!.offenders)).not.toMatch(/"[0-9a-f]{64}"(?!,"labels")/);
    expect(scoredPart(suites.parquet)).toEqual(scoredPart(suites.lines));
    // A gold context no trace retrieved: its text is read again from its row.
    const alone = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'user_input', data: ['How long are segments kept?'], type: 'STRING' },
          { name: 'reference', data: ['legal hold'], type: 'STRING' },
          { name: 'reference_contexts', data: [['Segments are kept\n for  7 days.']] },
          { name: 'ref_doc_ids', data: [['r']] },
        ],
      }),
    );
    const trace = {
      user_input: 'How long are segments kept?',
      retrieved_contexts: ['Other.'],
      response: 'No.',
      cited: [],
    };
    const one = await scored(
      { 'gold.parquet': alone, 'traces.jsonl': jsonl([trace]) },
      { s: { ...suite, gold: 'gold.parquet' } },
    );
    expect(one.s!.offenders[0]).toMatchObject({
      retrieved_ids: ['Other.'],
      gold_citations: ['Segments are kept for 7 days.'],
    });
  });

  it('Parquet traces score as their JSON Lines, offenders shown by their texts', async () => {
    const rows = teamTraces.map((t) => ({ ...t, cited: t.cited.map((c) => c.text) }));
    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'ts', data: rows.map((t) => BigInt(t.ts as number)), type: 'INT64' },
          { name: 'user_input', data: rows.map((t) => t.user_input), type: 'STRING' },
          { name: 'retrieved_contexts', data: rows.map((t) => t.retrieved_contexts) },
          { name: 'response', data: rows.map((t) => t.response), type: 'STRING' },
          { name: 'cited', data: rows.map((t) => t.cited) },
          { name: 'answered', data: rows.map((t) => t.answered), type: 'BOOLEAN' },
        ],
        rowGroupSize: 16,
      }),
    );
    const lines = rows.map(({ ts, user_input, retrieved_contexts, response, cited, answered }) => ({
      ts,
      user_input,
      retrieved_contexts,
      response,
      cited,
      answered,
    }));
    const traces = Object.fromEntries(
      Object.entries({
        ...TEAM_TRACES,
        '/answer_json/citations': { from: '/cited', content_id: true },
      }).filter(([canonical]) => canonical !== '/answer_json/constraints_echo'),
    );
    const suite = { ...QA, gold: 'gold.jsonl', fields: { gold: TEAM_GOLD, traces } };
    const suites = await scored(
      { 'gold.jsonl': jsonl(teamGold), 'traces.parquet': parquet, 'traces.jsonl': jsonl(lines) },
      { parquet: { ...suite, traces: 'traces.parquet' }, lines: { ...suite, traces: 'traces.jsonl' } },
    );
    expect(suites.parquet!.offenders.length).toBeGreaterThan(10);
    expect(JSON.stringify(suites.parquet!.offenders)).not.toMatch(/"[0-9a-f]{64}"(?!,"labels")/);
    expect(scoredPart(suites.parquet)).toEqual(scoredPart(suites.lines));
  });

  it('an offender shows an id made from a text as its first 80 normalized characters, … when cut', async () => {
    const long =
      'Retention\n\n  deletes   segments older than retention.ms, except streams under a legal hold, which keep every segment.';
    const gold = [
      {
        user_input: 'How long are segments kept?',
        reference: 'legal hold',
        reference_contexts: [long],
        ref_doc_ids: ['r'],
      },
    ];
    const traces = [
      {
        user_input: 'How long are segments kept?',
        retrieved_contexts: ['Other text.'],
        response: 'No idea.',
        cited: [],
      },
    ];
    const dir = tmpTree({ 'gold.jsonl': jsonl(gold), 'traces.jsonl': jsonl(traces) });
    const suite = {
      ...QA,
      gates: { precision: '>= 0.5' },
      gold: 'gold.jsonl',
      traces: 'traces.jsonl',
      fields: { gold: TEAM_GOLD, traces: TEAM_TRACES },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites: { s: suite } }));
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    const preview = 'Retention deletes segments older than retention.ms, except streams under a legal…';
    const [offender] = report.suites.s!.offenders as Record<string, unknown>[];
    expect(offender).toMatchObject({
      id: sha('How long are segments kept?'),
      question: 'How long are segments kept?',
      retrieved_ids: ['Other text.'],
      citations: [],
      gold_citations: [preview],
    });
    // The terminal, the comment and the HTML report show what report.json holds.
    // The terminal cuts long values itself (at 60 characters here).
    expect(renderText(report, { offenders: 5, showOffendersOnPass: true })).toContain(
      '      retrieved_ids: [Other text.]\n      gold_citations: [Retention deletes segments older than retention.ms, except s… (+21 chars)]\n',
    );
    expect(renderMarkdown(report, { offenders: 5 })).toContain(
      '| `Other text.` | `Retention deletes segments older than retention.ms, except streams under a legal` … (1 more characters) |',
    );
    expect(renderHtml(report)).toContain(preview);
  });
});

describe('what each transform makes of a value', () => {
  const gold = (map: FieldMap) => (record: Record<string, unknown>) =>
    new CompiledFieldMap(map, goldShape).apply(record) as Record<string, unknown>;
  const trace = (map: FieldMap) => (record: Record<string, unknown>) =>
    new CompiledFieldMap(map, traceShape).apply(record) as Record<string, unknown>;

  it('nonempty: true for a non-empty list or string; false for [], "", null and nothing there', () => {
    const one = gold({ '/answerable': { from: '/ids', nonempty: true } });
    expect(one({ ids: ['d1'] }).answerable).toBe(true);
    expect(one({ ids: [null] }).answerable).toBe(true);
    expect(one({ ids: 'd1' }).answerable).toBe(true);
    expect(one({ ids: [] }).answerable).toBe(false);
    expect(one({ ids: '' }).answerable).toBe(false);
    expect(one({ ids: null }).answerable).toBe(false);
    expect(one({}).answerable).toBe(false);
  });

  it('not: negates a boolean, alone; absent stays absent', () => {
    const one = trace({ '/refused': { from: '/answered', not: true } });
    expect(one({ answered: true }).refused).toBe(false);
    expect(one({ answered: false }).refused).toBe(true);
    expect('refused' in one({})).toBe(false);
  });

  it('not beside equals or nonempty negates their result', () => {
    const byKind = gold({ '/answerable': { from: '/kind', equals: 'unanswerable', not: true } });
    expect(byKind({ kind: 'unanswerable' }).answerable).toBe(false);
    expect(byKind({ kind: 'factoid' }).answerable).toBe(true);
    expect('answerable' in byKind({})).toBe(false);
    const byList = trace({ '/ok': { from: '/errors', nonempty: true, not: true } });
    expect(byList({ errors: ['timeout'] }).ok).toBe(false);
    expect(byList({ errors: [] }).ok).toBe(true);
    // A missing list is an empty one: nonempty says false, not makes it true.
    expect(byList({}).ok).toBe(true);
  });

  it('a list of strings mapped without "*" reads one string as a list of it, "" as the empty list', () => {
    const one = gold({ '/gold_claim_substr': '/reference', '/gold_citations': '/doc' });
    expect(one({ reference: '512 bytes', doc: 'keys#1' })).toMatchObject({
      gold_claim_substr: ['512 bytes'],
      gold_citations: ['keys#1'],
    });
    expect(one({ reference: '', doc: ['a', 'b'] })).toMatchObject({
      gold_claim_substr: [],
      gold_citations: ['a', 'b'],
    });
    // Unmapped, the contract stays as strict as it is: a string is no list.
    expect(gold({})({ gold_citations: 'keys#1' }).gold_citations).toBe('keys#1');
    // Nor is a string a list of elements through "*".
    expect(trace({ '/retrieved_ids': '/contexts/*/id' })({ contexts: 'd1' }).retrieved_ids).toBe('d1');
  });

  it('content_id: the sha256 of the NFC text with white space collapsed and trimmed, on both sides', () => {
    const one = trace({
      '/qid': { from: '/question', content_id: true },
      '/retrieved_ids': { from: '/contexts', content_id: true },
      '/answer_json/citations': { from: '/cited/*/text', content_id: true },
    });
    // Written literally, not by the code under test: the normalized texts and their hashes.
    const sum = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');
    const out = one({
      question: '  What is\tthe\u00a0limit?\n',
      contexts: ['Caf\u0065\u0301 au lait\u2003is\r\nserved.', 'x'],
      cited: [{ text: ' x ' }],
    });
    expect(out.qid).toBe(sum('What is the limit?'));
    expect(out.retrieved_ids).toEqual([sum('Caf\u00e9 au lait is served.'), sum('x')]);
    expect(out.answer_json).toEqual({ citations: [sum('x')] });
    expect(sum('x')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
    // One string is a list of one text.
    expect(one({ contexts: 'x' }).retrieved_ids).toEqual([sum('x')]);
  });
});

async function errorOf(files: Record<string, string>, suite: Record<string, unknown>): Promise<string> {
  return scored(files, { s: suite }).then(
    () => 'no error',
    (err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return err.message.replace(/[^\s(]*groundgate-test-[^/]+\//g, '');
    },
  );
}

describe('errors', () => {
  const files = (gold: unknown[], traces: unknown[]) => ({
    'gold.jsonl': jsonl(gold),
    'traces.jsonl': jsonl(traces),
  });
  const suite = {
    ...QA,
    gold: 'gold.jsonl',
    traces: 'traces.jsonl',
    fields: { gold: TEAM_GOLD, traces: TEAM_TRACES },
  };
  type Team = Record<string, unknown>;
  const at = (list: readonly Team[], i: number, change: (x: Team) => Team) =>
    list.map((x, j) => (j === i ? change(x) : x));

  it('nonempty on a value that is no list or string', async () => {
    for (const [value, type] of [
      [3, 'number'],
      [{ id: 'd1' }, 'object'],
      [true, 'boolean'],
    ] as const)
      expect(
        await errorOf(
          files(
            at(teamGold, 2, (g) => ({ ...g, ref_doc_ids: value })),
            teamTraces,
          ),
          suite,
        ),
      ).toBe(
        `gold.jsonl:3: /ref_doc_ids (answerable): expected an array or a string to test (nonempty), found ${type} ${GOLD_WHAT}`,
      );
  });

  it('not on a value that is no boolean', async () => {
    expect(
      await errorOf(
        files(
          teamGold,
          at(teamTraces, 4, (t) => ({ ...t, answered: 'yes' })),
        ),
        suite,
      ),
    ).toBe(
      `traces.jsonl:5: /answered (refused): expected a boolean to negate (not), found string ${TRACE_WHAT}`,
    );
  });

  it('content_id on a text that is no string, or blank', async () => {
    expect(
      await errorOf(
        files(
          teamGold,
          at(teamTraces, 1, (t) => ({ ...t, retrieved_contexts: ['a', 'b', 7] })),
        ),
        suite,
      ),
    ).toBe(
      `traces.jsonl:2: /retrieved_contexts/2 (retrieved_ids[2]): expected a string to make an id of (content_id), found number ${TRACE_WHAT}`,
    );
    expect(
      await errorOf(
        files(
          teamGold,
          at(teamTraces, 1, (t) => ({ ...t, cited: [{ text: 'a' }, { text: ' \n\u00a0' }] })),
        ),
        suite,
      ),
    ).toBe(
      `traces.jsonl:2: /cited/1/text (answer_json.citations[1]): expected a string to make an id of (content_id), found a blank string ${TRACE_WHAT}`,
    );
    expect(
      await errorOf(
        files(
          at(teamGold, 0, (g) => ({ ...g, user_input: 12 })),
          teamTraces,
        ),
        suite,
      ),
    ).toBe(
      `gold.jsonl:1: /user_input (qid): expected a string to make an id of (content_id), found number ${GOLD_WHAT}`,
    );
    // Nothing there is missing, as the contract says it.
    expect(
      await errorOf(
        files(
          at(teamGold, 0, ({ user_input: _, ...g }) => g),
          teamTraces,
        ),
        suite,
      ),
    ).toBe(`gold.jsonl:1: /user_input (qid): missing; expected string ${GOLD_WHAT}`);
  });

  it('gates.yaml takes not beside equals or nonempty, and content_id on /qid', async () => {
    for (const line of [
      '        /ok: { from: /kind, equals: done, not: true }',
      '        /refused: { from: /sources, nonempty: true, not: true }',
      '        /qid: { from: /question, content_id: true }',
    ])
      expect(await fieldsError([line])).not.toMatch(/^gates\.yaml/);
  });

  it('gates.yaml refuses a transform where it is written', async () => {
    expect(await fieldsError(['        /qid: { from: /id, nonempty: true }'])).toMatch(
      /^gates\.yaml:9:38: suite "s": fields\.traces\.\/qid\.nonempty: nonempty makes a boolean; expected it only for \/ok, \/refused$/,
    );
    expect(await fieldsError(['        /retrieved_ids: { from: /ids, not: true }'])).toBe(
      'gates.yaml:9:44: suite "s": fields.traces./retrieved_ids.not: not negates a boolean; expected it only for /ok, /refused',
    );
    expect(await fieldsError(['        /ts: { from: /t, content_id: true }'])).toBe(
      'gates.yaml:9:38: suite "s": fields.traces./ts.content_id: content_id makes ids from texts; expected it only for /retrieved_ids, /answer_json/citations, /answer_json/constraints_echo, /qid',
    );
    expect(await fieldsError(['        /ok: { from: /e, nonempty: false }'])).toBe(
      'gates.yaml:9:36: suite "s": fields.traces./ok.nonempty: expected true (a member left out is no transform)',
    );
    expect(await fieldsError(['        /ok: { from: /e, not: true, default: true }'])).toBe(
      'gates.yaml:9:31: suite "s": fields.traces./ok.not: default and not together; expected not alone, or beside equals or nonempty',
    );
    expect(await fieldsError(['        /ok: { from: /e, equals: x, nonempty: true }'])).toBe(
      'gates.yaml:9:47: suite "s": fields.traces./ok.nonempty: equals and nonempty together; expected one transform of scale, unit, equals, nonempty, content_id, default',
    );
    expect(await fieldsError(['        /qid: { from: /q, content_id: true, not: true }'])).toMatch(
      /fields\.traces\.\/qid\.not: content_id and not together; expected not alone, or beside equals or nonempty$/,
    );
  });
});

describe('freeze and verify', () => {
  /** A CLI command run in-process: its exit status and what it printed, paths under `dir` relative to it. */
  async function cli(dir: string, args: string[]) {
    let out = '';
    const status = await main(args, {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      isTty: false,
      env: { SOURCE_DATE_EPOCH: '1796601600' },
    });
    return { status, out: out.replaceAll(`${dir}${path.sep}`, '') };
  }

  it("lock the team's own file, read through the transforms: a change that makes the same ids is a change", async () => {
    const dir = tmpTree({ 'gold.jsonl': jsonl(teamGold), 'traces.jsonl': jsonl(teamTraces) });
    const gates = path.join(dir, 'gates.yaml');
    const suite = { ...QA, gold: 'gold.jsonl', traces: 'traces.jsonl', lock: 'gold.lock.json' };
    writeFileSync(
      gates,
      YAML.stringify({
        version: 1,
        suites: { s: { ...suite, fields: { gold: TEAM_GOLD, traces: TEAM_TRACES } } },
      }),
    );
    const frozen = await cli(dir, ['freeze', '-c', gates]);
    expect(frozen.status).toBe(0);
    expect(frozen.out).toMatch(/^s: wrote gold\.lock\.json \(47 items, sha256:[0-9a-f]{12}\)\n$/);
    expect(await cli(dir, ['verify', '-c', gates])).toMatchObject({ status: 0 });
    expect((await cli(dir, ['baseline', '-c', gates])).status).toBe(0);
    expect((await cli(dir, ['check', '-c', gates, '--release'])).status).not.toBe(2);
    // Item 1's context rewrapped: the same content id, the same mapped item, another record as written.
    const item = teamGold[0]!;
    const rewrapped = teamGold.map((g) =>
      g === item ? { ...g, reference_contexts: g.reference_contexts.map((c) => `${c}\n\n`) } : g,
    );
    writeFileSync(path.join(dir, 'gold.jsonl'), jsonl(rewrapped));
    const lock = JSON.parse(readFileSync(path.join(dir, 'gold.lock.json'), 'utf8')) as { items: number };
    expect(lock.items).toBe(47);
    expect(await cli(dir, ['verify', '-c', gates])).toEqual({
      status: 2,
      out: `groundgate: gold.jsonl: does not match its lock gold.lock.json: 1 changed (${sha(item.user_input)})\n`,
    });
  });
});

describe('a stability suite over a gold set and runs kept as texts', () => {
  const gold = readJsonlFile<GoldLine>('examples/stability/gold.jsonl');
  // Every third run refuses: its question's runs disagree, and it is an offender.
  const runs = readJsonlFile<{ qid: string; answer_json: TraceLine['answer_json']; retrieved_ids: string[] }>(
    'examples/stability/runs.jsonl',
  ).map((r, i) => (i % 3 ? r : { ...r, answer_json: { claim: 'not in context', citations: [] } }));
  const questions = new Map(gold.map((g) => [g.qid, g.question]));
  const hashed = (id: string) => sha(chunkText(id));

  it('scores as the canonical files; offenders show the gold texts for their ids', async () => {
    const canonicalGold = gold.map((g) => ({
      ...g,
      qid: sha(g.question),
      gold_citations: g.gold_citations.map(hashed),
    }));
    const canonicalRuns = runs.map((r) => ({
      ...r,
      qid: sha(questions.get(r.qid)!),
      answer_json: { ...r.answer_json, citations: r.answer_json.citations.map(hashed) },
      retrieved_ids: r.retrieved_ids.map(hashed),
    }));
    const mineGold = gold.map((g, i) => ({
      user_input: g.question,
      reference: g.gold_claim_substr,
      reference_contexts: g.gold_citations.map((c) => messy(chunkText(c), i)),
      ref_doc_ids: g.gold_citations,
      constraints: g.constraints ?? [],
    }));
    const mineRuns = runs.map((r, i) => ({
      ...r,
      qid: undefined,
      user_input: questions.get(r.qid),
      answer_json: {
        ...r.answer_json,
        citations: r.answer_json.citations.map((c) => messy(chunkText(c), i)),
      },
      retrieved_ids: r.retrieved_ids.map((id) => messy(chunkText(id), i + 1)),
    }));
    const suites = await scored(
      {
        'gold.jsonl': jsonl(canonicalGold),
        'runs.jsonl': jsonl(canonicalRuns),
        'mine-gold.jsonl': jsonl(mineGold),
        'mine-runs.jsonl': jsonl(mineRuns),
      },
      {
        canonical: { kind: 'stability', gold: 'gold.jsonl', runs: 'runs.jsonl' },
        mine: {
          kind: 'stability',
          gold: 'mine-gold.jsonl',
          runs: 'mine-runs.jsonl',
          fields: {
            gold: TEAM_GOLD,
            runs: {
              '/qid': { from: '/user_input', content_id: true },
              '/retrieved_ids': { from: '/retrieved_ids', content_id: true },
              '/answer_json/citations': { from: '/answer_json/citations', content_id: true },
            },
          },
        },
      },
    );
    const { offenders: mine, ...mineRest } = scoredPart(suites.mine);
    const { offenders: canonical, ...rest } = scoredPart(suites.canonical);
    expect(mineRest).toEqual(rest);
    expect(canonical!.length).toBeGreaterThan(0);
    const texts = new Map(gold.flatMap((g) => g.gold_citations).map((id) => [hashed(id), chunkText(id)]));
    const shown = JSON.stringify(canonical).replace(/[0-9a-f]{64}/g, (hash) => texts.get(hash) ?? hash);
    expect(JSON.stringify(mine)).toBe(shown);
    expect(shown).toContain(chunkText('p1#2'));
  });
});
