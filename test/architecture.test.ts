import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/tmp.js';

const SUITES = path.join(REPO, 'src/suites');

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
});
