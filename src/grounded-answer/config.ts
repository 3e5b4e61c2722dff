import { z } from 'zod';
import { compiled, patternProblem } from '../config/pattern.js';
import { fieldMapSchema } from '../io/field-map.js';
import type { Shape } from '../io/record-shape.js';
import { pricingSchema } from '../cost/pricing.js';
import { DEFAULT_SCU_RULES, type ScuRule } from './scu.js';

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
  /** How a claim is matched against the gold facts (docs/metrics.md, "Claims"); absent: `substring`. */
  claims: z
    .strictObject({
      match: z.enum(['substring', 'normalized', 'semantic']),
      /** NFKC instead of NFC: folds compatibility forms (`x²` → `x2`, `ﬁ` → `fi`, full-width digits). */
      nfkc: z.boolean().default(false),
      /** The share of a gold fact's tokens the claim must hold, in order (1: all of them). */
      min_token_recall: z
        .number()
        .gt(0, 'expected a share of tokens above 0, which every claim would meet')
        .max(1, 'expected a share of tokens of at most 1')
        .default(1),
      // match: semantic (docs/metrics.md, "Semantic matching"). The judge's endpoint, key and model are
      // never read from here: a fork's pull request writes this file.
      /** The judgments file, committed: the judge's verdicts by key. A run with a key rewrites it. */
      cache: z
        .string()
        .trim()
        .regex(/\.jsonl$/i, 'expected a JSON Lines file (.jsonl), which a run with a key rewrites')
        .optional(),
      /** A claim miss the judge could not be asked about: kept as a miss (warn) or precision refused (fail). */
      unjudged: z.enum(['warn', 'fail']).optional(),
      /** Precision is refused when any judgment was not in the committed file (main, release sign-off). */
      require_committed: z.boolean().optional(),
      /** Claim hits also judged, to measure agreement on hits. */
      judge_hits_sample: z.int().min(0).max(100_000).optional(),
      /** Human verdicts (JSON Lines {qid, verdict, claim?}): judge vs human agreement. */
      labels: z.string().trim().min(1).optional(),
      /** Semantic matching refused when judge vs human kappa is below it (or not computable). */
      min_kappa: z.number().min(-1).max(1).optional(),
      /**
       * The judge model's price (USD per million tokens), inline or in a file named here: what a dry run
       * estimates and a run reports the judge's spend in, and what GROUNDGATE_JUDGE_MAX_COST_USD is held to.
       */
      pricing: z.union([z.string().trim().min(1), pricingSchema]).optional(),
    })
    .superRefine((claims, ctx) => {
      const judgeKeys = [
        'cache',
        'unjudged',
        'require_committed',
        'judge_hits_sample',
        'labels',
        'min_kappa',
        'pricing',
      ];
      if (claims.match !== 'semantic') {
        for (const key of judgeKeys)
          if (claims[key as keyof typeof claims] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `applies to the judge only; expected match: semantic with it, or no ${key}`,
            });
        return;
      }
      if (claims.cache === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['match'],
          message:
            "semantic matching reads the judge's verdicts from a committed file; expected cache: with it (e.g. cache: .groundgate/judgments.jsonl)",
        });
      if (claims.min_kappa !== undefined && claims.labels === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['min_kappa'],
          message: 'is judge vs human agreement; expected labels: (human verdicts, JSON Lines) with it',
        });
    })
    .optional(),
};

/** `claims:` with its defaults. */
export type ClaimsSettings = NonNullable<z.infer<typeof answerSettings.claims>>;

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

/**
 * How a grounded-answer suite reads its inputs: traces as JSON Lines in the contract's shape (or any shape
 * with `fields:`), or OpenInference spans; a `.parquet` gold or traces file is read as rows either way.
 */
export const inputSettings = {
  /**
   * `otel`: OTLP spans, each read by its vocabulary, OpenInference's or the GenAI conventions' (see
   * openinference.ts, genai.ts); `openinference` is the same reader under its first name.
   */
  format: z.enum(['jsonl', 'openinference', 'otel']).default('jsonl'),
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
