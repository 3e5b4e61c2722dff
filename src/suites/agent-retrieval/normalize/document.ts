import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../../errors.js';
import { compareCodeUnits } from '../../../io/files.js';
import { SCHEMA_VERSION, type EventDocument, type TraceSource } from '../contract.js';
import { groundTruthFromTask } from '../ground-truth/chain.js';
import type { RegistryEntry } from '../ground-truth/registry.js';
import type { GroundTruthLookup } from '../ground-truth/types.js';
import { outcomeOf } from '../outcomes.js';
import { buildEvents, summarizeEvents } from './events.js';
import type { Trial } from './layout.js';
import { mergeTraces } from './merge.js';
import type { ToolCall, TraceFile } from './trace.js';
import { readTranscript } from './transcript.js';
import { readTrajectory } from './trajectory.js';

export interface NormalizeOptions {
  /** Task definitions: `{tasks}/{task}/` or `{tasks}/{benchmark}/{task}/`. */
  tasksDir?: string;
  /** A ground-truth registry, for tasks the task folders give no ground truth for. */
  registry?: ReadonlyMap<string, RegistryEntry>;
  /** `provenance.benchmark`; else the benchmark folder the task was found in, else the registry's, else "unknown". */
  benchmark?: string;
  generatedAt: string;
}

export interface NormalizedTrial {
  doc: EventDocument;
  /** Why the task has no ground truth, when it has none. */
  noGroundTruth?: string;
}

/** The retrieval-event document of one trial. */
export async function normalizeTrial(trial: Trial, options: NormalizeOptions): Promise<NormalizedTrial> {
  const trajectory = readTrajectory(path.join(trial.dir, 'agent', 'trajectory.json'));
  const transcript = await readTranscript(path.join(trial.dir, 'agent', 'claude-code.txt'));
  const { calls, source, problems } = chooseCalls(trajectory, transcript);

  const task = options.tasksDir ? findTaskDir(options.tasksDir, trial.taskName) : undefined;
  const registered = options.registry?.get(trial.taskName);
  let lookup: GroundTruthLookup = task
    ? groundTruthFromTask(task.dir)
    : {
        reason: options.tasksDir
          ? `no task folder ${JSON.stringify(trial.taskName)} under --tasks`
          : 'no --tasks folder',
      };
  if (!lookup.truth && registered?.truth) lookup = { truth: registered.truth };
  const truth = lookup.truth;
  const files = truth?.files ?? [];
  const events = buildEvents(calls, files);

  const model = trial.result ? outcomeOf(trial.result).model : null;
  const traceModel = trajectory.status === 'parsed' ? trajectory.trace.model : undefined;
  const transcriptModel = transcript.status === 'parsed' ? transcript.trace.model : undefined;
  if (source !== null && events.length === 0) problems.push('the trace has no retrieval tool call');

  const doc: EventDocument = {
    schema_version: SCHEMA_VERSION,
    generated_at: options.generatedAt,
    provenance: {
      run_id: trial.runId,
      batch_timestamp: trial.batchTimestamp,
      task_name: trial.taskName,
      trial_name: trial.trialName,
      config_name: trial.configName,
      benchmark: options.benchmark ?? task?.benchmark ?? registered?.benchmark ?? 'unknown',
      model: model ?? traceModel ?? transcriptModel ?? null,
    },
    coverage: {
      has_trajectory: trajectory.status === 'parsed',
      has_transcript: transcript.status === 'parsed',
      has_ground_truth: files.length > 0,
      has_chunk_ground_truth: (truth?.chunks?.length ?? 0) > 0,
      trace_source: source,
      degraded_reason: problems.length > 0 ? problems.join('; ') : null,
      ground_truth_source: truth?.source ?? null,
      ground_truth_confidence: truth?.confidence ?? null,
    },
    ground_truth: {
      files,
      ...(truth?.symbols ? { symbols: truth.symbols } : {}),
      ...(truth?.chunks ? { chunks: truth.chunks } : {}),
      ...(truth?.expectedEditFiles
        ? {
            expected_edit_files: truth.expectedEditFiles.files,
            expected_edit_files_source: truth.expectedEditFiles.source,
            expected_edit_files_confidence: 'high' as const,
          }
        : {}),
    },
    events,
    summary: summarizeEvents(events, files),
  };
  return { doc, ...(truth ? {} : { noGroundTruth: lookup.reason ?? 'no ground truth' }) };
}

/**
 * Which calls make the events: both traces merged when both have calls, else the one that has them
 * (`trace_source`), null when neither file is usable. Problems explain an empty or incomplete result.
 */
export function chooseCalls(
  trajectory: TraceFile,
  transcript: TraceFile,
): { calls: ToolCall[]; source: TraceSource | null; problems: string[] } {
  const problems: string[] = [];
  for (const file of [trajectory, transcript]) {
    if (file.status === 'unparseable') problems.push(file.reason);
    if (file.status === 'parsed') problems.push(...file.trace.problems);
  }
  const a = trajectory.status === 'parsed' ? trajectory.trace.calls : undefined;
  const b = transcript.status === 'parsed' ? transcript.trace.calls : undefined;
  if (a && b && a.length > 0 && b.length > 0) return { calls: mergeTraces(a, b), source: 'merged', problems };
  if (a && (a.length > 0 || !b || b.length === 0)) return { calls: a, source: 'trajectory', problems };
  if (b) return { calls: b, source: 'transcript', problems };
  if (trajectory.status === 'missing' && transcript.status === 'missing') {
    problems.push('no agent/trajectory.json or agent/claude-code.txt');
  }
  return { calls: [], source: null, problems };
}

/** `{tasks}/{task}` or, in a folder per benchmark, `{tasks}/{benchmark}/{task}` (which names the benchmark). */
export function findTaskDir(
  tasksDir: string,
  taskName: string,
): { dir: string; benchmark?: string } | undefined {
  const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
  const direct = path.join(tasksDir, taskName);
  if (isDir(direct)) return { dir: direct };
  const matches = readdirSync(tasksDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && isDir(path.join(tasksDir, d.name, taskName)))
    .map((d) => d.name)
    .sort(compareCodeUnits);
  if (matches.length > 1) {
    throw new InputError(
      { file: tasksDir },
      `task ${JSON.stringify(taskName)} is in ${matches.length} benchmark folders (${matches.join(', ')}); expected one`,
    );
  }
  return matches[0] ? { dir: path.join(tasksDir, matches[0], taskName), benchmark: matches[0] } : undefined;
}
