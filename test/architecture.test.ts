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
    const graph = await imports(path.join(REPO, 'src'));
    expect(graph.warnings().skipped).toEqual([]);
    const circles = graph.circular().map((chain) => chain.join(' > '));
    expect(circles).toEqual([]);
  });

  it('the circle check sees a circle made of type imports only', async () => {
    const dir = tmpTree({
      'a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect((await imports(dir)).circular()).toEqual([['a.ts', 'b.ts']]);
  });
});
