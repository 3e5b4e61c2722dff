import type { Misread } from '../suites/types.js';

/** Whether a warning that the data looks read wrongly puts `metric` in doubt (`*` in its names: any text). */
export const concerns = (m: Misread, metric: string): boolean =>
  m.metrics.some((x) =>
    new RegExp(
      `^${x
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    ).test(metric),
  );
