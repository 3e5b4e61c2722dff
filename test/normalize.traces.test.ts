import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseCalls } from '../src/suites/agent-retrieval/normalize/document.js';
import { buildEvents, summarizeEvents } from '../src/suites/agent-retrieval/normalize/events.js';
import { normalizeTaskName } from '../src/suites/agent-retrieval/normalize/layout.js';
import { mergeTraces } from '../src/suites/agent-retrieval/normalize/merge.js';
import type { ToolCall } from '../src/suites/agent-retrieval/normalize/trace.js';
import { parseTranscript, readTranscript } from '../src/suites/agent-retrieval/normalize/transcript.js';
import { parseTrajectory, readTrajectory } from '../src/suites/agent-retrieval/normalize/trajectory.js';
import { looksLikeFile, normalizePath } from '../src/suites/agent-retrieval/paths.js';
import { classifyTool, inputTargets, resultTargets } from '../src/suites/agent-retrieval/tools.js';
import { tmpTree } from './helpers/tmp.js';

describe('tool → category (the seed table)', () => {
  it('maps local tools, Sourcegraph MCP tools with and without sg_, and leaves the rest out', () => {
    const table: [string, string | undefined, boolean][] = [
      ['Read', 'file_read', false],
      ['Glob', 'file_search', false],
      ['Grep', 'code_search', false],
      ['Write', 'file_write', false],
      ['Edit', 'file_write', false],
      ['MultiEdit', 'file_write', false],
      ['NotebookEdit', 'file_write', false],
      ['Bash', 'other', false],
      ['Task', 'other', false],
      ['TodoWrite', undefined, false],
      ['TaskOutput', undefined, false],
      ['WebFetch', undefined, false],
      ['mcp__github__get_file_contents', undefined, false],
    ];
    const mcp: [string, string][] = [
      ['read_file', 'file_read'],
      ['list_files', 'file_search'],
      ['find_references', 'symbol_navigation'],
      ['go_to_definition', 'symbol_navigation'],
      ['keyword_search', 'code_search'],
      ['nls_search', 'code_search'],
      ['commit_search', 'commit_search'],
      ['diff_search', 'commit_search'],
      ['compare_revisions', 'commit_search'],
      ['deepsearch', 'deep_search'],
      ['deepsearch_read', 'deep_search'],
      ['get_contributor_repos', 'other'],
      ['list_repos', 'other'],
      ['some_new_tool', 'other'],
    ];
    for (const [bare, category] of mcp) {
      table.push(
        [`mcp__sourcegraph__${bare}`, category, true],
        [`mcp__sourcegraph__sg_${bare}`, category, true],
      );
    }
    for (const [name, category, isMcp] of table) {
      expect([name, classifyTool(name)]).toEqual([name, category ? { category, isMcp } : undefined]);
    }
  });
});

describe('paths', () => {
  it('strips container roots and diff prefixes, and lowercases', () => {
    expect(normalizePath('/workspace/Internal/Server.go')).toBe('internal/server.go');
    expect(normalizePath('/repo_full/pkg/a.go')).toBe('pkg/a.go');
    expect(normalizePath('/testbed/django/db.py')).toBe('django/db.py');
    expect(normalizePath('a/src/x.ts')).toBe('src/x.ts');
    expect(normalizePath('b/src/x.ts')).toBe('src/x.ts');
    expect(normalizePath('/workspace/a/x.go')).toBe('a/x.go'); // a folder named a, not a diff prefix
    expect(normalizePath('./lib/y.rb')).toBe('lib/y.rb');
    expect(normalizePath(' /usr/lib/go/src/fmt/print.go ')).toBe('usr/lib/go/src/fmt/print.go');
    expect(normalizePath('dir\\sub\\f.c')).toBe('dir/sub/f.c');
    expect(normalizePath('/workspace')).toBe('');
  });

  it('tells files from folders, patterns and prose', () => {
    for (const p of ['pkg/b.go', 'makefile', 'x/.eslintrc.json', 'docs/readme'])
      expect([p, looksLikeFile(p)]).toEqual([p, true]);
    for (const p of ['internal/server', 'found 3 files', '**/*.go', 'https://x.io/a.go', '', '.github']) {
      expect([p, looksLikeFile(p)]).toEqual([p, false]);
    }
  });
});

