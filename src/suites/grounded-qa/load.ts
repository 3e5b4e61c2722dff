import { InputError, preview } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import { validateLine } from '../../io/validate.js';
import {
  goldLineSchema,
  MIN_SUBSTRING_LENGTH,
  traceLineSchema,
  type GoldItem,
  type TraceRun,
} from './contract.js';

/** Reads and validates the gold set: unique qids, usable substrings, answerable items that can be checked. */
export async function loadGold(files: readonly string[]): Promise<GoldItem[]> {
  const items: GoldItem[] = [];
  const seen = new Map<string, { file: string; line: number }>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      const g = validateLine(
        goldLineSchema,
        value,
        file,
        line,
        'a gold item {qid, question, answerable, gold_claim_substr, gold_citations}',
      );
      const where = { file, line };
      const first = seen.get(g.qid);
      if (first) {
        const at = first.file === file ? `line ${first.line}` : `${first.file}:${first.line}`;
        throw new InputError(
          where,
          `duplicate qid ${JSON.stringify(g.qid)} (first defined at ${at}); expected unique qids`,
        );
      }
      seen.set(g.qid, where);
      g.gold_claim_substr.forEach((s, i) => {
        if ([...s.trim()].length < MIN_SUBSTRING_LENGTH) {
          throw new InputError(
            where,
            `qid ${JSON.stringify(g.qid)}: gold_claim_substr[${i}] ${preview(s)} is shorter than ${MIN_SUBSTRING_LENGTH} characters; expected a substring of at least ${MIN_SUBSTRING_LENGTH}`,
          );
        }
      });
      if (g.answerable && g.gold_claim_substr.length === 0) {
        throw new InputError(
          where,
          `qid ${JSON.stringify(g.qid)}: answerable item has no gold_claim_substr; expected at least one`,
        );
      }
      if (g.answerable && g.gold_citations.length === 0) {
        throw new InputError(
          where,
          `qid ${JSON.stringify(g.qid)}: answerable item has no gold_citations; expected at least one`,
        );
      }
      items.push({
        qid: g.qid,
        question: g.question,
        answerable: g.answerable,
        claimSubstrings: g.gold_claim_substr,
        citations: g.gold_citations,
        constraints: g.constraints ?? [],
        source: where,
      });
    }
  }
  if (items.length === 0)
    throw new InputError({ file: files[0] ?? 'gold' }, 'gold set is empty; expected at least one item');
  return items;
}

export interface RunsLoad {
  /** The winning run of each gold qid. */
  runs: Map<string, TraceRun>;
  lines: number;
  /** Lines that lost to a later run of the same qid. */
  superseded: number;
  /** Trace qids that are not in gold, with how many lines each had (sorted when reported). */
  unknown: Map<string, number>;
}

/**
 * Streams the traces and keeps only the last run of each gold qid: greatest `ts`, file order breaking ties,
 * a run without `ts` older than any with one. Nothing else from a line outlives it.
 */
export async function loadRuns(files: readonly string[], goldQids: ReadonlySet<string>): Promise<RunsLoad> {
  const runs = new Map<string, TraceRun>();
  const unknown = new Map<string, number>();
  let lines = 0;
  let superseded = 0;
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      lines++;
      const t = validateLine(
        traceLineSchema,
        value,
        file,
        line,
        'a trace {qid, retrieved_ids, answer_json: {claim, citations}}',
      );
      if (!goldQids.has(t.qid)) {
        unknown.set(t.qid, (unknown.get(t.qid) ?? 0) + 1);
        continue;
      }
      const run: TraceRun = {
        qid: t.qid,
        ts: timestamp(t.ts, file, line),
        retrieved: t.retrieved_ids,
        claim: t.answer_json.claim,
        citations: t.answer_json.citations,
        constraintsEcho: t.answer_json.constraints_echo,
        source: { file, line },
      };
      const previous = runs.get(t.qid);
      if (previous) {
        superseded++;
        if (isOlder(run, previous)) continue;
      }
      runs.set(t.qid, run);
    }
  }
  return { runs, lines, superseded, unknown };
}

/** Later lines win ties, so only a strictly older run loses to the one already kept. */
function isOlder(candidate: TraceRun, kept: TraceRun): boolean {
  if (candidate.ts === undefined) return kept.ts !== undefined;
  if (kept.ts === undefined) return false;
  return candidate.ts < kept.ts;
}

/** `ts` is epoch seconds as a number, or an ISO-8601 string (converted to epoch seconds). */
function timestamp(ts: number | string | null | undefined, file: string, line: number): number | undefined {
  if (ts === null || ts === undefined) return undefined;
  if (typeof ts === 'number') {
    if (!Number.isFinite(ts)) throw new InputError({ file, line }, 'field "ts": expected a finite number');
    return ts;
  }
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) {
    throw new InputError(
      { file, line },
      `field "ts": ${preview(ts)} is not a date; expected epoch seconds or an ISO-8601 string`,
    );
  }
  return ms / 1000;
}
