import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../../errors.js';
import { compareCodeUnits } from '../../../io/files.js';
import { describeJsonError, readJsonl } from '../../../io/jsonl.js';
import type { Agent } from '../contract.js';
import { extractAgentless } from './agentless.js';
import { isRecord, str, type Extracted } from './common.js';
import { extractMiniSwe } from './miniswe.js';
import { extractOpenHandsCompletions, extractOpenHandsRecord } from './openhands.js';
import { extractPrometheus } from './prometheus.js';
import { extractSweAgent } from './sweagent.js';

export type { Extracted } from './common.js';

/** How each agent's trajectory files are named; an instance id is the name without the suffix. */
const SUFFIXES: Readonly<Record<Agent, readonly string[]>> = {
  miniswe: ['.traj.json'],
  sweagent: ['.checkpoints.jsonl'],
  openhands: ['.jsonl', '.json'],
  agentless: ['_traj.json'],
  prometheus: ['.log'],
};

/**
 * The trajectory files named by PATHS: a file as is, a folder searched (recursively, sorted) for the
 * agent's files. For OpenHands a `.json` file is one turn of an `llm_completions/<instance>/` folder.
 */
export function trajectoryFiles(paths: readonly string[], agent: Agent): string[] {
  const out: string[] = [];
  for (const p of paths) {
    let stat;
    try {
      stat = statSync(p);
    } catch {
      throw new InputError({ file: p }, 'not found; expected a trajectory file or a folder of them');
    }
    if (!stat.isDirectory()) {
      out.push(path.resolve(p));
      continue;
    }
    const found = (readdirSync(p, { recursive: true, encoding: 'utf8' }) as string[])
      .map((rel) => path.resolve(p, rel))
      .filter((f) => SUFFIXES[agent].some((s) => f.endsWith(s)) && statSync(f).isFile())
      .sort(compareCodeUnits);
    if (found.length === 0) {
      throw new InputError(
        { file: p },
        `no ${agent} trajectory in this folder; expected files ending in ${SUFFIXES[agent].join(' or ')}`,
      );
    }
    out.push(...found);
  }
  return [...new Set(out)];
}

/** Every prediction in the files, in file order; OpenHands completion turns are grouped by folder. */
export async function extractTrajectories(files: readonly string[], agent: Agent): Promise<Extracted[]> {
  const out: Extracted[] = [];
  const completions = new Map<string, string>();
  for (const file of files) {
    const name = path.basename(file);
    switch (agent) {
      case 'miniswe': {
        const { traj, patch } = extractMiniSwe(readJson(file));
        out.push({
          instance_id: stripSuffix(name, '.traj.json'),
          traj_data: traj,
          model_patch: patch,
          source: at(file),
        });
        break;
      }
      case 'sweagent': {
        const records: unknown[] = [];
        for await (const { value } of readJsonl(file)) records.push(value);
        const traj = extractSweAgent(records);
        out.push({
          instance_id: stripSuffix(name, '.checkpoints.jsonl'),
          traj_data: traj,
          model_patch: '',
          source: at(file),
        });
        break;
      }
      case 'agentless': {
        const { traj, patch, instanceId } = extractAgentless(readJson(file));
        out.push({
          instance_id: instanceId ?? stripSuffix(name, '_traj.json'),
          traj_data: traj,
          model_patch: patch,
          source: at(file),
        });
        break;
      }
      case 'prometheus': {
        const traj = extractPrometheus(readFileSync(file).toString('utf8'));
        out.push({
          instance_id: stripSuffix(name, '.log'),
          traj_data: traj,
          model_patch: '',
          source: at(file),
        });
        break;
      }
      case 'openhands': {
        if (name.endsWith('.jsonl')) {
          for await (const { line, value } of readJsonl(file)) {
            if (!isRecord(value)) {
              throw new InputError({ file, line }, 'expected an OpenHands record {instance_id, history}');
            }
            const { traj, patch } = extractOpenHandsRecord(value);
            const id = str(value.instance_id) || str(value.original_inst_id);
            if (!id)
              throw new InputError({ file, line }, 'missing field "instance_id" (an OpenHands record)');
            out.push({ instance_id: id, traj_data: traj, model_patch: patch, source: { file, line } });
          }
        } else {
          // Each turn holds the whole conversation so far: the last one (by name) is the trajectory.
          completions.set(path.dirname(file), file);
        }
        break;
      }
    }
  }
  for (const [dir, file] of [...completions].sort(([a], [b]) => compareCodeUnits(a, b))) {
    const traj = extractOpenHandsCompletions(readJson(file));
    out.push({ instance_id: path.basename(dir), traj_data: traj, model_patch: '', source: at(file) });
  }
  return out;
}

function at(file: string): { file: string; line: number } {
  return { file, line: 1 };
}

function stripSuffix(name: string, suffix: string): string {
  return name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
}

function readJson(file: string): unknown {
  const text = readFileSync(file)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (err) {
    const { reason, column } = describeJsonError(err, text);
    const line = column === undefined ? undefined : lineAt(text, column - 1);
    throw new InputError(
      { file, ...line },
      `invalid JSON: ${reason}; expected a trajectory (one JSON document)`,
    );
  }
}

/** 1-based line and column of a character offset. */
function lineAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
