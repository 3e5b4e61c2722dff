import { parseJsonLine } from '../io/jsonl.js';
import { forEachSpan } from '../io/read-at.js';
import { checkTraceLine, type GoldItem } from './contract.js';
import { judgeInto, judgeItem, type JudgeOptions } from './judge.js';
import { judgedTrace, scanTraceLine, traceFields } from './trace-scan.js';
import type { RunTable } from './runs.js';
import type { CompiledRule } from './scu.js';

/**
 * Reads the winning runs of gold items `rows` back from `file`, where the table says they are (one pass,
 * in offset order), and judges each into its row of the table. The scan checked every line already; a
 * line it left to JSON.parse is parsed again here.
 */
export async function judgeRows(
  file: string,
  rows: readonly number[],
  table: RunTable,
  gold: readonly GoldItem[],
  rules: readonly CompiledRule[] | null,
  options: JudgeOptions,
): Promise<void> {
  const offsets = Float64Array.from(rows, (row) => table.offset[row]!);
  const lengths = Float64Array.from(rows, (row) => table.length[row]!);
  const fields = traceFields();
  await forEachSpan(file, offsets, lengths, (k, buf, start, end) => {
    const row = rows[k]!;
    const line = table.line[row]!;
    const t = scanTraceLine(buf, start, end, fields)
      ? judgedTrace(buf, end, fields)
      : checkTraceLine(parseJsonLine(file, line, buf.toString('utf8', start, end)), file, line);
    judgeInto(judgeItem(gold[row]!, rules), t, options, table, row);
  });
}
