import { CANONICAL_TRACES } from '../trace-input.js';
import type { ThreadScan } from './chunk-scan.js';
import { goldDigestFrom, NO_DIGESTER } from '../gold-digesting.js';
import { judgeStage } from './judge-stage.js';
import { runsLoad } from './judged-runs.js';
import type { Judging } from '../judging.js';
import type { ScoreOptions } from '../score-options.js';
import { gatherScans, spawn, startThreads, stopHelpers, type Helper } from './threads.js';
import type { TraceSource } from '../sources/source.js';
import type { WorkerInput } from './worker-protocol.js';

// The one reading pipeline, whatever the format: the source cuts the input into chunks, the threads scan
// them (helpers start at once, while the main thread loads gold, and it joins them in finish), the source
// picks each gold item's winning run from the scans and reads the winners back, and the judge stage judges
// them. One thread or several, the code is the same: a small input is one thread's, with no helper.

/**
 * Starts reading `files` with `source`. `goldFiles`, JSON Lines, are digested by a helper where the source
 * has a core to spare for it (see TraceSource.digest).
 */
export function startReading<S extends ThreadScan, Told, W>(
  source: TraceSource<S, Told, W>,
  files: readonly string[],
  options: ScoreOptions,
  goldFiles: readonly string[] = [],
): Judging {
  const input = options.traces ?? CANONICAL_TRACES;
  let told: Told | undefined;
  const digests = goldFiles.length > 0 ? source.digest : 'none';
  const started = startThreads<S>(
    (chunks, helper) => {
      if (source.told) told ??= source.told(chunks);
      return {
        source: source.name,
        input,
        ...(told !== undefined && { told }),
        ...(digests === 'first-helper' && helper === 0 && { gold: [...goldFiles] }),
      };
    },
    source.cut(files),
    source.mainReads,
    source.alone,
  );
  // A missing trace file is reported by finish(), after the gold set's own errors.
  started.catch(() => undefined);
  /** The helper digesting gold after the scans (see TraceSource.digest). */
  let digester: Helper<S> | undefined;
  const firstHelper = started.then(
    ({ helpers }) => (digests === 'first-helper' ? helpers[0] : undefined),
    () => undefined,
  );
  const digesting: Pick<Judging, 'digestsGold' | 'goldDigest'> =
    digests === 'after-scan'
      ? {
          digestsGold: started.then(
            ({ entry }) => entry !== undefined,
            () => false,
          ),
          async goldDigest(gold) {
            const made = digester && (await digester.digests);
            if (digester) await stopHelpers([digester]);
            return goldDigestFrom(made ?? null, gold, goldFiles);
          },
        }
      : digests === 'first-helper'
        ? {
            digestsGold: firstHelper.then((h) => h !== undefined),
            async goldDigest(gold) {
              const h = await firstHelper;
              return goldDigestFrom(h ? await h.digests : null, gold, goldFiles);
            },
          }
        : NO_DIGESTER;
  return {
    ...digesting,
    async cancel() {
      const { helpers } = await started.catch(() => ({ helpers: [] as Helper<S>[] }));
      await stopHelpers(helpers);
    },
    async finish(gold, questions) {
      const { chunks, queue, helpers, entry } = await started;
      const watch = helpers.length > 0 ? source.watch?.(told!, chunks) : undefined;
      const keep = source.help !== undefined;
      const scans = await gatherScans(
        [
          ...(source.mainReads || helpers.length === 0 ? [source.scan(queue, input)] : []),
          ...helpers.map((h) => (watch ? Promise.race([h.scan, watch.stuck]) : h.scan)),
        ],
        helpers,
        keep,
      ).finally(() => watch?.stop());
      if (digests === 'after-scan' && entry) {
        const job: WorkerInput = { source: source.name, input, chunks: [], shared: queue.shared };
        digester = spawn<S>(entry, { ...job, gold: [...goldFiles] });
      }
      const picking = {
        files,
        chunks,
        gold,
        options,
        input,
        questions: source.byQuestion?.(input) ? questions : undefined,
        helpers,
      };
      const read = async () => {
        const picked = source.pick(scans, picking);
        const judge = judgeStage(gold, picked.table, options);
        const loaded = runsLoad(picked, await source.readBack(picked, picking, judge), files, options);
        const meeting = judge.meter.meeting();
        return meeting ? { ...loaded, meeting } : loaded;
      };
      if (!keep) return read();
      try {
        return await read();
      } finally {
        await stopHelpers(helpers);
      }
    },
  };
}
