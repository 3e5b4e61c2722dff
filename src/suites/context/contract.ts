import { z } from 'zod';

/**
 * One gold context region. The evaluator reads `file`, `start_line` and `end_line` (1-based, inclusive);
 * `content` and other keys are allowed and ignored.
 */
export const goldItemSchema = z
  .looseObject({
    file: z.string().min(1, 'expected a non-empty path'),
    start_line: z.int().min(1),
    end_line: z.int().min(1),
  })
  .superRefine((item, ctx) => {
    if (item.end_line < item.start_line) {
      ctx.addIssue({
        code: 'custom',
        path: ['end_line'],
        message: `found ${item.end_line} before start_line ${item.start_line}; expected end_line ≥ start_line`,
      });
    }
  });
export type GoldItem = z.infer<typeof goldItemSchema>;

const goldList = z.union([z.string(), z.array(z.unknown())]).nullish();

/**
 * A ContextBench gold row. Three shapes are in use: the dataset's `gold_context` (a JSON string, or the
 * `context0：` text blob of some parquet exports) with `base_commit`; annotation rows with `gold_ctx`; and
 * rows that split the context into `init_ctx` (what the fix edits) and `add_ctx` (what it also needs).
 */
export const goldRowSchema = z.looseObject({
  inst_id: z.string().min(1).optional(),
  instance_id: z.string().min(1).optional(),
  original_inst_id: z.string().min(1).optional(),
  repo_url: z.string().nullish(),
  commit: z.string().nullish(),
  base_commit: z.string().nullish(),
  gold_context: goldList,
  gold_ctx: goldList,
  init_ctx: z.array(z.unknown()).nullish(),
  add_ctx: z.array(z.unknown()).nullish(),
  patch: z.string().nullish(),
});

/** A line range a trajectory looked at (1-based, inclusive). `type` is always "line" in practice. */
export const spanSchema = z.looseObject({
  type: z.string().optional(),
  start: z.int(),
  end: z.int(),
});

const spansByFile = z.record(z.string(), z.array(spanSchema));
const symbolsByFile = z.record(z.string(), z.array(z.string()));

/** What one retrieval step of a trajectory brought into view. */
export const stepSchema = z.looseObject({
  files: z.array(z.string()).default([]),
  spans: spansByFile.default({}),
  symbols: symbolsByFile.optional(),
});

export const trajDataSchema = z.looseObject({
  pred_steps: z.array(stepSchema).default([]),
  pred_files: z.array(z.string()).default([]),
  pred_spans: spansByFile.default({}),
  pred_symbols: symbolsByFile.optional(),
});

/**
 * The evaluator's prediction form, one instance a line: the steps of the trajectory, the final context
 * and the patch. `groundgate extract` writes it from raw trajectories.
 */
export const predictionSchema = z
  .looseObject({
    instance_id: z.string().min(1).optional(),
    original_inst_id: z.string().min(1).optional(),
    traj_data: trajDataSchema,
    model_patch: z.string().nullish(),
    repo_url: z.string().nullish(),
    commit: z.string().nullish(),
  })
  .refine((p) => p.instance_id !== undefined || p.original_inst_id !== undefined, {
    message: 'expected "instance_id" (or "original_inst_id")',
    path: ['instance_id'],
  });
export type TrajData = z.infer<typeof trajDataSchema>;
export type StepJson = z.infer<typeof stepSchema>;
export type SpanJson = z.infer<typeof spanSchema>;

export const AGENTS = ['miniswe', 'sweagent', 'openhands', 'agentless', 'prometheus'] as const;
export type Agent = (typeof AGENTS)[number];

/** Why an instance was left out of the aggregates, as the reference names it. */
export const INSTANCE_ERRORS = ['missing_gold', 'checkout_failed', 'no_context_extracted'] as const;
export type InstanceError = (typeof INSTANCE_ERRORS)[number];

export const LEVELS = ['file', 'symbol', 'span', 'line'] as const;
export type Level = (typeof LEVELS)[number];

/** Where a row came from, for errors and offenders. */
export interface Source {
  file: string;
  line: number;
}
