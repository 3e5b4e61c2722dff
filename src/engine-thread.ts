import { existsSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import { UsageError } from './errors.js';

/**
 * A large run of a suite kind that holds its input as objects (SuiteKind.objectHeap) goes to a worker
 * thread with heap limits. V8 sizes a main thread's heap for throughput: on a 200k-item gold set it let
 * garbage grow to twice the live data, and Node 24 grows the young generation to 128 MB besides. A thread's
 * limits bound both, for the cost of starting it (a second copy of the bundle: about 20 MB, and 0.2-0.4 s
 * here), which a run over this much input does not notice.
 */
export const ENGINE_THREAD_BYTES = 64 * 1024 * 1024;

/** Young generation: 32 or 64 MB were no faster on the grounded-qa benchmark, and peaked higher. */
const YOUNG_MB = 16;
/**
 * Young generation of a run that reads records (Parquet rows, OpenInference spans): its engine thread makes
 * short-lived objects of them by the hundred thousand (spans it assembles, rows from the decoder), which 48 MB
 * let die young. At the 0.5x formats benchmark: 0.88 of the OpenInference run's wall (0.80-1.01, 4 pairs) for
 * 44 MB more at its peak; Parquet's no different (its engine thread mostly waits for the decoders); the
 * canonical path, 2% slower with it and 13 MB higher, keeps YOUNG_MB.
 */
const RECORDS_YOUNG_MB = 48;

/**
 * Worker threads started for a share of the work (grounded-qa's scan and digest) keep little: an 8 MB young
 * generation took 10-30 MB off the peak on Node 24, and nothing measurable from their speed.
 */
export const HELPER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

export const ENGINE_ENV = 'GROUNDGATE_ENGINE_THREAD';

/**
 * The least old generation an engine thread is given: Node 24's V8 cannot read its start-up snapshot into 1
 * or 2 MB, and aborts the whole process (a fatal out-of-memory, no error to catch); 3 MB starts.
 */
const MIN_ENGINE_MB = 8;

export interface EnginePlan {
  limits: ResourceLimits;
  /** The limit was set by ENGINE_ENV rather than sized from the input. */
  explicit: boolean;
}

/** What an engine thread's limits are sized from: see objectHeap in run.ts. */
export interface ObjectHeap {
  bytes: number;
  /** Some of the input is read as records (see RECORDS_YOUNG_MB). */
  records: boolean;
}

/**
 * Whether to run on an engine thread, and with what limits. ENGINE_ENV=0 never does; ENGINE_ENV=N always
 * does, with an old generation of N MB; unset, a run does when its objectHeap suites read at least
 * ENGINE_THREAD_BYTES. The old generation limit is a hard one, so when sized from the input it leaves room:
 * twice the input, and at least 1 GB. (A limit under 2 GB also makes V8 grow the heap less between
 * collections.)
 */
export async function enginePlan(
  env: NodeJS.ProcessEnv,
  objectHeap: () => Promise<ObjectHeap>,
): Promise<EnginePlan | undefined> {
  const set = env[ENGINE_ENV];
  if (set !== undefined && set !== '') {
    const mb = /^\d{1,7}$/.test(set) ? Number(set) : NaN;
    if (Number.isNaN(mb) || (mb > 0 && mb < MIN_ENGINE_MB))
      throw new UsageError(
        `${ENGINE_ENV}=${JSON.stringify(set)}: expected 0 (no engine thread) or its heap limit in MB, at least ${MIN_ENGINE_MB} (a thread cannot start in less)`,
      );
    return mb === 0 ? undefined : plan(mb, true, (await objectHeap()).records);
  }
  const { bytes, records } = await objectHeap();
  if (bytes < ENGINE_THREAD_BYTES) return undefined;
  return plan(Math.max(1024, Math.ceil((2 * bytes) / (1024 * 1024))), false, records);
}

function plan(oldMb: number, explicit: boolean, records: boolean): EnginePlan {
  return {
    limits: {
      maxYoungGenerationSizeMb: records ? RECORDS_YOUNG_MB : YOUNG_MB,
      maxOldGenerationSizeMb: oldMb,
    },
    explicit,
  };
}

/** What an engine thread is started with: the command line, and whether stdout is a terminal (its own is not). */
export interface EngineStart {
  argv: string[];
  isTty: boolean;
}

interface EngineData {
  groundgateEngine: EngineStart;
}

/** On an engine thread: what it was started with. */
export function engineStart(): EngineStart | undefined {
  // Loaded here, not on import: the Action and the suites import this module and never need it (the CLI
  // calls this at every start, so it loads the module there).
  const { isMainThread, workerData } = process.getBuiltinModule('node:worker_threads');
  return isMainThread ? undefined : (workerData as Partial<EngineData> | null)?.groundgateEngine;
}

/**
 * The entry file beside the module at `moduleUrl` (the bundle itself, or tsc's index.js) to start an engine
 * thread with; undefined on an engine thread, or run from TypeScript sources, where there is none. (Not
 * `new URL('./index.js', import.meta.url)`: the bundler takes that for an asset of its own.)
 */
export function engineEntry(moduleUrl: string): string | undefined {
  if (engineStart() !== undefined) return undefined;
  const file = path.join(path.dirname(fileURLToPath(moduleUrl)), 'index.js');
  return existsSync(file) ? file : undefined;
}

/**
 * Runs `entry` with `argv` on an engine thread and resolves with its exit status. Resolves undefined when the
 * thread ran out of heap before it wrote a byte: the caller then runs the same work on its own thread.
 */
export function runOnEngineThread(
  entry: string,
  argv: readonly string[],
  limits: ResourceLimits,
): Promise<number | undefined> {
  const data: EngineData = { groundgateEngine: { argv: [...argv], isTty: Boolean(process.stdout.isTTY) } };
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker = new Worker(entry, {
    workerData: data,
    resourceLimits: limits,
    stdout: true,
    stderr: true,
  });
  let wrote = false;
  worker.stdout.on('data', (chunk: Buffer) => {
    wrote = true;
    process.stdout.write(chunk);
  });
  worker.stderr.on('data', (chunk: Buffer) => {
    wrote = true;
    process.stderr.write(chunk);
  });
  let failure: (Error & { code?: string }) | undefined;
  worker.once('error', (err) => (failure = err));
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  // Everything the thread wrote is passed on before its status is.
  return Promise.all([exited, finished(worker.stdout), finished(worker.stderr)]).then(([code]) => {
    if (!failure) return code;
    if (failure.code === 'ERR_WORKER_OUT_OF_MEMORY' && !wrote) return undefined;
    throw failure;
  });
}
