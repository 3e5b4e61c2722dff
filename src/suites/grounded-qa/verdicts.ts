import { parseJsonLine } from '../../io/jsonl.js';
import { forEachSpan } from '../../io/read-at.js';
import { checkTraceLine } from './contract.js';
import { judgeInto, type JudgeItem, type JudgeOptions } from './judge.js';
import { newRunTable } from './runs.js';

/** A winning run to judge: where its line is, and the gold item it answers. */
export interface JudgeJob {
  file: string;
  line: number;
  offset: number;
  length: number;
  item: JudgeItem;
}

/** The verdicts on jobs, by job index (recall and upper: job × cutoffs + j), as RunTable holds them. */
export interface Verdicts {
  flags: Uint32Array;
  rule: Int16Array;
  recall: Uint8Array;
  upper: Uint8Array;
}

/** Reads each job's line back, one pass per file, and judges it. */
export async function judgeJobs(jobs: readonly JudgeJob[], options: JudgeOptions): Promise<Verdicts> {
  const table = newRunTable(jobs.length, options.cutoffs.length);
  const byFile = new Map<string, number[]>();
  jobs.forEach((job, i) => {
    const list = byFile.get(job.file);
    if (list) list.push(i);
    else byFile.set(job.file, [i]);
  });
  for (const [file, list] of byFile) {
    await forEachSpan(
      file,
      list.map((i) => jobs[i]!),
      (k, text) => {
        const i = list[k]!;
        const { line, item } = jobs[i]!;
        const value = parseJsonLine(file, line, text);
        const t = checkTraceLine(value, file, line);
        judgeInto(item, t, options, table, i);
      },
    );
  }
  return { flags: table.flags, rule: table.rule, recall: table.recall, upper: table.upper };
}
