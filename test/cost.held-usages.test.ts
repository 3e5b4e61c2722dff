import { describe, expect, it } from 'vitest';
import { heldUsageReader, holdUsages, usageOrError } from '../src/cost/held-usages.js';
import { InputError } from '../src/errors.js';

// The usages a thread keeps with its runs cross to the main thread as typed columns (#58): read back, each is
// the Usage it was, members in the same order (a partial writes them as JSON), or the error it was.

describe('held usages', () => {
  it('reads each slot back as it was held: counts, models in order, cached parts, none', () => {
    const held = holdUsages([
      {
        tokensIn: 1200,
        tokensOut: 150,
        cachedIn: 512,
        byModel: [
          { model: 'gpt-4o-mini', tokensIn: 1000, tokensOut: 100, cachedIn: 512 },
          { model: 'claude-haiku', tokensIn: 200, tokensOut: 50 },
        ],
      },
      undefined,
      // A call without its output count: no byModel.
      { tokensIn: 7 },
      { tokensIn: 30, tokensOut: 3, byModel: [{ model: undefined, tokensIn: 30, tokensOut: 3 }] },
      { tokensIn: 5, tokensOut: 1, byModel: [{ model: 'claude-haiku', tokensIn: 5, tokensOut: 1 }] },
    ]);
    // Two model names, each held once.
    expect(held.models).toEqual(['gpt-4o-mini', 'claude-haiku']);
    const read = heldUsageReader();
    expect(JSON.stringify([0, 1, 2, 3, 4].map((slot) => read(held, slot) ?? null))).toBe(
      JSON.stringify([
        {
          tokensIn: 1200,
          tokensOut: 150,
          cachedIn: 512,
          byModel: [
            { model: 'gpt-4o-mini', tokensIn: 1000, tokensOut: 100, cachedIn: 512 },
            { model: 'claude-haiku', tokensIn: 200, tokensOut: 50 },
          ],
        },
        null,
        { tokensIn: 7 },
        { tokensIn: 30, tokensOut: 3, byModel: [{ tokensIn: 30, tokensOut: 3 }] },
        { tokensIn: 5, tokensOut: 1, byModel: [{ model: 'claude-haiku', tokensIn: 5, tokensOut: 1 }] },
      ]),
    );
    expect(read(held, 3)!.byModel![0]!.model).toBeUndefined();
  });

  it('throws the input error a slot was held as, when that slot is read, and no other', () => {
    const error = new InputError(
      { file: 't.parquet', line: 4 },
      'tokens_cached is 500, more than tokens_in 100',
    );
    const usages = [
      usageOrError(() => ({ tokensIn: 1 })),
      usageOrError(() => {
        throw error;
      }),
    ];
    // Cloned as a thread's answer is: the error crosses as data.
    const held = structuredClone(holdUsages(usages));
    const read = heldUsageReader();
    expect(read(held, 0)).toEqual({ tokensIn: 1 });
    expect(() => read(held, 1)).toThrow(error);
    expect(() =>
      usageOrError(() => {
        throw new TypeError('a bug, not an input error');
      }),
    ).toThrow(TypeError);
  });
});