describe('target files', () => {
  it('from inputs: files read or written always, search paths only when they name a file', () => {
    expect(inputTargets('Read', { file_path: '/workspace/A/B.go' })).toEqual(['a/b.go']);
    expect(inputTargets('Edit', { file_path: '/workspace/Makefile.in' })).toEqual(['makefile.in']);
    expect(inputTargets('NotebookEdit', { notebook_path: '/workspace/nb/x.ipynb' })).toEqual(['nb/x.ipynb']);
    expect(inputTargets('Grep', { pattern: 'foo', path: '/workspace/internal' })).toEqual([]);
    expect(inputTargets('Grep', { pattern: 'foo', path: '/workspace' })).toEqual([]);
    expect(inputTargets('Grep', { pattern: 'foo', path: '/workspace/internal/x.go' })).toEqual([
      'internal/x.go',
    ]);
    expect(inputTargets('mcp__sourcegraph__sg_read_file', { repo: 'r', path: 'pkg/README' })).toEqual([
      'pkg/readme',
    ]);
    expect(inputTargets('mcp__sourcegraph__find_references', { path: 'pkg/b.go', symbol: 'X' })).toEqual([
      'pkg/b.go',
    ]);
    expect(inputTargets('Bash', { command: 'cat a/b.go' })).toEqual([]);
    expect(inputTargets('TodoWrite', { file_path: 'a.go' })).toEqual([]);
  });

  it('from results: Glob lines, Grep lines in every output mode, MCP "path" fields', () => {
    expect(resultTargets('Glob', '/workspace/a/x.go\n/workspace/a/y.go\n\nNo more')).toEqual([
      'a/x.go',
      'a/y.go',
    ]);
    expect(resultTargets('Grep', 'Found 2 files\n/workspace/a/x.go\n/workspace/b/z.py')).toEqual([
      'a/x.go',
      'b/z.py',
    ]);
    expect(
      resultTargets(
        'Grep',
        '/workspace/a/x.go:12:func X() {\n/workspace/a/x-1-y.go-13-  ctx\n/workspace/c.go:3\n40: body',
      ),
    ).toEqual(['a/x.go', 'a/x-1-y.go', 'c.go']);
    expect(
      resultTargets(
        'mcp__sourcegraph__sg_keyword_search',
        '{"results":[{"path":"Pkg/A.go"},{"path": "docs"},{"path":"lib\\/c.rs"}]}',
      ),
    ).toEqual(['pkg/a.go', 'lib/c.rs']);
    expect(resultTargets('Read', '"path": "a/b.go"')).toEqual([]);
    expect(resultTargets('Bash', '/workspace/a/x.go')).toEqual([]);
  });

  it('task names unwrap the CSB prefixes', () => {
    expect(normalizeTaskName('sgonly_flipt-eval-latency-fix-001')).toBe('flipt-eval-latency-fix-001');
    expect(normalizeTaskName('mcp_django-policy-001_Ab12Cd')).toBe('django-policy-001');
    expect(normalizeTaskName('bl_django-policy-001_Ab12Cd')).toBe('django-policy-001');
    expect(normalizeTaskName('ccx-agentic-081')).toBe('ccx-agentic-081');
  });
});

const use = (id: string, name: string, input: object, usage: object, extra: object = {}) => ({
  type: 'assistant',
  message: { id: `msg_${id}`, content: [{ type: 'tool_use', id: `toolu_${id}`, name, input }], usage },
  parent_tool_use_id: null,
  ...extra,
});
const result = (id: string, content: unknown, extra: object = {}) => ({
  type: 'user',
  message: { content: [{ type: 'tool_result', tool_use_id: `toolu_${id}`, content }] },
  ...extra,
});

