import { CANONICAL_TRACES } from '../trace-input.js';
import { goldDigestFrom, NO_DIGESTER } from '../gold-digesting.js';
import { judgeStage } from './judge-stage.js';
import { runsLoad } from './judged-runs.js';
import type { Judging } from '../judging.js';
import type { ScoreOptions } from '../score-options.js';
import { pickWinners } from './pick.js';
import { gatherScans, spawn, startThreads, stopHelpers, type Helper } from './threads.js';
import { helperShares, leaseTable, scanChunks, threadPlan, watchLeases } from './adapter.js';
import type { Picking, TraceSource } from '../sources/source.js';
import type { LeaseTable, WorkerInput } from './worker-protocol.js';

// The one reading pipeline, whatever the format: the input is cut into chunks as the source's layout says,
// the threads scan them (helpers start at once, while the main thread loads gold, and it joins them in
// finish), the source offers the runs its scans found to the one pick, reads the winners back, and the judge
// stage judges them. One thread or several, the code is the same: a small input is one thread's, with no
// helper. How the threads run a source is the adapter's (adapter.ts).

/**
 * Starts reading `files` with `source`. `goldFiles`, JSON Lines, are digested by a helper where the threads
 * have a core to spare for it (see ThreadPlan.digest).
 */
export function startReading<S extends object, W>(
  source: TraceSource<S, W>,
  files: readonly string[],
  options: ScoreOptions,
  goldFiles: readonly string[] = [],
): Judging {
  const input = options.traces ?? CANONICAL_TRACES;
  const plan = threadPlan(source as TraceSource);
  let leases: LeaseTable | undefined;
  const digests = goldFiles.length > 0 ? plan.digest : 'none';
  const started = startThreads<S>(
    (chunks, helper) => {
      if (source.stuck) leases ??= leaseTable(chunks.length);
      return {
        source: source.name,
        input,
        ...(leases && { leases }),
        ...(digests === 'first-helper' && helper === 0 && { gold: [...goldFiles] }),
      };
    },
    plan.cut(files),
    plan.mainReads,
    plan.alone,
  );
  // A missing trace file is reported by finish(), after the gold set's own errors.
  started.catch(() => undefined);
  /** The helper digesting gold after the scans (see ThreadPlan.digest). */
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
      const watch =
        helpers.length > 0 && source.stuck ? watchLeases(source.stuck, leases!, chunks) : undefined;
      const keep = plan.keepsHelpers;
      const scans = await gatherScans(
        [
          ...(plan.mainReads || helpers.length === 0 ? [scanChunks(source, queue, input)] : []),
          ...helpers.map((h) => (watch ? Promise.race([h.scan, watch.stuck]) : h.scan)),
        ],
        helpers,
        keep,
      ).finally(() => watch?.stop());
      if (digests === 'after-scan' && entry) {
        const job: WorkerInput = { source: source.name, input, chunks: [], shared: queue.shared };
        digester = spawn<S>(entry, { ...job, gold: [...goldFiles] });
      }
      const picking: Picking = { files, chunks, gold, options, input, helpers: helperShares(helpers) };
      const read = async () => {
        const picked = pickWinners(
          gold.map((g) => g.qid),
          options.cutoffs.length,
          source.byQuestion?.(input) ? questions : undefined,
          (offer) => source.candidates(scans, picking, offer),
        );
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
