import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { displayPath, UsageError } from '../errors.js';
import { loadRegistry } from '../suites/agent-retrieval/ground-truth/registry.js';
import { normalizeRun, type NormalizedTask } from '../suites/agent-retrieval/normalize/run.js';
import { commandOf, printLine, writeOutput, type CliIo } from './command.js';
import { declareCommand, parseOptions } from './options.js';
import { safeParse } from '../io/validate.js';

const NORMALIZE = declareCommand({
  name: 'normalize',
  summary: 'turn agent run directories into retrieval-event documents (for the agent-retrieval suite)',
  usage: 'groundgate normalize RUN_DIR... [--out DIR] [--tasks DIR] [--registry FILE]',
  description: `Turns the agent traces of CodeScaleBench-style runs into retrieval-event documents (schema 1.0), one per task and config, for the agent-retrieval suite. A RUN_DIR is runs/{staging|official}/{run_id}, holding {config}/{batch}/{task}__{suffix}/ trials with agent/trajectory.json and/or agent/claude-code.txt.

Documents go to RUN_DIR/retrieval_events/{config}/{task}.retrieval_events.json, beside the run's own files, which are never written.`,
  options: {
    out: {
      short: 'o',
      type: 'string',
      arg: 'DIR',
      help: 'write under DIR instead (DIR/{run_id}/... when several runs are given)',
    },
    tasks: {
      short: 't',
      type: 'string',
      arg: 'DIR',
      help: 'task definitions, DIR/{task}/ or DIR/{benchmark}/{task}/: ground truth from tests/ground_truth.json, expected_defects.json, expected_changes.json, patches, solution/solve.sh, tests/test.sh, instruction.md (first that lists files)',
    },
    registry: {
      short: 'r',
      type: 'string',
      arg: 'FILE',
      help: 'a ground-truth registry {task: {files, source, confidence}} for tasks the task folders give no ground truth for',
    },
    benchmark: {
      short: 'b',
      type: 'string',
      arg: 'NAME',
      help: 'provenance.benchmark (default: the task\'s benchmark folder, else "unknown")',
    },
    'generated-at': {
      type: 'string',
      arg: 'T',
      help: 'generated_at, an ISO 8601 date-time with a time zone (default: SOURCE_DATE_EPOCH if set, else now)',
    },
  },
  exitStatus:
    '0 documents written (a task without ground truth or trace is a warning), 2 usage or input error.',
  example: 'groundgate normalize runs/official/run-42 --tasks benchmarks/tasks',
});

const zoned = z.iso.datetime({ offset: true });

export const normalizeCommand = commandOf(NORMALIZE, async (argv: readonly string[], io: CliIo) => {
  const { values, positionals } = parseOptions(NORMALIZE, argv);
  if (positionals.length === 0) throw new UsageError('expected at least one RUN_DIR');
  const generatedAt = generatedAtFrom(values['generated-at'], io.env.SOURCE_DATE_EPOCH);
  const registry = values.registry ? loadRegistry(path.resolve(values.registry)) : undefined;

  const written: NormalizedTask[] = [];
  for (const runDir of positionals) {
    const outDir =
      values.out === undefined
        ? undefined
        : positionals.length > 1
          ? path.join(values.out, path.basename(path.resolve(runDir)))
          : values.out;
    const run = await normalizeRun(runDir, {
      ...(outDir ? { outDir } : {}),
      ...(values.tasks ? { tasksDir: path.resolve(values.tasks) } : {}),
      ...(registry ? { registry } : {}),
      ...(values.benchmark ? { benchmark: values.benchmark } : {}),
      generatedAt,
    });
    for (const w of run.warnings) printLine(io, `warning: ${w}`);
    for (const task of run.tasks) {
      mkdirSync(path.dirname(task.file), { recursive: true });
      writeOutput(task.file, `${JSON.stringify(task.doc, null, 2)}\n`);
      if (task.noGroundTruth) {
        const p = task.doc.provenance;
        printLine(io, `warning: ${p.config_name}/${p.task_name}: no ground truth (${task.noGroundTruth})`);
      }
      written.push(task);
    }
  }
  io.stdout(`${describe(written)}\n`);
  return 0;
});

function generatedAtFrom(flag: string | undefined, epoch: string | undefined): string {
  if (flag !== undefined) {
    if (!safeParse(zoned, flag).success) {
      throw new UsageError(
        `--generated-at ${JSON.stringify(flag)}: expected an ISO 8601 date-time with a time zone`,
      );
    }
    return flag;
  }
  if (epoch !== undefined && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000).toISOString();
  return new Date().toISOString();
}

function describe(tasks: readonly NormalizedTask[]): string {
  const by = (source: string | null) => tasks.filter((t) => t.doc.coverage.trace_source === source).length;
  const dirs = [...new Set(tasks.map((t) => displayPath(path.dirname(path.dirname(t.file)))))];
  const where = dirs.length === 1 ? ` to ${dirs[0]}` : '';
  const noTruth = tasks.filter((t) => !t.doc.coverage.has_ground_truth).length;
  return (
    `wrote ${tasks.length} retrieval-event document${tasks.length === 1 ? '' : 's'}${where}: ` +
    `${by('merged')} merged, ${by('trajectory')} trajectory only, ${by('transcript')} transcript only, ` +
    `${by(null)} without a usable trace; ${noTruth} without ground truth`
  );
}
