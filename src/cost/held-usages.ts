import { InputError, type Where } from '../errors.js';
import type { ModelTokens, Usage } from './usage.js';

// The usages a thread read with its runs, held as typed columns that cross to another thread moved (a
// hundred thousand Usage objects would be cloned one by one), and read back as the Usage each was.

/** Usages by slot, each undefined (no count), a Usage, or the input error reading it met. */
export interface HeldUsages {
  /** Slot i's tokensIn, tokensOut and cachedIn are counts[3i, 3i + 3): NaN where not counted. */
  counts: Float64Array;
  /**
   * Slot i's counts by model are parts[4 partAt[i], 4 partAt[i + 1]), four numbers a model: its index in
   * `models` (-1 when no call names one), tokensIn, tokensOut and cachedIn (NaN when not counted). None when its
   * Usage has no byModel.
   */
  partAt: Int32Array;
  parts: Float64Array;
  models: string[];
  /** [slot, where, detail] of each slot whose usage is an input error, thrown when that slot is read. */
  errors: [number, Where | undefined, string][];
}

/** `usages`, by slot, held (see HeldUsages). */
export function holdUsages(usages: readonly (Usage | InputError | undefined)[]): HeldUsages {
  const counts = new Float64Array(3 * usages.length).fill(NaN);
  const partAt = new Int32Array(usages.length + 1);
  const parts: number[] = [];
  const models = new Map<string, number>();
  const errors: HeldUsages['errors'] = [];
  usages.forEach((usage, slot) => {
    partAt[slot + 1] = partAt[slot]!;
    if (usage === undefined) return;
    if (usage instanceof InputError) {
      errors.push([slot, usage.where, usage.detail]);
      return;
    }
    counts[3 * slot] = usage.tokensIn ?? NaN;
    counts[3 * slot + 1] = usage.tokensOut ?? NaN;
    counts[3 * slot + 2] = usage.cachedIn ?? NaN;
    for (const part of usage.byModel ?? []) {
      let model = -1;
      if (part.model !== undefined) {
        model = models.get(part.model) ?? models.size;
        models.set(part.model, model);
      }
      parts.push(model, part.tokensIn, part.tokensOut, part.cachedIn ?? NaN);
    }
    partAt[slot + 1] = parts.length / 4;
  });
  return { counts, partAt, parts: Float64Array.from(parts), models: [...models.keys()], errors };
}

/** A reader of held usages: slot's Usage, as it was held; a slot held as an input error throws it. */
export function heldUsageReader(): (h: HeldUsages, slot: number) => Usage | undefined {
  const errorsOf = new WeakMap<HeldUsages, Map<number, InputError>>();
  return (h, slot) => {
    if (h.errors.length > 0) {
      let errors = errorsOf.get(h);
      if (!errors)
        errorsOf.set(h, (errors = new Map(h.errors.map(([s, w, d]) => [s, new InputError(w, d)]))));
      const error = errors.get(slot);
      if (error) throw error;
    }
    const counted = (v: number) => (Number.isNaN(v) ? undefined : v);
    const tokensIn = counted(h.counts[3 * slot]!);
    const tokensOut = counted(h.counts[3 * slot + 1]!);
    const cachedIn = counted(h.counts[3 * slot + 2]!);
    if (tokensIn === undefined && tokensOut === undefined) return undefined;
    const byModel: ModelTokens[] = [];
    for (let k = h.partAt[slot]!; k < h.partAt[slot + 1]!; k++) {
      const model = h.parts[4 * k]!;
      const cached = counted(h.parts[4 * k + 3]!);
      byModel.push({
        model: model < 0 ? undefined : h.models[model]!,
        tokensIn: h.parts[4 * k + 1]!,
        tokensOut: h.parts[4 * k + 2]!,
        ...(cached !== undefined && { cachedIn: cached }),
      });
    }
    return {
      ...(tokensIn !== undefined && { tokensIn }),
      ...(tokensOut !== undefined && { tokensOut }),
      ...(cachedIn !== undefined && { cachedIn }),
      ...(byModel.length > 0 && { byModel }),
    };
  };
}

/** The usage `read` gives, or the input error reading it met, kept to be thrown if the run is a winner. */
export function usageOrError(read: () => Usage | undefined): Usage | InputError | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
}
