import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { answerSettings, checkMarkers, fieldsSchema } from '../../grounded-answer/config.js';
import { goldShape } from '../../grounded-answer/contract.js';
import { DEFAULT_THRESHOLDS, runShape } from './contract.js';

const share = z.number().min(0).max(1);

/** A stability suite's keys in gates.yaml. */
export const configSchema = z
  .strictObject({
    kind: z.literal('stability'),
    gold: z.string().min(1),
    runs: z.string().min(1),
    lock: z.string().min(1).optional(),
    refusal_token: answerSettings.refusal_token,
    refusal: answerSettings.refusal,
    citation_markers: answerSettings.citation_markers,
    min_runs: z.int().min(1).max(1_000_000).default(2),
    fields: fieldsSchema({ gold: goldShape, runs: runShape }),
    thresholds: z
      .strictObject({
        refusal_consistency: share.default(DEFAULT_THRESHOLDS.refusal_consistency),
        constraint_echo_consistency: share.default(DEFAULT_THRESHOLDS.constraint_echo_consistency),
        containment_rate: share.default(DEFAULT_THRESHOLDS.containment_rate),
        citation_hit_rate: share.default(DEFAULT_THRESHOLDS.citation_hit_rate),
        citation_stability: share.default(DEFAULT_THRESHOLDS.citation_stability),
        claim_edit_distance_median: share.default(DEFAULT_THRESHOLDS.claim_edit_distance_median),
      })
      .default(DEFAULT_THRESHOLDS),
    gates: gatesSchema.default({}),
  })
  .superRefine(checkMarkers);

export type StabilityConfig = z.infer<typeof configSchema>;
