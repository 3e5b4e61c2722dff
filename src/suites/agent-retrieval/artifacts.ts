import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../errors.js';
import type { TaskRecord } from './aggregate.js';
import { taskArtifact } from './summary.js';

/**
 * Writes stage 5 under `dir`: `{config}/{task}.retrieval_metrics.json` per document (`{run}/{config}/…` when
 * the documents come from several runs) and `run_retrieval_summary.json`. Only these names are written,
 * so pointing `dir` at a run never overwrites its artifacts.
 */
export function writeArtifacts(
  dir: string,
  records: readonly TaskRecord[],
  runSummary: Record<string, unknown>,
  cutoffs: readonly number[],
): string[] {
  const runs = new Set(records.map((r) => r.doc.provenance.run_id));
  const written: string[] = [];
  const write = (file: string, value: unknown) => {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
    } catch (err) {
      throw new InputError(
        { file },
        `cannot write artifact (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    written.push(file);
  };
  for (const record of records) {
    const p = record.doc.provenance;
    const parts = [
      ...(runs.size > 1 ? [p.run_id] : []),
      p.config_name,
      `${p.task_name}.retrieval_metrics.json`,
    ];
    for (const part of parts) {
      if (part === '' || part === '.' || part === '..' || /[\\/]/.test(part)) {
        throw new InputError(
          { file: record.file ?? record.trial ?? dir },
          `provenance names ${JSON.stringify(part)}, which cannot name an artifact file; expected names without path separators`,
        );
      }
    }
    write(path.join(dir, ...parts), taskArtifact(record, cutoffs));
  }
  write(path.join(dir, 'run_retrieval_summary.json'), runSummary);
  return written;
}
