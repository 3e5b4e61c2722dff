import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { goldShape, traceShape } from '../../grounded-answer/contract.js';
import {
  answerSettings,
  checkInputSettings,
  checkMarkers,
  fieldsSchema,
  inputSettings,
} from '../../grounded-answer/config.js';
import { pricingSetting } from '../../cost/pricing-file.js';

/** A grounded-qa suite's keys in gates.yaml. */
export const configSchema = z
  .strictObject({
    kind: z.literal('grounded-qa'),
    gold: z.string().min(1),
    traces: z.string().min(1),
    lock: z.string().min(1).optional(),
    refusal_token: answerSettings.refusal_token,
    refusal: answerSettings.refusal,
    citation_markers: answerSettings.citation_markers,
    k: z.int().min(1).max(100_000).default(5),
    scu: answerSettings.scu,
    claims: answerSettings.claims,
    format: inputSettings.format,
    openinference: inputSettings.openinference,
    fields: fieldsSchema({ gold: goldShape, traces: traceShape }),
    pricing: pricingSetting,
    gates: gatesSchema.default({}),
  })
  .superRefine((config, ctx) => {
    checkInputSettings(config, ctx);
    checkMarkers(config, ctx);
  });
export type GroundedQaConfig = z.infer<typeof configSchema>;
