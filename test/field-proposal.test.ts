import { describe, expect, it } from 'vitest';
import { appliedMap, keysOf, mapped, proposeFields } from '../src/init/field-proposal.js';

// groundgate init's `fields:` proposal (src/init/field-proposal.ts), on records written here: each expected
// line is what the candidate tables give the names these records use.

/** Two traces as a pipeline logs them: its own names for every member, latency in seconds, ts in seconds. */
const PIPELINE = [
  {
    id: 'q1',
    question: 'Q1?',
    contexts: [{ doc_id: 'd1' }, { doc_id: 'd2' }],
    response: { text: 'A1', sources: ['d1'] },
    latency_s: 1.25,
    timestamp: 1767139231,
  },
  // A refusal logged without its sources list.
  {
    id: 'q2',
    question: 'Q2?',
    contexts: [{ doc_id: 'd3' }],
    response: { text: 'not in context' },
    latency_s: 0.5,
    timestamp: 1767139290,
  },
];

describe('proposeFields on traces', () => {
  it('maps every member from the name the records use, each with its note', () => {
    expect(proposeFields(PIPELINE, 'traces')).toEqual({
      input: 'traces',
      lines: [
        { canonical: '/qid', source: '/id', note: 'id → qid (matched name "id")' },
        { canonical: '/q', source: '/question', note: 'question → q (matched name "question")' },
        {
          canonical: '/retrieved_ids',
          source: '/contexts/*/doc_id',
          note: 'contexts[*].doc_id → retrieved_ids (matched name "contexts[*].doc_id")',
        },
        {
          canonical: '/answer_json/claim',
          source: '/response/text',
          note: 'response.text → answer_json.claim (matched name "response.text")',
        },
        {
          canonical: '/answer_json/citations',
          source: { from: '/response/sources', default: [] },
          note: 'response.sources → answer_json.citations (matched name "response.sources"; absent on 1 of 2 sampled records: read as [])',
        },
        {
          canonical: '/latency_ms',
          source: { from: '/latency_s', scale: 1000 },
          note: 'latency_s → latency_ms (matched name "latency_s", seconds × 1000)',
        },
        { canonical: '/ts', source: '/timestamp', note: 'timestamp → ts (matched name "timestamp")' },
      ],
      missing: [],
      partial: {},
    });
  });

  it('reads epoch seconds as seconds and epoch milliseconds with unit: ms', () => {
    const ts = (values: number[]) =>
      proposeFields(
        PIPELINE.map((r, i) => ({ ...r, timestamp: values[i] })),
        'traces',
      ).lines.find((l) => l.canonical === '/ts');
    // 2025-12-31T00:00:31Z in seconds, and the earliest and latest seconds a trace plausibly holds.
    expect(ts([1767139231, 1767139290])?.source).toBe('/timestamp');
    expect(ts([0, 99_999_999_999])?.source).toBe('/timestamp'); // year 5138 in seconds
    expect(ts([1767139231000, 1767139290000])).toEqual({
      canonical: '/ts',
      source: { from: '/timestamp', unit: 'ms' },
      note: 'timestamp → ts (matched name "timestamp", epoch milliseconds)',
    });
    // One record in seconds: not all are milliseconds, so none is read as such.
    expect(ts([1767139231, 1767139290000])?.source).toBe('/timestamp');
  });

  it('the mapped records are contract records', () => {
    const p = proposeFields(PIPELINE, 'traces');
    expect(mapped(PIPELINE, p)).toMatchObject([
      {
        qid: 'q1',
        q: 'Q1?',
        retrieved_ids: ['d1', 'd2'],
        answer_json: { claim: 'A1', citations: ['d1'] },
        latency_ms: 1250,
        ts: 1767139231,
      },
      {
        qid: 'q2',
        retrieved_ids: ['d3'],
        answer_json: { claim: 'not in context', citations: [] },
        latency_ms: 500,
      },
    ]);
  });

  it('leaves a member in its own place unmapped', () => {
    const canonical = PIPELINE.map(({ id, ...r }) => ({ ...r, qid: id }));
    expect(proposeFields(canonical, 'traces').lines.map((l) => l.canonical)).not.toContain('/qid');
  });

  it('names the other candidates of a required member, and applies the first', () => {
    const both = PIPELINE.map((r, i) => ({ ...r, query_id: `x${i}` }));
    expect(proposeFields(both, 'traces').lines[0]).toEqual({
      canonical: '/qid',
      source: '/id',
      note: 'id → qid (matched name "id"; also /query_id)',
    });
  });

  it('a required member on some records only is missing, with where it was found', () => {
    const some = [PIPELINE[0], { ...PIPELINE[1], id: undefined }];
    const p = proposeFields(some, 'traces');
    expect(p.missing).toEqual(['/qid']);
    expect(p.partial).toEqual({
      '/qid': 'id is a non-empty string on 1 of 2 sampled records; the contract needs it on each',
    });
    expect(p.lines[0]).toEqual({
      canonical: '/qid',
      source: '/id',
      note: 'id → qid (matched name "id")',
      unsure: 'not a non-empty string on all 2 sampled records (1 have it)',
    });
    // Unsure lines are written commented out: the applied map leaves them out, and the records stay unmapped.
    expect(appliedMap(p)['/qid']).toBeUndefined();
    expect(mapped(some, p)).toBeUndefined();
  });

  it('a required member under no name tried is missing', () => {
    expect(proposeFields([{ question: 'Q?' }], 'traces').missing).toEqual([
      '/qid',
      '/retrieved_ids',
      '/answer_json/claim',
      '/answer_json/citations',
    ]);
  });
});

