import { z } from 'zod';
import { compiled, patternProblem } from '../config/pattern.js';
import { fieldMapSchema } from '../io/field-map.js';
import type { Shape } from '../io/record-shape.js';
import { DEFAULT_SCU_RULES, type ScuRule } from './scu.js';
import { claimsSchema } from '../claims/rules/index.js';
import { formatNames } from './sources/index.js';
import type { FieldMap } from '../io/field-map.js';
import type { ScoreOptions } from './score-options.js';
import { traceInput, type TraceInput } from './trace-input.js';

/**
 * A pattern of gates.yaml (SCU rules, refusal patterns, citation markers): RE2 syntax, run in linear time
 * (see pattern.ts).
 */
const regex = z.string().superRefine((source, ctx) => {
  const problem = patternProblem(source);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
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
      patterns: z.array(regex.superRefine(needsText('every claim would be a refusal'))).default([]),
    })
    .optional(),
  /** Citations read from markers in the claim (docs/formats.md, "Inline citation markers"). */
  citation_markers: z
    .strictObject({
      pattern: regex
        .superRefine(needsText('it would cite "" between any two characters'))
        .superRefine((source, ctx) => {
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
  /** How a claim is matched against the gold facts: a rule of claims/rules/ and its options; absent: `substring`. */
  claims: claimsSchema.optional(),
};

/**
 * A pattern that matches without reading any text (`''`, `^`, `x*`, `\b`) matches nearly every claim: refused,
 * with what it would do. `^$` (an empty claim) reads nothing yet matches only that: it passes.
 */
function needsText(consequence: string) {
  return (source: string, ctx: z.RefinementCtx) => {
    if (patternProblem(source) !== undefined) return;
    if (compiled(source, true).exec('qzx\u2028 ')?.[0] === '')
      ctx.addIssue({
        code: 'custom',
        message: `regular expression ${JSON.stringify(source)} matches without reading any text, so ${consequence}; expected one that matches some text`,
      });
  };
}

/** How many capture groups a pattern has; undefined when it is no pattern. */
function captureGroups(source: string): number | undefined {
  return patternProblem(source) === undefined ? compiled(source).groupCount() : undefined;
}

/** The contradiction rules in force, or null when SCU is off. */
export function scuRules(scu: z.infer<typeof answerSettings.scu>): ScuRule[] | null {
  if (scu === false) return null;
  if (scu === true) return [...DEFAULT_SCU_RULES];
  if (!scu.enabled) return null;
  return [...(scu.default_rules ? DEFAULT_SCU_RULES : []), ...scu.rules];
}

/** A suite's answer and input settings, as gates.yaml gave them (its `fields.traces:` among them). */
export type AnswerConfig = z.output<z.ZodObject<typeof answerSettings>> &
  Partial<z.output<z.ZodObject<typeof inputSettings>>> & { fields?: { traces?: FieldMap } };

/**
 * How a suite's runs are judged and scored, from its settings, at `cutoffs`: the one builder of every suite
 * that scores with the grounded-qa definitions, so that an option added here reaches each of them.
 */
export function scoreOptionsOf(
  config: AnswerConfig,
  cutoffs: readonly number[],
): ScoreOptions & { traces: TraceInput } {
  return {
    refusalToken: config.refusal_token,
    ...(config.refusal && { refusal: config.refusal }),
    ...(config.citation_markers && { markers: config.citation_markers }),
    scuRules: scuRules(config.scu),
    cutoffs,
    traces: traceInput({ ...config, fields: config.fields?.traces }),
    ...(config.claims && { claims: config.claims }),
  };
}

/**
 * How a grounded-answer suite reads its inputs: traces as JSON Lines in the contract's shape (or any shape
 * with `fields:`), or OpenInference spans; a `.parquet` gold or traces file is read as rows either way.
 */
export const inputSettings = {
  /**
   * `otel`: OTLP spans, each read by its vocabulary, OpenInference's or the GenAI conventions' (see
   * spans/vocabularies/); `openinference` is the same reader under its first name.
   */
  format: z
    .string()
    .superRefine((name, ctx) => {
      // Asked when a gates.yaml is read, not when this module is: a format registered since counts.
      const names = formatNames();
      if (!names.includes(name))
        ctx.addIssue({
          code: 'custom',
          message: `unknown trace format ${JSON.stringify(name)}; expected one of ${names.join(', ')}`,
        });
    })
    .default('jsonl'),
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
  if (config.openinference !== undefined && config.format === 'jsonl')
    ctx.addIssue({
      code: 'custom',
      path: ['openinference'],
      message: 'applies to spans only; expected format: otel (or openinference) with it, or no openinference',
    });
}

/**
 * With `citation_markers` the claim is the one source of citations: a mapping that reads a citations list
 * too is refused where it is written, not at the first trace.
 */
export function checkMarkers(
  config: { citation_markers?: unknown; fields?: Partial<Record<string, Readonly<Record<string, unknown>>>> },
  ctx: z.RefinementCtx,
): void {
  if (config.citation_markers === undefined) return;
  for (const [input, map] of Object.entries(config.fields ?? {}))
    if (map && '/answer_json/citations' in map)
      ctx.addIssue({
        code: 'custom',
        path: ['fields', input, '/answer_json/citations'],
        message:
          'citation_markers reads the citations from the claim; expected no mapping of /answer_json/citations beside it',
      });
}

/** `fields:` of a suite whose inputs have these contracts: per input, canonical pointer → the user's pointer. */
export function fieldsSchema<K extends string>(inputs: Record<K, Shape>) {
  const members = Object.fromEntries(
    Object.entries<Shape>(inputs).map(([key, s]) => [key, fieldMapSchema(s).optional()]),
  ) as Record<K, z.ZodOptional<ReturnType<typeof fieldMapSchema>>>;
  return z.strictObject(members).optional();
}
