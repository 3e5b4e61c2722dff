import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { registerSource, sourceFor } from '../src/grounded-answer/sources/index.js';
import type { TraceInput } from '../src/grounded-answer/trace-input.js';
import type { TraceSource } from '../src/grounded-answer/sources/source.js';

const input = (format: string, qid = 'input.value') => ({ format, qid }) as TraceInput;

describe('the registry of trace sources', () => {
  it('gives each input the one source that claims it', () => {
    expect(sourceFor(['t.jsonl'], input('jsonl')).name).toBe('jsonl');
    expect(sourceFor([], input('jsonl')).name).toBe('jsonl');
    expect(sourceFor(['a.parquet', 'b.parquet'], input('jsonl')).name).toBe('parquet');
    expect(sourceFor(['a.parquet', 'b.jsonl'], input('jsonl')).name).toBe('records');
    expect(sourceFor(['s.jsonl'], input('openinference')).name).toBe('otlp');
    expect(sourceFor(['s.jsonl', 'd.json'], input('openinference')).name).toBe('records');
  });

  it('names the formats, one line, when no source reads the input', () => {
    let err: unknown;
    try {
      sourceFor(['t.csv'], input('csv'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('t.csv');
    expect(message).toContain('no trace format reads these files as format: csv');
    for (const name of ['jsonl —', 'otlp —', 'parquet —', 'records —']) expect(message).toContain(name);
  });

  it('refuses, as an internal error, an input two sources claim', () => {
    const greedy = { ...sourceFor(['t.jsonl'], input('jsonl')), name: 'greedy', accepts: () => true };
    const remove = registerSource(greedy as TraceSource);
    try {
      expect(() => sourceFor(['t.jsonl'], input('jsonl'))).toThrow(
        'internal: trace sources jsonl and greedy both accept the input',
      );
    } finally {
      remove();
    }
    expect(sourceFor(['t.jsonl'], input('jsonl')).name).toBe('jsonl');
  });

  it('says which inputs name their gold item by its question', () => {
    const byQuestion = (files: string[], i: TraceInput) => sourceFor(files, i).byQuestion?.(i) ?? false;
    expect(byQuestion(['s.jsonl'], input('openinference'))).toBe(true);
    expect(byQuestion(['d.json'], input('openinference'))).toBe(true);
    expect(byQuestion(['s.jsonl'], input('openinference', 'metadata.qid'))).toBe(false);
    expect(byQuestion(['t.jsonl'], input('jsonl'))).toBe(false);
    expect(byQuestion(['a.parquet'], input('jsonl'))).toBe(false);
  });
});
