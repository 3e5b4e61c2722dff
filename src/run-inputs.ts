import path from 'node:path';
import { InputError } from './errors.js';
import { realOrAbsolute } from './io/confine.js';
import { lockPathFor } from './gold/status.js';
import { prepareRun, suiteInputs, type RunOptions } from './run.js';

/** A file the run reads, and what it is to the run ("suite qa's gold"). */
export interface RunInput {
  file: string;
  what: string;
}

/** A file the user asked the command to write, and the flag that named it. */
export interface UserOutput {
  flag: string;
  file: string | undefined;
  /** The path as the user wrote it, when `file` is it resolved elsewhere than the working directory. */
  written?: string;
}

/** Paths in a suite's config that name files the run reads besides its inputs (grounded answers' judge). */
const READ_PATHS = ['claims.cache', 'claims.labels', 'claims.pricing'] as const;

/**
 * Every file a run of `options` reads: the config, each selected suite's inputs (globs expanded, --input
 * overrides applied), its gold lock and judge files, and the baseline. The judge rewrites claims.cache
 * itself; it is listed because no output the user names may replace it.
 */
export async function runInputs(options: RunOptions): Promise<RunInput[]> {
  const setup = prepareRun(options);
  options.loaded = setup.config;
  const { config } = setup;
  const inputs: RunInput[] = [{ file: config.file, what: 'the config' }];
  for (const suite of setup.selected) {
    const files = await suiteInputs(suite, config, options.inputs ?? []);
    for (const [key, list] of Object.entries(files))
      for (const file of list) inputs.push({ file, what: `suite ${suite.name}'s ${key}` });
    const gold = suite.kind.goldKey && files[suite.kind.goldKey];
    if (gold && gold.length > 0)
      inputs.push({ file: lockPathFor(suite, config, gold).file, what: `suite ${suite.name}'s lock` });
    for (const key of READ_PATHS) {
      const value = valueAt(suite.config, key);
      if (typeof value === 'string')
        inputs.push({ file: path.resolve(config.dir, value), what: `suite ${suite.name}'s ${key}` });
    }
  }
  if (options.baseline !== undefined) inputs.push({ file: options.baseline, what: 'the baseline' });
  return inputs;
}

function valueAt(config: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], config);
}

/**
 * Refuses, before anything is written, an output the user named that is a file the run reads: `--report
 * gold.jsonl` replaced the gold set with the report and passed. Files are compared by their real paths, so
 * `./x`, `x` and a link to x are one file.
 */
export function refuseInputsAsOutputs(outputs: readonly UserOutput[], inputs: readonly RunInput[]): void {
  const read = new Map<string, string>();
  for (const input of inputs) {
    const key = realPath(input.file);
    if (!read.has(key)) read.set(key, input.what);
  }
  for (const { flag, file, written } of outputs) {
    if (file === undefined) continue;
    const what = read.get(realPath(file));
    if (what !== undefined)
      throw new InputError(
        undefined,
        `${flag} ${written ?? file}: is an input of this run (${what}); expected a path that is not read by the run`,
      );
  }
}

/** A file as the run meets it: its real path (see realOrAbsolute); a dangling link as written. */
const realPath = (file: string): string => realOrAbsolute(file) ?? path.resolve(file);