describe('proposeFields on gold', () => {
  it('maps ids, facts, evidence and answerable', () => {
    const gold = [
      { query_id: 'g1', query: 'Q?', answers: ['512 bytes'], relevant_ids: ['keys#1'], is_answerable: true },
      { query_id: 'g2', query: 'R?', answers: [], relevant_ids: [], is_answerable: false },
    ];
    const p = proposeFields(gold, 'gold');
    expect(appliedMap(p)).toEqual({
      '/qid': '/query_id',
      '/question': '/query',
      '/answerable': '/is_answerable',
      '/gold_claim_substr': '/answers',
      '/gold_citations': '/relevant_ids',
    });
    expect(p.missing).toEqual([]);
  });
});

describe('keysOf', () => {
  it('lists the names records hold, the first 8 and an ellipsis past them', () => {
    expect(keysOf([{ a: 1, b: 2 }, { b: 3, c: 4 }, 'not a record'])).toBe('a, b, c');
    const wide = Object.fromEntries([...'abcdefghij'].map((k) => [k, 1]));
    expect(keysOf([wide])).toBe('a, b, c, d, e, f, g, h, …');
  });
});

describe('proposeFields on token usage (#58)', () => {
  it("proposes OpenAI's usage.prompt_tokens / completion_tokens and the model, and Anthropic's input/output_tokens", () => {
    const openai = PIPELINE.map((t, i) => ({
      ...t,
      model: 'gpt-4o-mini',
      usage: { prompt_tokens: 1000 + i, completion_tokens: 100 },
    }));
    const lines = proposeFields(openai, 'traces').lines.map((l) => [l.canonical, l.source]);
    expect(lines).toContainEqual(['/tokens_in', '/usage/prompt_tokens']);
    expect(lines).toContainEqual(['/tokens_out', '/usage/completion_tokens']);
    // model is a canonical member in its own place: nothing to map.
    expect(lines.map(([c]) => c)).not.toContain('/model');
    const anthropic = PIPELINE.map((t) => ({
      ...t,
      response: { ...t.response, model: 'claude-haiku', usage: { input_tokens: 9, output_tokens: 2 } },
    }));
    const more = proposeFields(anthropic, 'traces').lines.map((l) => [l.canonical, l.source]);
    expect(more).toContainEqual(['/tokens_in', '/response/usage/input_tokens']);
    expect(more).toContainEqual(['/tokens_out', '/response/usage/output_tokens']);
    expect(more).toContainEqual(['/model', '/response/model']);
  });

  it("proposes the cached part of the input where OpenAI and LangChain count it, not Anthropic's", () => {
    const proposed = (usage: object, at = 'usage') =>
      proposeFields(
        PIPELINE.map((t) => ({ ...t, [at]: usage })),
        'traces',
      ).lines.flatMap((l) => (l.canonical === '/tokens_cached' ? [l.source] : []));
    // Chat Completions (openai-node src/resources/completions.ts, CompletionUsage.prompt_tokens_details).
    expect(proposed({ prompt_tokens: 9, prompt_tokens_details: { cached_tokens: 4 } })).toEqual([
      '/usage/prompt_tokens_details/cached_tokens',
    ]);
    // Responses (src/resources/responses/responses.ts, ResponseUsage.input_tokens_details).
    expect(proposed({ input_tokens: 9, input_tokens_details: { cached_tokens: 4 } })).toEqual([
      '/usage/input_tokens_details/cached_tokens',
    ]);
    // LangChain's UsageMetadata.input_token_details.cache_read.
    expect(proposed({ input_tokens: 9, input_token_details: { cache_read: 4 } }, 'usage_metadata')).toEqual([
      '/usage_metadata/input_token_details/cache_read',
    ]);
    // Anthropic's input_tokens leaves out what was read from cache: not a part of it, not proposed.
    expect(proposed({ input_tokens: 9, cache_read_input_tokens: 40 })).toEqual([]);
  });
});
