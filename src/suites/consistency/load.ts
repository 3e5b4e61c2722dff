import { InputError, preview } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import { compareCodeUnits } from '../../io/files.js';
import { validateLine } from '../../io/validate.js';
import {
  LABELS,
  pairLineSchema,
  raterLineSchema,
  type Judgment,
  type Pair,
  type Verdict,
} from './contract.js';

function verdict(label: string, field: string, file: string, line: number): Verdict {
  if ((LABELS as readonly string[]).includes(label)) return label as Verdict;
  throw new InputError(
    { file, line },
    `field "${field}": found ${preview(label)}; expected one of ${LABELS.join(', ')}`,
  );
}

/** Refuses a second line for a qid: two verdicts for one item cannot both be counted. */
export function once(
  seen: Map<string, { file: string; line: number }>,
  qid: string,
  file: string,
  line: number,
): void {
  const first = seen.get(qid);
  if (first) {
    const at = first.file === file ? `line ${first.line}` : `${first.file}:${first.line}`;
    throw new InputError(
      { file, line },
      `duplicate qid ${JSON.stringify(qid)} (first at ${at}); expected one line per qid`,
    );
  }
  seen.set(qid, { file, line });
}

/** Reads merged pairs files: every line is one item labelled by both agents. */
export async function loadPairs(files: readonly string[]): Promise<Pair[]> {
  const pairs: Pair[] = [];
  const seen = new Map<string, { file: string; line: number }>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      const p = validateLine(
        pairLineSchema,
        value,
        file,
        line,
        'a pair {qid, scholar: {label}, auditor: {label}}',
      );
      once(seen, p.qid, file, line);
      const source = { file, line };
      const citations = p.answer_json?.citations ?? [];
      const retrieved = new Set(p.retrieved_ids ?? []);
      pairs.push({
        qid: p.qid,
        scholar: {
          label: verdict(p.scholar.label, 'scholar.label', file, line),
          reason: p.scholar.reason,
          source,
        },
        auditor: {
          label: verdict(p.auditor.label, 'auditor.label', file, line),
          reason: p.auditor.reason,
          source,
        },
        redFlag: Boolean(p.flags?.provenance_violation || p.flags?.constraints_mismatch),
        citationOutOfScope: citations.some((c) => !retrieved.has(c)),
      });
    }
  }
  return pairs;
}

export async function loadRater(files: readonly string[], rater: string): Promise<Map<string, Judgment>> {
  const out = new Map<string, Judgment>();
  const seen = new Map<string, { file: string; line: number }>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file)) {
      const r = validateLine(raterLineSchema, value, file, line, `a ${rater} verdict {qid, label, reason?}`);
      once(seen, r.qid, file, line);
      out.set(r.qid, {
        label: verdict(r.label, 'label', file, line),
        reason: r.reason,
        source: { file, line },
      });
    }
  }
  return out;
}

export interface JoinedPairs {
  pairs: Pair[];
  /** Qids only one agent labelled: not scored, reported. */
  scholarOnly: string[];
  auditorOnly: string[];
}

/** Joins a scholar file and an auditor file on qid; items only one of them labelled are left out. */
export async function joinRaters(
  scholarFiles: readonly string[],
  auditorFiles: readonly string[],
): Promise<JoinedPairs> {
  return joinJudgments(await loadRater(scholarFiles, 'scholar'), await loadRater(auditorFiles, 'auditor'));
}

/** Each rater's judgments by qid, in the order read, joined on qid. */
export function joinJudgments(
  scholar: ReadonlyMap<string, Judgment>,
  auditor: ReadonlyMap<string, Judgment>,
): JoinedPairs {
  const pairs: Pair[] = [];
  const scholarOnly: string[] = [];
  for (const [qid, s] of scholar) {
    const a = auditor.get(qid);
    if (a) pairs.push({ qid, scholar: s, auditor: a, redFlag: false, citationOutOfScope: false });
    else scholarOnly.push(qid);
  }
  const auditorOnly = [...auditor.keys()].filter((qid) => !scholar.has(qid));
  return {
    pairs,
    scholarOnly: scholarOnly.sort(compareCodeUnits),
    auditorOnly: auditorOnly.sort(compareCodeUnits),
  };
}
