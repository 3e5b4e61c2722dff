import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { REPO, tmpTree } from './helpers/tmp.js';

const SUITES = path.join(REPO, 'src/suites');

/** Every import counts, `import type` too: a circle of types is a circle a reader has to untangle. */
const imports = (dir: string) =>
  madge(dir, {
    fileExtensions: ['ts'],
    tsConfig: path.join(REPO, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  });

let graph: ReturnType<typeof imports> | undefined;
const srcGraph = () => (graph ??= imports(path.join(REPO, 'src')));
/** Each module of src/ and the modules it imports (madge's typings leave obj() out). */
const srcImports = async () => ((await srcGraph()) as unknown as { obj(): Record<string, string[]> }).obj();

describe('the source layout', () => {
  it('no suite imports another suite: what several share lives outside src/suites (e.g. src/grounded-answer)', () => {
    const kinds = readdirSync(SUITES, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const crossings: string[] = [];
    for (const kind of kinds) {
      const files = readdirSync(path.join(SUITES, kind), { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('.ts'),
      );
      for (const file of files) {
        const full = path.join(SUITES, kind, file);
        for (const [, spec] of readFileSync(full, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
          const target = path.relative(SUITES, path.resolve(path.dirname(full), spec!));
          const into = target.split(path.sep)[0]!;
          if (kinds.includes(into) && into !== kind) crossings.push(`${kind}/${file} → ${target}`);
        }
      }
    }
    expect(kinds).toContain('grounded-qa');
    expect(crossings).toEqual([]);
  });

  // Reading src/ takes madge seconds (more on a busy machine): the timeout is room, not a measure.
  it('no import circle in src/ (madge)', { timeout: 120_000 }, async () => {
    const graph = await srcGraph();
    expect(graph.warnings().skipped).toEqual([]);
    const circles = graph.circular().map((chain) => chain.join(' > '));
    expect(circles).toEqual([]);
  });

  it(
    'a format is one folder: a module of sources/<format>/ is imported only from that folder and by the registry',
    { timeout: 120_000 },
    async () => {
      const deps = await srcImports();
      const folderOf = (f: string) => /^grounded-answer\/sources\/([^/]+)\//.exec(f)?.[1];
      const formats = new Set(Object.keys(deps).flatMap((f) => folderOf(f) ?? []));
      expect([...formats].sort()).toEqual(['jsonl', 'otlp', 'parquet', 'records']);
      const crossings = Object.entries(deps).flatMap(([file, to]) =>
        to
          .filter((d) => folderOf(d) !== undefined && folderOf(d) !== folderOf(file))
          .filter(() => file !== 'grounded-answer/sources/index.ts')
          .map((d) => `${file} → ${d}`),
      );
      expect(crossings).toEqual([]);
    },
  );

  it('a format name is tested only in sources/ and where config is read (a known few besides)', () => {
    const SRC_DIR = path.join(REPO, 'src');
    const name = "'(?:jsonl|otlp|parquet|openinference|otel)'";
    const test = new RegExp(`[!=]==?\\s*${name}|${name}\\s*[!=]==?`, 'g');
    const files = readdirSync(SRC_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    const testing = files
      .filter((f) => !f.startsWith(`grounded-answer${path.sep}sources${path.sep}`))
      .filter((f) => (readFileSync(path.join(SRC_DIR, f), 'utf8').match(test) ?? []).length > 0)
      .map((f) => f.split(path.sep).join('/'))
      .sort();
    expect(testing).toEqual(
      [
        // Config: where `format:` is read, checked and proposed.
        'cli/init.ts',
        'grounded-answer/config.ts',
        'grounded-answer/trace-input.ts',
        'init/span-proposal.ts',
        // The ranking suite's own run format (TREC or JSON Lines), not a trace format.
        'suites/ranking/load.ts',
      ].sort(),
    );
  });

  it('claims are judged in one stage: only judge-stage imports the judge', { timeout: 120_000 }, async () => {
    const deps = await srcImports();
    const judging = Object.entries(deps)
      .filter(([, to]) => to.includes('grounded-answer/pipeline/judge.ts'))
      .map(([file]) => file);
    expect(judging).toEqual(['grounded-answer/pipeline/judge-stage.ts']);
  });

  it("the reading pipeline's stages import only the stages before them", { timeout: 120_000 }, async () => {
    const deps = await srcImports();
    const stages = [
      'pipeline/chunk-scan',
      'pipeline/pick',
      'pipeline/judge-stage',
      'pipeline/judged-runs',
      'sources/source',
      'pipeline/adapter',
      'pipeline/pipeline',
    ].map((s) => `grounded-answer/${s}.ts`);
    /** Every module `file` reaches through its imports. */
    const reach = (file: string, seen = new Set<string>()): Set<string> => {
      for (const d of deps[file] ?? []) if (!seen.has(d)) reach(d, seen.add(d));
      return seen;
    };
    const backwards = stages.flatMap((stage, i) =>
      stages.slice(i + 1).flatMap((later) => (reach(stage).has(later) ? [`${stage} → ${later}`] : [])),
    );
    expect(stages.every((s) => s in deps)).toBe(true);
    expect(reach('grounded-answer/pipeline/pipeline.ts').has('grounded-answer/pipeline/judge-stage.ts')).toBe(
      true,
    );
    expect(backwards).toEqual([]);
  });

  it('the circle check sees a circle made of type imports only', async () => {
    const dir = tmpTree({
      'a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect((await imports(dir)).circular()).toEqual([['a.ts', 'b.ts']]);
  });
});
