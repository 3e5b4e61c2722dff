import * as core from '@actions/core';

/**
 * Appends markdown to the job summary, when the runner gives one: `core.summary` throws without
 * $GITHUB_STEP_SUMMARY (a local run, a runner older than job summaries), and it reads process.env.
 */
export async function appendSummary(markdown: string): Promise<void> {
  if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown).write();
}
