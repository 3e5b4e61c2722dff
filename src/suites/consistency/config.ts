import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import type { ScoreContext } from '../types.js';

/** A consistency suite's keys in gates.yaml. */
export const configSchema = z
  .strictObject({
    kind: z.literal('consistency'),
    pairs: z.string().min(1).optional(),
    scholar: z.string().min(1).optional(),
    auditor: z.string().min(1).optional(),
    gates: gatesSchema.default({}),
  })
  .superRefine((config, ctx) => {
    const split = config.scholar !== undefined || config.auditor !== undefined;
    if (config.pairs !== undefined ? split : config.scholar === undefined || config.auditor === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected either pairs (one file of scholar/auditor pairs) or both scholar and auditor',
      });
    }
  });

export type ConsistencyConfig = z.infer<typeof configSchema>;

/** The suite's inputs, checked to be pairs or scholar and auditor, not both. */
export function oneInput(ctx: ScoreContext): ScoreContext['inputs'] {
  const { pairs, scholar, auditor } = ctx.inputs;
  if (pairs && (scholar || auditor)) {
    throw new InputError(
      { file: pairs[0]! },
      `suite "${ctx.suite}": both pairs and scholar/auditor are given (one by --input); expected one of them`,
    );
  }
  return ctx.inputs;
}
