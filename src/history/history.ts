import { appendFileSync, existsSync } from 'node:fs';
import { readJsonl } from '../io/jsonl.js';
import { validateLine } from '../io/validate.js';
import type { Report } from '../report/schema.js';
import { historyEntrySchema, type HistoryEntry } from './schema.js';

/**
 * The entry for a report: every metric value and every threshold gate (max_drop, max_increase and
 * max_new_failures are relative to a baseline, so left out).
 */
export function entryFor(report: Report, label: string, recorded: string): HistoryEntry {
  const metrics: HistoryEntry['metrics'] = {};
  for (const [suite, s] of Object.entries(report.suites)) {
    for (const [metric, v] of Object.entries(s.metrics)) metrics[`${suite}.${metric}`] = v.value;
  }
  const gates: HistoryEntry['gates'] = {};
  for (const g of report.gates) {
    if (g.op === 'max_drop' || g.op === 'max_increase' || g.op === 'max_new_failures') continue;
    (gates[`${g.suite}.${g.metric}`] ??= []).push({ op: g.op, threshold: g.threshold });
  }
  return { recorded, label, verdict: report.verdict, metrics, gates };
}

export function appendEntry(file: string, entry: HistoryEntry): void {
  appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

/** Reads a history file; a missing one is an empty history (the first run of a new repository). */
export async function readHistory(file: string): Promise<HistoryEntry[]> {
  if (!existsSync(file)) return [];
  const out: HistoryEntry[] = [];
  for await (const { line, value } of readJsonl(file)) {
    out.push(
      validateLine(
        historyEntrySchema,
        value,
        file,
        line,
        'a history entry written by groundgate history append',
      ),
    );
  }
  return out;
}
