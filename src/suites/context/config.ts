import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import { InputError } from '../../errors.js';
import type { ScoreContext } from '../types.js';
import { AGENTS } from './contract.js';
import { LAYOUTS } from './evaluate.js';

/** A context suite's keys in gates.yaml. */
export const configSchema = z.strictObject({
  kind: z.literal('context'),
  gold: z.string().min(1),
  predictions: z.string().min(1),
  /** `extracted` (the evaluator's prediction form), or the agent whose raw trajectories `predictions` names. */
  agent: z.enum(['extracted', ...AGENTS]).default('extracted'),
  /** Repository contents: a folder, relative to gates.yaml. Without it, symbol and span are not computable. */
  repos: z.string().min(1).optional(),
  repos_layout: z.enum(LAYOUTS).default('per-instance'),
  patch_fallback: z.boolean().default(false),
  gates: gatesSchema.default({}),
});

export type ContextConfig = z.infer<typeof configSchema>;

/** The checkouts the suite reads files from, when its config names them. */
export function reposOf(config: ContextConfig, ctx: ScoreContext) {
  return config.repos ? { dir: reposDir(ctx), layout: config.repos_layout } : undefined;
}

/**
 * The folder `repos` names, relative to gates.yaml. Files under it are read only when they resolve inside
 * it (DirectoryWorkspace), so the folder alone is checked against the workspace, not each of its files.
 */
function reposDir(ctx: ScoreContext): string {
  const dir = ctx.resolvePath('repos');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InputError(
      { file: dir },
      `suite "${ctx.suite}": repos: folder not found; expected the repository checkouts`,
    );
  }
  return dir;
}
