import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { groundTruthFromTask } from '../src/suites/agent-retrieval/ground-truth/chain.js';
import { loadRegistry } from '../src/suites/agent-retrieval/ground-truth/registry.js';
import { filesFromPatch, pathsFromText } from '../src/suites/agent-retrieval/ground-truth/text-paths.js';
import { findTaskDir } from '../src/suites/agent-retrieval/normalize/document.js';
import { normalizeRun } from '../src/suites/agent-retrieval/normalize/run.js';
import { FIXTURES, tmpTree } from './helpers/tmp.js';

/** The ground truth of a task folder holding `files`, without the `file` it was read from. */
function truth(files: Record<string, string>) {
  const dir = tmpTree(files);
  const found = groundTruthFromTask(dir);
  if (!found.truth) return { reason: found.reason };
  const { file, ...rest } = found.truth;
  return { ...rest, from: path.relative(dir, file) };
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const PATCH = `diff --git a/src/a.py b/src/a.py
index 1..2 100644
--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-x
+y
diff --git a/src/gone.py b/src/gone.py
deleted file mode 100644
--- a/src/gone.py
+++ /dev/null
`;

describe('ground truth: tests/ground_truth.json in its shapes', () => {
  it('a list of paths (medium)', () => {
    expect(truth({ 'tests/ground_truth.json': json(['a/x.go', 'b/y.go', 'a/x.go']) })).toEqual({
      files: ['a/x.go', 'b/y.go'],
      source: 'ground_truth_json_list',
      confidence: 'medium',
      from: 'tests/ground_truth.json',
    });
  });

  it('{files}: its confidence, else ground_truth_meta.json’s, else medium; symbols, chunks, high-confidence edit files', () => {
    expect(truth({ 'tests/ground_truth.json': json({ files: ['a.go'], confidence: 'high' }) })).toMatchObject(
      {
        source: 'ground_truth_json_files',
        confidence: 'high',
      },
    );
    expect(
      truth({
        'tests/ground_truth.json': json({ files: ['a.go'] }),
        'tests/ground_truth_meta.json': json({ ground_truth_confidence: 'low' }),
      }),
    ).toMatchObject({ confidence: 'low' });
    expect(
      truth({
        'tests/ground_truth.json': json({
          files: ['a.go', 'b.go'],
          symbols: [{ file: 'a.go', symbol: 'New', repo: null }],
          chunks: [{ file: 'a.go', line_start: 3, line_end: 9 }],
          expected_edit_files: ['a.go', 'a.go'],
          expected_edit_files_source: 'curator',
          expected_edit_files_confidence: 'high',
        }),
      }),
    ).toEqual({
      files: ['a.go', 'b.go'],
      source: 'ground_truth_json_files',
      confidence: 'medium',
      symbols: [{ file: 'a.go', symbol: 'New', repo: null }],
      chunks: [{ file: 'a.go', line_start: 3, line_end: 9 }],
      expectedEditFiles: { files: ['a.go'], source: 'curator' },
      from: 'tests/ground_truth.json',
    });
    // Edit files a source is not sure of are not edit targets.
    const medium = truth({
      'tests/ground_truth.json': json({
        files: ['a.go'],
        expected_edit_files: ['a.go'],
        expected_edit_files_confidence: 'medium',
      }),
    });
    expect(medium).not.toHaveProperty('expectedEditFiles');
  });

  it('the other shapes: file_references, buggy_files, entries, file_path, canonical_path', () => {
    expect(
      truth({
        'tests/ground_truth.json': json({
          file_references: [
            { patterns: ['src/auth/login\\.py', 'validate_token'] },
            { patterns: ['^lib/x\\-y\\.ts$'] },
          ],
        }),
      }),
    ).toMatchObject({
      files: ['src/auth/login.py', 'lib/x-y.ts'],
      source: 'ground_truth_json_refs',
      confidence: 'medium',
    });
    expect(
      truth({ 'tests/ground_truth.json': json({ buggy_files: ['a.c'], buggy_functions: ['f'] }) }),
    ).toMatchObject({
      files: ['a.c'],
      source: 'ground_truth_json_buggy',
      confidence: 'high',
      expectedEditFiles: { files: ['a.c'], source: 'ground_truth_json_buggy' },
    });
    expect(
      truth({
        'tests/ground_truth.json': json({
          key_fields: ['x'],
          entries: [{ file: 'a.go' }, { note: 1 }, { file: 'a.go' }],
        }),
      }),
    ).toMatchObject({ files: ['a.go'], source: 'ground_truth_json_entries', confidence: 'medium' });
    expect(
      truth({ 'tests/ground_truth.json': json({ file_path: 'pkg/perf.go', target_function: 'F' }) }),
    ).toMatchObject({
      files: ['pkg/perf.go'],
      source: 'ground_truth_json_perf',
      confidence: 'low',
    });
    expect(truth({ 'tests/ground_truth.json': json({ canonical_path: 'lib/q.py' }) })).toMatchObject({
      files: ['lib/q.py'],
      source: 'ground_truth_json_canonical',
      confidence: 'high',
    });
  });

  it('a rubric (no file list) means no ground truth, and the chain stops there', () => {
    expect(
      truth({
        'tests/ground_truth.json': json({ scoring_categories: { accuracy: 1 } }),
        'tests/test.sh': 'grep -q x src/main.go\n',
      }),
    ).toEqual({ reason: 'ground_truth.json lists no files (a rubric for a generated answer)' });
    expect(truth({ 'tests/ground_truth.json': json({ files: [] }) })).toEqual({
      reason: 'ground_truth_json_files: the file list is empty',
    });
  });

  it('bad JSON or a mistyped field is an input error at its line', () => {
    expect(() => truth({ 'tests/ground_truth.json': '{\n  "files": ["a.go",]\n}' })).toThrow(
      /tests\/ground_truth\.json:2:20: invalid JSON: .*; expected a task ground truth/,
    );
    expect(() => truth({ 'tests/ground_truth.json': '{\n  "files": ["a.go", 3]\n}' })).toThrow(
      /tests\/ground_truth\.json:2:21: field "files\[1\]": expected string, received number/,
    );
  });
});

describe('ground truth: the rest of the priority chain', () => {
  it('tests/expected_defects.json: files, chunks from defects with lines (high)', () => {
    expect(
      truth({
        'tests/expected_defects.json': json([
          { id: 'd1', file: 'a.go', line_start: 10, line_end: 20, defect_type: 'race-condition' },
          { id: 'd2', file: 'b.go', line_start: 5 },
          { id: 'd3', file: 'a.go' },
        ]),
      }),
    ).toEqual({
      files: ['a.go', 'b.go'],
      source: 'expected_defects_json',
      confidence: 'high',
      chunks: [
        { file: 'a.go', line_start: 10, line_end: 20, annotation: 'race-condition' },
        { file: 'b.go', line_start: 5, line_end: 5, annotation: null },
      ],
      from: 'tests/expected_defects.json',
    });
    expect(() =>
      truth({ 'tests/expected_defects.json': json([{ file: 'a.go', line_start: 9, line_end: 2 }]) }),
    ).toThrow('[0]: line_end 2 is before line_start 9; expected line_start ≤ line_end');
  });

  it('tests/expected_changes.json (high, edit targets)', () => {
    expect(truth({ 'tests/expected_changes.json': json({ expected_files: ['x.go', 'y.go'] }) })).toEqual({
      files: ['x.go', 'y.go'],
      source: 'expected_changes_json',
      confidence: 'high',
      expectedEditFiles: { files: ['x.go', 'y.go'], source: 'expected_changes_json' },
      from: 'tests/expected_changes.json',
    });
  });

  it('patches: reference_fix.patch, then expected.diff, then expected.patch (high, edit targets)', () => {
    const patch = { files: ['src/a.py', 'src/gone.py'], source: 'patch', confidence: 'high' };
    expect(
      truth({ 'tests/reference_fix.patch': PATCH, 'tests/expected.diff': '+++ b/other.py\n' }),
    ).toMatchObject({
      ...patch,
      from: 'tests/reference_fix.patch',
      expectedEditFiles: { files: ['src/a.py', 'src/gone.py'], source: 'patch' },
    });
    expect(truth({ 'tests/expected.diff': PATCH })).toMatchObject({ ...patch, from: 'tests/expected.diff' });
    expect(truth({ 'tests/expected.patch': PATCH })).toMatchObject({
      ...patch,
      from: 'tests/expected.patch',
    });
    // An empty patch falls through to the next source.
    expect(truth({ 'tests/reference_fix.patch': '', 'tests/expected.patch': PATCH })).toMatchObject({
      from: 'tests/expected.patch',
    });
  });

  it('solution/solve.sh: the gold patch (medium, edit targets)', () => {
    expect(truth({ 'solution/solve.sh': `#!/bin/bash\ngit apply <<'EOF'\n${PATCH}EOF\n` })).toEqual({
      files: ['src/a.py', 'src/gone.py'],
      source: 'gold_patch',
      confidence: 'medium',
      expectedEditFiles: { files: ['src/a.py', 'src/gone.py'], source: 'gold_patch' },
      from: 'solution/solve.sh',
    });
  });

  it('tests/test.sh paths (medium), then instruction.md paths (low)', () => {
    const script =
      'test -f /workspace/docs/arch.md\ngrep -q seg internal/wal/wal.go\necho 1 > /logs/verifier/reward.txt\n';
    expect(truth({ 'tests/test.sh': script, 'instruction.md': 'See `cmd/main.go`.' })).toEqual({
      files: ['/workspace/docs/arch.md', 'internal/wal/wal.go'],
      source: 'test_script',
      confidence: 'medium',
      from: 'tests/test.sh',
    });
    expect(
      truth({ 'tests/test.sh': 'exit 0\n', 'instruction.md': 'Fix (`cmd/main.go`) and pkg/util/x.go:12.' }),
    ).toEqual({
      files: ['cmd/main.go', 'pkg/util/x.go'],
      source: 'instruction',
      confidence: 'low',
      from: 'instruction.md',
    });
    expect(truth({ 'instruction.md': 'Write answer.md.' })).toEqual({
      reason: 'instruction.md mentions no file path',
    });
    expect(truth({})).toEqual({ reason: 'the task folder has no ground-truth source' });
  });

  it('takes the first source in the chain that lists files', () => {
    const all = {
      'tests/expected_defects.json': json([{ file: 'defect.go' }]),
      'tests/expected_changes.json': json({ expected_files: ['change.go'] }),
      'tests/reference_fix.patch': '+++ b/patch.go\n',
      'solution/solve.sh': '+++ b/gold.go\n',
      'tests/test.sh': 'cat src/test.go\n',
      'instruction.md': 'see src/instr.go',
    };
    expect(truth(all)).toMatchObject({ files: ['defect.go'] });
    expect(truth({ ...all, 'tests/expected_defects.json': json([]) })).toMatchObject({
      files: ['change.go'],
    });
    expect(truth({ ...all, 'tests/ground_truth.json': json(['gt.go']) })).toMatchObject({ files: ['gt.go'] });
  });
});

describe('patch and prose paths', () => {
  it('reads diff headers', () => {
    expect(filesFromPatch(PATCH)).toEqual(['src/a.py', 'src/gone.py']);
    expect(filesFromPatch('--- a/x.c\t2024-01-01\n+++ b/y.c\t2024-01-01\n')).toEqual(['x.c', 'y.c']);
  });

  it('finds repository paths, not URLs, system paths or lock files', () => {
    expect(
      pathsFromText(
        'Edit src/a.ts and "lib/b.rs"; see https://github.com/o/r/blob/main/c.go, /usr/lib/x.so, node_modules/p/i.js, poetry.lock/x.lock, /testbed/d/e.py',
      ),
    ).toEqual(['src/a.ts', 'lib/b.rs', '/testbed/d/e.py']);
  });
});

describe('ground truth: registry and task folders', () => {
  it('reads the registry excerpt, with repo::path organisation entries kept as they are', () => {
    const registry = loadRegistry(path.join(FIXTURES, 'csb', 'ground_truth_registry_excerpt.json'));
    expect(registry.size).toBe(5);
    expect(registry.get('ccx-agentic-081')).toMatchObject({
      benchmark: 'csb_org_org',
      truth: { source: 'ground_truth_json_files', confidence: 'medium' },
    });
    expect(registry.get('ccx-agentic-081')!.truth!.files[0]).toBe(
      'kafka::clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerConfig.java',
    );
    expect(registry.get('ccx-incident-031')!.truth!.source).toBe('oracle_answer_json');
  });

  it('fills in tasks the task folders give no ground truth for', async () => {
    const dir = tmpTree({
      'runs/r1/cfg/2026-01-01__00-00-00/t-1__abc/agent/claude-code.txt': '{"type":"system"}\n',
      'registry.json': json({
        't-1': { files: ['x.go'], source: 'oracle_answer_json', confidence: 'high', benchmark: 'b1' },
      }),
    });
    const run = await normalizeRun(path.join(dir, 'runs', 'r1'), {
      registry: loadRegistry(path.join(dir, 'registry.json')),
      generatedAt: '2026-01-01T00:00:00Z',
    });
    expect(run.tasks[0]!.doc.coverage).toMatchObject({
      has_ground_truth: true,
      ground_truth_source: 'oracle_answer_json',
      ground_truth_confidence: 'high',
    });
    expect(run.tasks[0]!.doc.provenance.benchmark).toBe('b1');
  });

  it('finds {tasks}/{task} or {tasks}/{benchmark}/{task}; the same task in two benchmarks is an error', () => {
    const dir = tmpTree({
      'a/t1/instruction.md': 'x',
      'b/t1/instruction.md': 'x',
      'a/t2/x': 'x',
      't3/x': 'x',
    });
    expect(findTaskDir(dir, 't2')).toEqual({ dir: path.join(dir, 'a', 't2'), benchmark: 'a' });
    expect(findTaskDir(dir, 't3')).toEqual({ dir: path.join(dir, 't3') });
    expect(findTaskDir(dir, 't4')).toBeUndefined();
    expect(() => findTaskDir(dir, 't1')).toThrow('task "t1" is in 2 benchmark folders (a, b); expected one');
  });
});
