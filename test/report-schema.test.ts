import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportJsonSchema } from '../src/report/json-schema.js';
import { REPO } from './helpers/tmp.js';

describe('report.json schema', () => {
  it('is committed in docs/ exactly as the zod contract generates it (npm run schema)', () => {
    expect(readFileSync(path.join(REPO, 'docs/report.schema.json'), 'utf8')).toBe(reportJsonSchema());
  });

  it('versions the package and the tool together', async () => {
    const { VERSION } = await import('../src/version.js');
    expect(VERSION).toBe(JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).version);
  });
});