describe('transcript (claude-code.txt)', () => {
  it('counts each API message once and keeps a true running total', () => {
    const usage = (n: number) => ({
      input_tokens: n,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 100,
      output_tokens: 1,
    });
    const trace = parseTranscript([
      { type: 'system', subtype: 'init', model: 'm-1' },
      // the same message on two lines (text, then tool use): its usage counts once
      {
        type: 'assistant',
        message: { id: 'msg_a', content: [{ type: 'text', text: 'hi' }], usage: usage(1) },
      },
      use('a', 'Read', { file_path: '/workspace/x.go' }, usage(1)),
      result('a', 'package x'),
      use('b', 'Glob', { pattern: '*.go' }, usage(2)),
      result('b', [
        { type: 'text', text: '/workspace/x.go' },
        { type: 'text', text: '/workspace/y.go' },
      ]),
      { type: 'tool_use', id: 'toolu_c', name: 'Grep', input: '{"pattern":"q"}' },
      { type: 'tool_result', tool_use_id: 'toolu_c', content: '/workspace/z.go' },
    ]);
    expect(trace.model).toBe('m-1');
    expect(trace.calls.map((c) => [c.id, c.name, c.cumulativeTokens, c.outputs])).toEqual([
      ['toolu_a', 'Read', 112, []], // a Read's result is file content: names no target, not kept
      ['toolu_b', 'Glob', 112 + 113, ['/workspace/x.go\n/workspace/y.go']],
      ['toolu_c', 'Grep', 225, ['/workspace/z.go']],
    ]);
    expect(trace.calls[2]!.input).toEqual({ pattern: 'q' });
    expect(trace.calls.every((c) => c.timestamp === null && c.elapsedSeconds === null)).toBe(true);
  });

  it('marks subagent calls and reads timestamps when lines carry them', () => {
    const trace = parseTranscript([
      { type: 'system', timestamp: '2026-01-01T00:00:00Z' },
      use(
        't',
        'Task',
        { description: 'look' },
        { output_tokens: 5 },
        { timestamp: '2026-01-01T00:00:02.5Z' },
      ),
      use(
        's',
        'Read',
        { file_path: 'a.go' },
        { output_tokens: 7 },
        { parent_tool_use_id: 'toolu_t', timestamp: '2026-01-01T00:00:04Z' },
      ),
    ]);
    expect(trace.calls.map((c) => [c.name, c.subagent, c.elapsedSeconds, c.cumulativeTokens])).toEqual([
      ['Task', false, 2.5, 5],
      ['Read', true, 4, 12],
    ]);
  });

  it('skips lines that are not JSON and says so; a file with none is unparseable', async () => {
    const dir = tmpTree({
      'ok.txt': `${JSON.stringify(use('a', 'Read', { file_path: 'a.go' }, {}))}\n{"type": "assist\n`,
      'bad.txt': 'not json\n',
    });
    const ok = await readTranscript(path.join(dir, 'ok.txt'));
    expect(ok.status === 'parsed' && ok.trace.problems).toEqual([
      'agent/claude-code.txt: 1 line is not JSON (skipped)',
    ]);
    expect(await readTranscript(path.join(dir, 'bad.txt'))).toEqual({
      status: 'unparseable',
      reason: 'agent/claude-code.txt has no JSON object line',
    });
    expect(await readTranscript(path.join(dir, 'none.txt'))).toEqual({ status: 'missing' });
  });
});

const metrics = (prompt: number, completion: number, creation: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  cached_tokens: prompt - 1,
  extra: { cache_creation_input_tokens: creation, cache_read_input_tokens: prompt - 1 },
});

