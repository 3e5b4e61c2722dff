// The one-line error a gates.yaml gets, for tests of what the loader refuses and where.
import path from 'node:path';
import { expect } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { InputError } from '../../src/errors.js';
import { run } from '../../src/run.js';
import { tmpTree } from './tmp.js';

/** The InputError's message for a gates.yaml of this text (named gates.yaml in the working directory). */
export function configError(source: string): string {
  try {
    parseConfig(source, path.join(process.cwd(), 'gates.yaml'));
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).message;
  }
  throw new Error('expected an InputError');
}

/** The error of a grounded-qa suite whose `fields.traces` are `lines`, as a run meets it ('no error' if none). */
export async function fieldsError(lines: string[]): Promise<string> {
  const dir = tmpTree({
    'gates.yaml': [
      'version: 1',
      'suites:',
      '  s:',
      '    kind: grounded-qa',
      '    gold: g.jsonl',
      '    traces: t.jsonl',
      '    fields:',
      '      traces:',
      ...lines,
      '',
    ].join('\n'),
  });
  return run({ config: path.join(dir, 'gates.yaml') }).then(
    () => 'no error',
    (err: unknown) => (err as Error).message.replace(/^.*groundgate-test-[^/]+\//, ''),
  );
}
