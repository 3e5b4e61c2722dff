import { traceChecker, traceScanner } from './trace-checks.js';
import type { TraceInput } from './source.js';
import { parseJsonLine } from '../io/jsonl.js';
import { forEachSpan } from '../io/read-at.js';
import { checkTraceLine, type GoldItem } from './contract.js';
import { judgeInto, judgeItem, type JudgeOptions } from './judge.js';
import { judgedTrace, scanTraceLine, traceFields, type JudgedTrace } from './trace-scan.js';
import type { RunTable } from './runs.js';
import type { CompiledRule } from './scu.js';

/**
 * Reads the winning runs of gold items `rows` back from `file`, where the table says they are (one pass,
 * in offset order), and judges each into its row of the table. The scan checked every line already; a
 * line it left to JSON.parse is parsed again here.
 */
export function judgeRows(
  file: string,
  rows: readonly number[],
  table: RunTable,
  gold: readonly GoldItem[],
  rules: readonly CompiledRule[] | null,
  options: JudgeOptions,
  reading: Pick<TraceInput, 'fields' | 'markers'> = {},
): void {
  const mapped = (reading.fields || reading.markers) && traceChecker(reading);
  const scanner = traceScanner(reading);
  const offsets = Float64Array.from(rows, (row) => table.offset[row]!);
  const lengths = Float64Array.from(rows, (row) => table.length[row]!);
  const found = traceFields();
  forEachSpan(file, offsets, lengths, (k, buf, start, end) => {
    const row = rows[k]!;
    const line = table.line[row]!;
    let t: JudgedTrace;
    if (scanTraceLine(buf, start, end, found, scanner)) t = judgedTrace(buf, end, found);
    else {
      const value = parseJsonLine(file, line, buf.toString('utf8', start, end));
      t = mapped ? mapped.check(value, file, line) : checkTraceLine(value, file, line);
    }
    judgeInto(judgeItem(gold[row]!, rules, options.normalized), t, options, table, row);
  });
}