describe('trajectory (ATIF)', () => {
  it('reads tool calls with their results, step times from the first step and tokens per message', () => {
    const trace = parseTrajectory({
      agent: { model_name: 'm-2' },
      steps: [
        { step_id: 1, timestamp: '2026-01-01T00:00:00.000Z', source: 'user', message: 'task' },
        { step_id: 2, timestamp: '2026-01-01T00:00:01.000Z', source: 'agent', metrics: metrics(100, 2, 50) },
        {
          step_id: 3,
          timestamp: '2026-01-01T00:00:01.250Z',
          source: 'agent',
          metrics: metrics(100, 2, 50), // the same message as step 2: not counted again
          tool_calls: [
            { tool_call_id: 'toolu_1', function_name: 'Glob', arguments: { pattern: '*.go' } },
            { tool_call_id: 'toolu_2', function_name: 'Read', arguments: '{"file_path": "/workspace/b.go"}' },
          ],
          observation: {
            results: [
              { source_call_id: 'toolu_1', content: '/workspace/a.go' },
              { source_call_id: 'toolu_2', content: [{ type: 'text', text: 'package b' }] },
            ],
          },
        },
        {
          step_id: 4,
          timestamp: '2026-01-01T00:01:00.001Z',
          source: 'agent',
          metrics: metrics(200, 3, 7),
          tool_calls: [{ tool_call_id: 'toolu_3', function_name: 'Edit', arguments: { file_path: 'b.go' } }],
        },
      ],
    })!;
    expect(trace.model).toBe('m-2');
    expect(trace.calls.map((c) => [c.id, c.name, c.elapsedSeconds, c.cumulativeTokens, c.outputs])).toEqual([
      ['toolu_1', 'Glob', 1.25, 152, ['/workspace/a.go']],
      ['toolu_2', 'Read', 1.25, 152, []],
      ['toolu_3', 'Edit', 60.001, 152 + 210, []],
    ]);
    expect(trace.calls[1]!.input).toEqual({ file_path: '/workspace/b.go' });
  });

  it('is unparseable without a steps array or as broken JSON', () => {
    expect(parseTrajectory({ schema_version: 'ATIF-v1.2' })).toBeUndefined();
    const dir = tmpTree({ 'bad.json': '{"steps": [' });
    const read = readTrajectory(path.join(dir, 'bad.json'));
    expect(read.status).toBe('unparseable');
  });
});

const call = (id: string, name: string, extra: Partial<ToolCall> = {}): ToolCall => ({
  id,
  name,
  input: {},
  outputs: [],
  timestamp: null,
  elapsedSeconds: null,
  cumulativeTokens: null,
  subagent: false,
  ...extra,
});

describe('merging the two traces', () => {
  it('keeps the trajectory, adds transcript results, recovers transcript-only calls in place', () => {
    const trajectory = [
      call('1', 'Task', { timestamp: '2026-01-01T00:00:01Z', elapsedSeconds: 1, cumulativeTokens: 10 }),
      call('2', 'Glob', { outputs: ['/workspace/a.go'], elapsedSeconds: 2, cumulativeTokens: 20 }),
    ];
    const transcript = [
      call('0', 'Read', { input: { file_path: 'first.go' } }), // before any shared call
      call('1', 'Task', { cumulativeTokens: 11 }),
      call('s1', 'Read', { subagent: true, input: { file_path: 'sub.go' } }),
      call('s2', 'Grep', { subagent: true, outputs: ['/workspace/q.go'] }),
      call('2', 'Glob', { outputs: ['/workspace/b.go'] }),
    ];
    const merged = mergeTraces(trajectory, transcript);
    expect(merged.map((c) => c.id)).toEqual(['0', '1', 's1', 's2', '2']);
    expect(merged[1]).toMatchObject({ timestamp: '2026-01-01T00:00:01Z', cumulativeTokens: 11 });
    expect(merged[4]!.outputs).toEqual(['/workspace/a.go', '/workspace/b.go']);
    expect(merged[2]!.subagent).toBe(true);
  });

  it('chooses the source: merged, one of them, or none (degraded)', () => {
    const parsed = (calls: ToolCall[]) => ({ status: 'parsed' as const, trace: { calls, problems: [] } });
    const missing = { status: 'missing' as const };
    const broken = { status: 'unparseable' as const, reason: 'agent/trajectory.json is not JSON (x)' };
    expect(chooseCalls(parsed([call('1', 'Read')]), parsed([call('1', 'Read')])).source).toBe('merged');
    expect(chooseCalls(parsed([]), parsed([call('1', 'Read')])).source).toBe('transcript');
    expect(chooseCalls(parsed([call('1', 'Read')]), parsed([])).source).toBe('trajectory');
    expect(chooseCalls(broken, parsed([call('1', 'Read')]))).toMatchObject({
      source: 'transcript',
      problems: ['agent/trajectory.json is not JSON (x)'],
    });
    expect(chooseCalls(missing, missing)).toEqual({
      calls: [],
      source: null,
      problems: ['no agent/trajectory.json or agent/claude-code.txt'],
    });
    expect(chooseCalls(broken, missing)).toEqual({ calls: [], source: null, problems: [broken.reason] });
  });
});

