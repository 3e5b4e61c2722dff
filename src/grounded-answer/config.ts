import safeRegex from 'safe-regex2';
import { z } from 'zod';
import { fieldMapSchema } from '../io/field-map.js';
import type { Shape } from '../io/record-shape.js';
import { DEFAULT_SCU_RULES, type ScuRule } from './scu.js';

/**
 * An SCU pattern. gates.yaml may come from a fork, and a pattern that backtracks exponentially (`(a+)+$`)
 * would hold the job on one crafted claim: nested quantifiers are refused (safe-regex2's star-height test, a
 * heuristic that passes the seed's rules), and so is a pattern longer than anyone writes by hand.
 */
const regex = z
  .string()
  .max(500, 'expected a regular expression of at most 500 characters')
  .superRefine((source, ctx) => {
    try {
      new RegExp(source);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${(err as Error).message}` });
      return;
    }
    if (!safeRegex(source))
      ctx.addIssue({
        code: 'custom',
        message: `regular expression ${JSON.stringify(source)} may take exponential time (a quantifier inside a quantified group); expected one without nested repetition`,
      });
  });

const scuSchema = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().default(true),
    /** Added to the defaults, or replacing them with `default_rules: false`. */
    rules: z.array(z.strictObject({ lock: regex, contradiction: regex })).default([]),
    default_rules: z.boolean().default(true),
  }),
]);

/**
 * The settings of every suite that judges grounded answers (grounded-qa, stability, latency with gold):
 * declared once, so the three read them alike.
 */
export const answerSettings = {
  refusal_token: z.string().trim().min(1).default('not in context'),
  /** More ways a claim refuses, beside refusal_token (docs/metrics.md, "Refusals"). */
  refusal: z
    .strictObject({
      phrases: z
        .array(
          z.string().trim().min(1, 'expected a phrase that is not blank, which every claim would start with'),
        )
        .default([]),
      patterns: z.array(regex).default([]),
    })
    .optional(),
  /** Citations read from markers in the claim (docs/formats.md, "Inline citation markers"). */
  citation_markers: z
    .strictObject({
      pattern: regex.superRefine((source, ctx) => {
        const groups = captureGroups(source);
        if (groups !== undefined && groups !== 1)
          ctx.addIssue({
            code: 'custom',
            message: `regular expression ${JSON.stringify(source)} has ${groups} capture groups; expected exactly one, the citation each match makes`,
          });
      }),
      refers_to: z.enum(['rank', 'id']),
    })
    .optional(),
  scu: scuSchema.default(false),
};

/** How many capture groups a pattern has (an alternative that matches "" makes every group take part); undefined when it is no pattern. */
function captureGroups(source: string): number | undefined {
  try {
    return new RegExp(`${source}|`).exec('')!.length - 1;
  } catch {
    return undefined;
  }
}

/** The contradiction rules in force, or null when SCU is off. */
export function scuRules(scu: z.infer<typeof answerSettings.scu>): ScuRule[] | null {
  if (scu === false) return null;
  if (scu === true) return [...DEFAULT_SCU_RULES];
  if (!scu.enabled) return null;
  return [...(scu.default_rules ? DEFAULT_SCU_RULES : []), ...scu.rules];
}

/**
 * How a grounded-answer suite reads its inputs: traces as JSON Lines in the contract's shape (or any shape
 * with `fields:`), or OpenInference spans; a `.parquet` gold or traces file is read as rows either way.
 */
export const inputSettings = {
  format: z.enum(['jsonl', 'openinference']).default('jsonl'),
  openinference: z
    .strictObject({
      /**
       * Where a trace's question id is: `input.value` (the root span's input, matched to a gold question),
       * `metadata.<key>` (a key of the root span's metadata), or any other span attribute holding the id.
       */
      qid: z.string().trim().min(1).default('input.value'),
      /**
       * Where a retrieved document's id is: `document.id`, or `metadata.<key>` (a key of its document.metadata
       * JSON, nested keys dotted), where LangChain writes the user's ids.
       */
      document_id: z
        .string()
        .trim()
        .regex(
          /^(?:document\.id|metadata(?:\.[^.]+)+)$/,
          'expected document.id, or metadata.<key> naming a key of each document.metadata (nested keys dotted: metadata.source.id)',
        )
        .default('document.id'),
    })
    .optional(),
};

/** `openinference:` says how to read spans: without `format: openinference` it would be ignored. */
export function checkInputSettings(
  config: { format: string; openinference?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (config.openinference !== undefined && config.format !== 'openinference')
    ctx.addIssue({
      code: 'custom',
      path: ['openinference'],
      message:
        'applies to OpenInference spans only; expected format: openinference with it, or no openinference',
    });
}

/** `fields:` of a suite whose inputs have these contracts: per input, canonical pointer → the user's pointer. */
export function fieldsSchema<K extends string>(inputs: Record<K, Shape>) {
  const members = Object.fromEntries(
    Object.entries<Shape>(inputs).map(([key, s]) => [key, fieldMapSchema(s).optional()]),
  ) as Record<K, z.ZodOptional<ReturnType<typeof fieldMapSchema>>>;
  return z.strictObject(members).optional();
}
