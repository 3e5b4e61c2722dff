import { InputError, preview } from '../../errors.js';
import { readLines } from '../../io/jsonl.js';
import { traceRecords } from '../../grounded-answer/trace-records.js';
import { readsSpans } from '../../grounded-answer/load.js';
import { CANONICAL_TRACES, type TraceInput } from '../../grounded-answer/trace-input.js';
import { recordChecker } from '../../io/field-map.js';
import { splitCsvLine } from './csv.js';
import { spanStages } from './span-stages.js';
import { recordUsage, spanUsage } from '../../cost/usage.js';
import {
  CSV_HEADER,
  REQUIRED_COLUMNS,
  STAGES,
  TIMED_WHAT,
  timedLineSchema,
  timedShape,
  timedTest,
  type LatencySample,
  type Stage,
} from './contract.js';

const NUMBER = /^\+?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads latency CSVs: one header line per file (columns in any order, unknown ones ignored), then one
 * request per line. A line repeating the header is skipped: the seed's harness appends a header on every run.
 * Every request counts (there is no "last run wins" for latency: a retried request was still served), so
 * the `ts` column is not read.
 */
export async function loadCsv(files: readonly string[]): Promise<LatencySample[]> {
  const samples: LatencySample[] = [];
  for (const file of files) {
    let header: { text: string; line: number; index: Map<string, number>; width: number } | undefined;
    for await (const { line, text } of readLines(file)) {
      if (text.trim() === '') continue;
      if (header && text === header.text) continue;
      const fields = splitCsvLine(text);
      if (!Array.isArray(fields)) throw new InputError({ file, line, column: fields.column }, fields.reason);
      if (!header) {
        header = {
          text,
          line,
          index: columnIndex(
            fields.map((f) => f.value.trim()),
            file,
            line,
          ),
          width: fields.length,
        };
        continue;
      }
      if (fields.length !== header.width) {
        throw new InputError(
          { file, line },
          `found ${fields.length} fields; expected ${header.width}, as in the header at line ${header.line}`,
        );
      }
      const cell = (name: string) => {
        const i = header!.index.get(name);
        return i === undefined ? undefined : fields[i]!;
      };
      const qid = cell('qid')!;
      if (qid.value.trim() === '') {
        throw new InputError(
          { file, line, column: qid.column },
          'found an empty qid; expected a question id',
        );
      }
      const e2e = cell('e2e_ms')!;
      const e2eMs = milliseconds(e2e.value, 'e2e_ms', { file, line, column: e2e.column });
      if (e2eMs === undefined) {
        throw new InputError(
          { file, line, column: e2e.column },
          'found an empty e2e_ms; expected the end-to-end milliseconds',
        );
      }
      const stageMs: Partial<Record<Stage, number>> = {};
      for (const stage of STAGES) {
        const c = cell(`${stage}_ms`);
        const ms = c && milliseconds(c.value, `${stage}_ms`, { file, line, column: c.column });
        if (ms !== undefined) stageMs[stage] = ms;
      }
      samples.push({
        configuration: cell('knobs')?.value ?? '',
        qid: qid.value.trim(),
        e2eMs,
        stageMs,
        source: { file, line },
      });
    }
  }
  return samples;
}

function columnIndex(names: readonly string[], file: string, line: number): Map<string, number> {
  const index = new Map<string, number>();
  names.forEach((name, i) => {
    if (index.has(name)) {
      throw new InputError(
        { file, line },
        `header names column ${JSON.stringify(name)} twice; expected unique names`,
      );
    }
    index.set(name, i);
  });
  for (const required of REQUIRED_COLUMNS) {
    if (!index.has(required)) {
      throw new InputError(
        { file, line },
        `header has no ${required} column; expected a header such as ${CSV_HEADER.join(',')}`,
      );
    }
  }
  return index;
}

/** A cell's milliseconds; undefined when the cell is empty (a stage that did not run). */
function milliseconds(
  value: string,
  name: string,
  where: { file: string; line: number; column: number },
): number | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  const ms = NUMBER.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(ms)) {
    throw new InputError(
      where,
      `${name}: found ${preview(value)}; expected a non-negative number of milliseconds`,
    );
  }
  return ms;
}

export interface TraceLatencies {
  samples: LatencySample[];
  lines: number;
  /** Trace lines without `latency_ms`. */
  untimed: number;
}

/**
 * Reads `latency_ms` from trace lines, every line a request (retries included): only `qid` and `latency_ms`
 * are checked, so a log of timed requests is read as well as grounded-qa traces; from traces assembled from
 * spans, each stage's time as well (see spanStages). Each file is one configuration, named as reports name
 * the file.
 */
export async function loadTraceLatencies(
  files: readonly string[],
  name: (file: string) => string,
  input: TraceInput = CANONICAL_TRACES,
): Promise<TraceLatencies> {
  const checker = recordChecker(timedLineSchema, timedTest, input.fields, TIMED_WHAT, timedShape);
  const samples: LatencySample[] = [];
  let lines = 0;
  let untimed = 0;
  for (const file of files) {
    const configuration = name(file);
    for await (const { line, value, spans } of traceRecords([file], input, readsSpans([file], input))) {
      lines++;
      const t = checker.check(value, file, line);
      if (t.latency_ms === undefined) {
        untimed++;
        continue;
      }
      const stageMs = spans ? spanStages(spans.all) : {};
      // From spans, each call's tokens at its own model (a record names one model only).
      const usage = spans ? spanUsage(spans.all) : recordUsage(t, { file, line });
      samples.push({
        configuration,
        qid: t.qid,
        e2eMs: t.latency_ms,
        stageMs,
        ...(usage && { usage }),
        source: { file, line },
      });
    }
  }
  return { samples, lines, untimed };
}
