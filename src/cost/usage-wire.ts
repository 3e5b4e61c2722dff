import { z } from 'zod';
import type { Usage } from './usage.js';

// One answer's token counts as a partial file carries them between shards (latency samples, grounded-qa runs):
// one schema for every suite, so a merge reads back the Usage a run holds.

/** Counts, and by model [model or null, in, out, and cached when counted]. */
export const usageWireSchema = z.strictObject({
  in: z.int().min(0).optional(),
  out: z.int().min(0).optional(),
  cached: z.int().min(0).optional(),
  models: z
    .array(z.tuple([z.string().nullable(), z.int().min(0), z.int().min(0), z.int().min(0).optional()]))
    .optional(),
});
export type UsageWire = z.infer<typeof usageWireSchema>;

export function usageToWire(u: Usage): UsageWire {
  return {
    ...(u.tokensIn !== undefined && { in: u.tokensIn }),
    ...(u.tokensOut !== undefined && { out: u.tokensOut }),
    ...(u.cachedIn !== undefined && { cached: u.cachedIn }),
    ...(u.byModel && {
      models: u.byModel.map((m): NonNullable<UsageWire['models']>[number] =>
        m.cachedIn === undefined
          ? [m.model ?? null, m.tokensIn, m.tokensOut]
          : [m.model ?? null, m.tokensIn, m.tokensOut, m.cachedIn],
      ),
    }),
  };
}

export function usageFromWire(u: UsageWire): Usage {
  return {
    ...(u.in !== undefined && { tokensIn: u.in }),
    ...(u.out !== undefined && { tokensOut: u.out }),
    ...(u.cached !== undefined && { cachedIn: u.cached }),
    ...(u.models && {
      byModel: u.models.map(([model, tokensIn, tokensOut, cachedIn]) => ({
        model: model ?? undefined,
        tokensIn,
        tokensOut,
        ...(cachedIn !== undefined && { cachedIn }),
      })),
    }),
  };
}
