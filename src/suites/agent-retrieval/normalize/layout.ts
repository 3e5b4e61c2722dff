import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../../errors.js';
import { compareCodeUnits } from '../../../io/files.js';
import { isRecord } from './trace.js';
import { readText } from '../../../io/utf8.js';

/**
 * CodeScaleBench run directories: `runs/{staging|official}/{run_id}/{config_name}/{batch}/{trial}/`, where
 * a batch is a timestamp (`2026-02-23__19-49-20`) or a job folder (`ccb_fix_<task>_<config>`) and a trial is
 * `{task_name}__{suffix}` holding `result.json` and `agent/` (trajectory.json, claude-code.txt). The
 * timestamp may also come first: `{run_id}/{batch_timestamp}/{config_name}/{trial}/`.
 */
const BATCH_TIMESTAMP = /^\d{4}-\d{2}-\d{2}__\d{2}-\d{2}-\d{2}$/;

/** Folders of a run that hold no trials: normalize's own output, and archived material. */
const NOT_CONFIGS = new Set(['retrieval_events', 'archive']);

export interface Trial {
  runId: string;
  configName: string;
  /** The batch folder name when it is a timestamp, else null. */
  batchTimestamp: string | null;
  trialName: string;
  taskName: string;
  dir: string;
  /** The trial's parsed result.json, when it has one that is a JSON object. */
  result?: Record<string, unknown>;
  resultFile?: string;
  /** The batch folder's result.json (a job summary), for rewards a trial's own file lacks. */
  jobResultFile?: string;
}

export interface Discovery {
  trials: Trial[];
  warnings: string[];
}

/** Names that become file names in the output must be plain: no separators, no `..`. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Every trial of a run, one per (config, task): when a task ran more than once in a config, the last
 * batch (then trial name) in code-unit order wins and the others are named in a warning.
 */
export function discoverTrials(runDir: string): Discovery {
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) {
    throw new InputError(
      { file: runDir },
      'run directory not found; expected runs/{staging|official}/{run_id}',
    );
  }
  const runId = path.basename(path.resolve(runDir));
  const warnings: string[] = [];
  const found: Trial[] = [];
  for (const a of subdirs(runDir)) {
    if (NOT_CONFIGS.has(a)) continue;
    for (const b of subdirs(path.join(runDir, a))) {
      const [configName, batch] = BATCH_TIMESTAMP.test(a) ? [b, a] : [a, b];
      const batchDir = path.join(runDir, a, b);
      const jobResult = path.join(batchDir, 'result.json');
      for (const trialName of subdirs(batchDir)) {
        if (!trialName.includes('__')) continue;
        const dir = path.join(batchDir, trialName);
        const resultFile = path.join(dir, 'result.json');
        const result = readResult(resultFile, warnings);
        const taskName = normalizeTaskName(
          typeof result?.task_name === 'string'
            ? result.task_name
            : trialName.slice(0, trialName.lastIndexOf('__')),
        );
        for (const [what, name] of [
          ['config', configName],
          ['task', taskName],
        ] as const) {
          if (!SAFE_NAME.test(name)) {
            throw new InputError(
              { file: result ? resultFile : dir },
              `${what} name ${JSON.stringify(name)} cannot name an output file; expected letters, digits, ".", "_", "-"`,
            );
          }
        }
        found.push({
          runId,
          configName,
          batchTimestamp: BATCH_TIMESTAMP.test(batch) ? batch : null,
          trialName,
          taskName,
          dir,
          ...(result ? { result, resultFile } : {}),
          ...(existsSync(jobResult) ? { jobResultFile: jobResult } : {}),
        });
      }
    }
  }
  const latest = new Map<string, Trial>();
  const order = (t: Trial) =>
    `${t.batchTimestamp ?? ''}\u0000${path.basename(path.dirname(t.dir))}\u0000${t.trialName}`;
  for (const t of found.sort((x, y) => compareCodeUnits(order(x), order(y)))) {
    const key = `${t.configName}\u0000${t.taskName}`;
    const earlier = latest.get(key);
    if (earlier) {
      warnings.push(
        `${t.configName}/${t.taskName}: ${path.relative(runDir, earlier.dir)} superseded by ${path.relative(runDir, t.dir)} (a later trial of the same task)`,
      );
    }
    latest.set(key, t);
  }
  const trials = [...latest.values()].sort(
    (x, y) => compareCodeUnits(x.configName, y.configName) || compareCodeUnits(x.taskName, y.taskName),
  );
  return { trials, warnings };
}

/**
 * The canonical task name: CodeScaleBench wraps tasks for MCP-only runs as `sgonly_<task>`, and some runs as
 * `mcp_<task>_<6 chars>` or `bl_<task>_<6 chars>`; unwrapping them lets a task match across configs.
 */
export function normalizeTaskName(name: string): string {
  if (name.startsWith('sgonly_')) return name.slice('sgonly_'.length);
  for (const prefix of ['mcp_', 'bl_']) {
    if (name.startsWith(prefix)) return name.slice(prefix.length).replace(/_[A-Za-z0-9]{6}$/, '');
  }
  return name;
}

/** A harness's result.json; a missing file is fine, a broken one (a crashed trial) is a warning. */
function readResult(file: string, warnings: string[]): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value: unknown = JSON.parse(readText(file).replace(/^\uFEFF/, ''));
    if (isRecord(value)) return value;
    warnings.push(`${file}: not a JSON object; ignored`);
  } catch {
    warnings.push(`${file}: not valid JSON; ignored`);
  }
  return undefined;
}

function subdirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort(compareCodeUnits);
}

/** `{out}/{config_name}/{task_name}.retrieval_events.json`; `out` defaults to `{run}/retrieval_events`. */
export function eventsPath(outDir: string, configName: string, taskName: string): string {
  return path.join(outDir, configName, `${taskName}.retrieval_events.json`);
}
