import { traceChecker, traceScanner } from '../../trace-checks.js';
import type { TraceInput } from '../../trace-input.js';
import { parseJsonLine } from '../../../io/jsonl.js';
import { forEachSpan } from '../../../io/read-at.js';
import { checkTraceLine } from '../../contract.js';
import type { Judge } from '../../pipeline/judge-stage.js';
import { judgedTrace, scanTraceLine, traceFields, type JudgedTrace } from '../../trace-scan.js';
import type { RunTable } from '../../pipeline/runs.js';

/**
 * Reads the winning runs of gold items `rows` back from `file`, where the table says they are (one pass,
 * in offset order), and hands each to the judge. The scan checked every line already; a
 * line it left to JSON.parse is parsed again here.
 */
export function readBackLines(
  file: string,
  rows: readonly number[],
  table: RunTable,
  bytes: (row: number) => { offset: number; length: number },
  judge: Judge,
  reading: Pick<TraceInput, 'fields' | 'markers'> = {},
): void {
  const mapped = (reading.fields || reading.markers) && traceChecker(reading);
  const scanner = traceScanner(reading);
  const offsets = new Float64Array(rows.length);
  const lengths = new Float64Array(rows.length);
  rows.forEach((row, k) => ({ offset: offsets[k], length: lengths[k] } = bytes(row)));
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
    judge.run(row, t);
  });
}