describe('events', () => {
  it('keep trace order; step_index is the ordinal of the call; hits and the summary follow the ground truth', () => {
    const events = buildEvents(
      [
        call('0', 'TodoWrite'),
        call('1', 'Glob', {
          outputs: ['/workspace/A.go\n/workspace/b.go'],
          elapsedSeconds: 3,
          cumulativeTokens: 30,
        }),
        call('2', 'mcp__sourcegraph__sg_go_to_definition', { input: { path: 'c.go', symbol: 'New' } }),
        call('3', 'Write', {
          input: { file_path: '/workspace/b.go', content: 'x'.repeat(10) },
          timestamp: '2026-01-01T00:00:00',
        }),
      ],
      ['a.go', 'B.go'],
    );
    expect(events).toEqual([
      {
        step_index: 1,
        timestamp: null,
        tool_name: 'Glob',
        tool_category: 'file_search',
        is_mcp: false,
        arguments: {},
        target_files: ['a.go', 'b.go'],
        hits_ground_truth: true,
        matched_ground_truth_files: ['a.go', 'B.go'],
        is_subagent: false,
        cumulative_tokens: 30,
        elapsed_seconds: 3,
      },
      {
        step_index: 2,
        timestamp: null,
        tool_name: 'mcp__sourcegraph__sg_go_to_definition',
        tool_category: 'symbol_navigation',
        is_mcp: true,
        arguments: { path: 'c.go', symbol: 'New' },
        target_files: ['c.go'],
        target_symbols: ['New'],
        hits_ground_truth: false,
        matched_ground_truth_files: [],
        is_subagent: false,
        cumulative_tokens: null,
        elapsed_seconds: null,
      },
      {
        step_index: 3,
        timestamp: null, // a time without a zone is not an ISO 8601 date-time the schema accepts
        tool_name: 'Write',
        tool_category: 'file_write',
        is_mcp: false,
        arguments: { file_path: '/workspace/b.go' }, // never the written content
        target_files: ['b.go'],
        hits_ground_truth: true,
        matched_ground_truth_files: ['B.go'],
        is_subagent: false,
        cumulative_tokens: null,
        elapsed_seconds: null,
      },
    ]);
    expect(summarizeEvents(events, ['a.go', 'B.go', 'd.go'])).toEqual({
      total_events: 3,
      mcp_events: 1,
      local_events: 2,
      unique_files_accessed: 3,
      ground_truth_files_hit: 2,
      ground_truth_files_total: 3,
      first_ground_truth_hit_step: 1,
      events_by_category: { file_search: 1, symbol_navigation: 1, file_write: 1 },
    });
  });
});
