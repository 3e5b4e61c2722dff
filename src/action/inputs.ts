import * as workflow from './workflow.js';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { safeParse } from '../io/validate.js';

export const COMMENT_MODES = ['auto', 'always', 'never', 'on-failure'] as const;

export const actionInputsSchema = z.object({
  config: z.string().min(1),
  suites: z.array(z.string().min(1)),
  baseline: z.string().optional(),
  history: z.string().optional(),
  comment: z.enum(COMMENT_MODES),
  token: z.string(),
  offenders: z.int().min(0).optional(),
  report: z.string().min(1),
  failOnGate: z.boolean(),
  release: z.boolean(),
});
export type ActionInputs = z.infer<typeof actionInputsSchema>;

/** Reads the `with:` inputs of action.yml; a bad value is a usage error naming the input. */
export function readInputs(): ActionInputs {
  const text = (name: string) => workflow.getInput(name).trim();
  const comment = text('comment') || 'auto';
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
  const token = workflow.getInput('github-token');
  const parsed = safeParse(actionInputsSchema, {
    config: text('config') || 'gates.yaml',
    suites: text('suites')
      .split(/[\s,]+/)
      .filter(Boolean),
    baseline: text('baseline') || undefined,
    history: text('history') || undefined,
    comment,
    token,
    offenders: offenders ? Number(offenders) : undefined,
    report: text('report') || 'groundgate-report.json',
    failOnGate: flag('fail-on-gate', 'true'),
    release: flag('release', 'false'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`input "${issue.path.join('.')}": ${issue.message}`);
  }
  return parsed.data;
}
