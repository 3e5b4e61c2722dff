import { InputError, preview } from '../../errors.js';
import { GoldDigester, type GoldDigest } from '../../gold/digest.js';
import { isBlank, parseJsonLine, readLineBatches, type LineRef } from '../../io/jsonl.js';
import { validateLine } from '../../io/validate.js';
import {
  asTraceLine,
  goldLineSchema,
  MIN_SUBSTRING_LENGTH,
  traceLineSchema,
  type GoldItem,
  type TraceRun,
} from './contract.js';
import { judge, type Judgement, type ScoreOptions } from './score.js';

const GOLD_WHAT = 'a gold item {qid, question, answerable, gold_claim_substr, gold_citations}';
const TRACE_WHAT = 'a trace {qid, retrieved_ids, answer_json: {claim, citations}}';

/**
 * Reads, validates and digests the gold set in one pass: unique qids, usable substrings, answerable items
 * that can be checked.
 */
export async function loadGold(files: readonly string[]): Promise<{ items: GoldItem[]; digest: GoldDigest }> {
  const items: GoldItem[] = [];
  const digester = new GoldDigester();
  const seen = new Map<string, LineRef>();
  for (const file of files) {
    for await (const batch of readLineBatches(file)) {
      for (const { line, text, offset, length } of batch) {
        if (isBlank(text)) continue;
        const value = parseJsonLine(file, line, text);
        const g = validateLine(goldLineSchema, value, file, line, GOLD_WHAT);
        const where = { file, line };
        const first = seen.get(g.qid);
        if (first) {
          const at = first.file === file ? `line ${first.line}` : `${first.file}:${first.line}`;
          throw new InputError(
            where,
            `duplicate qid ${JSON.stringify(g.qid)} (first defined at ${at}); expected unique qids`,
          );
        }
        const source = { file, line, offset, length };
        seen.set(g.qid, source);
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
        digester.add(g.qid, value);
        items.push({
          qid: g.qid,
          answerable: g.answerable,
          claimSubstrings: g.gold_claim_substr,
          citations: g.gold_citations,
          constraints: g.constraints ?? [],
          source,
        });
      }
    }
  }
  if (items.length === 0)
    throw new InputError({ file: files[0] ?? 'gold' }, 'gold set is empty; expected at least one item');
  return { items, digest: digester.finish() };
}

/** The run that won for a qid: when it ran, what it was judged, and where to read it again. */
export interface Winner {
  ts?: number;
  judgement: Judgement;
  ref: LineRef;
}

export interface RunsLoad {
  winners: Map<string, Winner>;
  lines: number;
  /** Lines that lost to a later run of the same qid. */
  superseded: number;
  /** Trace qids that are not in gold, with how many lines each had. */
  unknown: Map<string, number>;
}

/**
 * Streams the traces, judging each line as it is read and keeping only the last run of each gold qid:
 * greatest `ts`, file order breaking ties, a run without `ts` older than any with one. No trace text
 * outlives its line.
 */
export async function judgeRuns(
  files: readonly string[],
  gold: ReadonlyMap<string, GoldItem>,
  options: ScoreOptions,
): Promise<RunsLoad> {
  const winners = new Map<string, Winner>();
  const unknown = new Map<string, number>();
  let lines = 0;
  let superseded = 0;
  for (const file of files) {
    for await (const batch of readLineBatches(file)) {
      for (const { line, text, offset, length } of batch) {
        if (isBlank(text)) continue;
        lines++;
        const value = parseJsonLine(file, line, text);
        const t = asTraceLine(value) ?? validateLine(traceLineSchema, value, file, line, TRACE_WHAT);
        const item = gold.get(t.qid);
        if (!item) {
          unknown.set(t.qid, (unknown.get(t.qid) ?? 0) + 1);
          continue;
        }
        const ts = timestamp(t.ts, file, line);
        const previous = winners.get(t.qid);
        if (previous) {
          superseded++;
          if (isOlder(ts, previous.ts)) continue;
        }
        const run = toRun(t);
        winners.set(t.qid, { ts, judgement: judge(item, run, options), ref: { file, line, offset, length } });
      }
    }
  }
  return { winners, lines, superseded, unknown };
}

export function toRun(t: {
  qid: string;
  retrieved_ids: string[];
  answer_json: { claim: string; citations: string[]; constraints_echo?: string[] };
}): TraceRun {
  return {
    qid: t.qid,
    retrieved: t.retrieved_ids,
    claim: t.answer_json.claim,
    citations: t.answer_json.citations,
    constraintsEcho: t.answer_json.constraints_echo,
  };
}

/** Later lines win ties, so only a strictly older run loses to the one already kept. */
function isOlder(candidate: number | undefined, kept: number | undefined): boolean {
  if (candidate === undefined) return kept !== undefined;
  if (kept === undefined) return false;
  return candidate < kept;
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
