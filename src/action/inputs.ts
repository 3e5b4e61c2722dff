import * as core from '@actions/core';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { safeParse } from '../io/validate.js';

export const COMMENT_MODES = ['auto', 'always', 'never', 'on-failure'] as const;
/**
 * check: score and gate; comment: post the report of the workflow run that triggered this one (forks);
 * partial: score this matrix job's shard and write its partial; merge: gate the partials of every shard.
 */
export const MODES = ['check', 'comment', 'partial', 'merge'] as const;

export const actionInputsSchema = z.object({
  mode: z.enum(MODES),
  config: z.string().min(1),
  suites: z.array(z.string().min(1)),
  /** A report.json path, or 'auto': the base commit's report artifact. */
  baseline: z.string().optional(),
  /** A history file, or 'auto': the default branch's report artifacts. */
  history: z.string().optional(),
  historyRuns: z.int().min(1).max(100),
  artifactName: z.string().min(1).max(200),
  comment: z.enum(COMMENT_MODES),
  token: z.string(),
  offenders: z.int().min(0).optional(),
  report: z.string().min(1),
  /** mode partial: the file written. */
  partial: z.string().min(1),
  /** mode merge: the partials, a glob (or several, space- or newline-separated). */
  partials: z.array(z.string().min(1)).min(1),
  failOnGate: z.boolean(),
  release: z.boolean(),
});
export type ActionInputs = z.infer<typeof actionInputsSchema>;

/** Reads the `with:` inputs of action.yml; a bad value is a usage error naming the input. */
export function readInputs(): ActionInputs {
  const text = (name: string) => core.getInput(name);
  const comment = text('comment') || 'auto';
  // Never implied by the event: a workflow_run job that gates (comment: always) must keep gating.
  const mode = text('mode') || 'check';
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`input "mode": ${JSON.stringify(mode)}; expected one of ${MODES.join(', ')}`);
  }
  const historyRuns = text('history-runs') || '20';
  if (!/^\d+$/.test(historyRuns) || Number(historyRuns) < 1 || Number(historyRuns) > 100) {
    throw new UsageError(
      `input "history-runs": ${JSON.stringify(historyRuns)}; expected a whole number from 1 to 100`,
    );
  }
  // An artifact's name is one path segment for upload-artifact; the same rule keeps it a plain query value.
  const artifactName = text('artifact-name') || 'groundgate-report';
  if (/[\\/":<>|*?\r\n]/.test(artifactName)) {
    throw new UsageError(
      `input "artifact-name": ${JSON.stringify(artifactName)}; expected a name without / \\ " : < > | * ? (as actions/upload-artifact accepts)`,
    );
  }
  if (!(COMMENT_MODES as readonly string[]).includes(comment)) {
    throw new UsageError(
      `input "comment": ${JSON.stringify(comment)}; expected one of ${COMMENT_MODES.join(', ')}`,
    );
  }
  const offenders = text('offenders');
  if (offenders && !/^\d+$/.test(offenders)) {
    throw new UsageError(`input "offenders": ${JSON.stringify(offenders)}; expected a whole number`);
  }
  const flag = (name: string, fallback: string) => {
    const value = (text(name) || fallback).toLowerCase();
    if (value !== 'true' && value !== 'false') {
      throw new UsageError(`input "${name}": ${JSON.stringify(value)}; expected true or false`);
    }
    return value === 'true';
  };
  // Not passed to setSecret: the runner already masks github.token and secrets, and add-mask would print it.
  const token = core.getInput('github-token');
  const parsed = safeParse(actionInputsSchema, {
    mode,
    historyRuns: Number(historyRuns),
    artifactName,
    config: text('config') || 'gates.yaml',
    suites: text('suites')
      .split(/[\s,]+/)
      .filter(Boolean),
    baseline: autoOr(text('baseline')),
    history: autoOr(text('history')),
    comment,
    token,
    offenders: offenders ? Number(offenders) : undefined,
    report: text('report') || 'groundgate-report.json',
    partial: text('partial') || 'groundgate.partial',
    partials: (text('partials') || 'groundgate-partials/**/*.partial').split(/\s*\n\s*|\s+/).filter(Boolean),
    failOnGate: flag('fail-on-gate', 'true'),
    release: flag('release', 'false'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`input "${issue.path.join('.')}": ${issue.message}`);
  }
  return parsed.data;
}

/** 'auto' (or gh:auto, as the CLI spells it) means the workflow artifacts; anything else is a path. */
function autoOr(value: string): string | undefined {
  if (!value) return undefined;
  return value === 'auto' || value === 'gh:auto' ? 'auto' : value;
}
