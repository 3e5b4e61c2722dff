import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import type { ScoreContext } from '../types.js';

const SEED_CUTOFFS = [1, 3, 5, 10];

/** A agent-retrieval suite's keys in gates.yaml. */
export const configSchema = z
  .strictObject({
    kind: z.literal('agent-retrieval'),
    /** Retrieval-event documents: a file or a glob such as runs/staging/RUN/retrieval_events/**\/*.json. */
    events: z.string().min(1).optional(),
    /** Harbor result.json files (trial and job results) for outcomes: comparisons and correlations. */
    outcomes: z.string().min(1).optional(),
    /** A run folder (runs/{staging|official}/{run_id}) normalized in memory instead of `events`. */
    runs: z.string().min(1).optional(),
    /** With `runs`: the task definitions the ground truth comes from. */
    tasks: z.string().min(1).optional(),
    /** With `runs`: a ground-truth registry for tasks the task folders give none for. */
    registry: z.string().min(1).optional(),
    /** Only this config's documents make the metrics and gates; default all pooled. */
    config_name: z.string().min(1).optional(),
    /** Cutoffs of P@k, recall@k, f1@k, ndcg@k (the seed's 1, 3, 5, 10 by default). */
    k: z.array(z.int().min(1).max(100_000)).min(1).default(SEED_CUTOFFS),
    /** Matched comparison of two configs by name (gates: delta.*). */
    compare: z.strictObject({ baseline: z.string().min(1), candidate: z.string().min(1) }).optional(),
    /** Folder for stage-5 files ({config}/{task}.retrieval_metrics.json, run_retrieval_summary.json). */
    artifacts: z.string().min(1).optional(),
    gates: gatesSchema.default({}),
  })
  .refine((c) => (c.events === undefined) !== (c.runs === undefined), {
    message: 'expected either events: (retrieval-event documents) or runs: (a run folder to normalize)',
  });

export type AgentRetrievalConfig = z.infer<typeof configSchema>;

/** With events:, no tasks or registry (they are ground truth for normalizing runs:). */
export function eventsAlone(config: AgentRetrievalConfig, ctx: ScoreContext): void {
  const { events, registry } = ctx.inputs;
  if (events && (config.tasks || registry)) {
    throw new InputError(
      { file: events[0]! },
      `suite "${ctx.suite}": tasks and registry belong with runs: (ground truth for normalizing); event documents carry their ground truth`,
    );
  }
}
