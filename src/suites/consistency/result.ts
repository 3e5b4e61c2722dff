import { itemVerdicts, type Offender, type ScoreContext, type SuiteResult } from '../types.js';
import { LABELS, type Pair } from './contract.js';
import type { JoinedPairs } from './load.js';
import { scoreConsistency, type FlaggedPair } from './score.js';

/** The suite's result from its pairs (read whole, or joined): one function for a run and a merge. */
export function consistencyResult(
  ctx: Pick<ScoreContext, 'relative'>,
  read: { pairs: Pair[] } | { joined: JoinedPairs },
): SuiteResult {
  const warnings: string[] = [];
  const counts: Record<string, number> = {};
  let pairs;
  if ('pairs' in read) {
    pairs = read.pairs;
  } else {
    const joined = read.joined;
    pairs = joined.pairs;
    counts.scholar_only = joined.scholarOnly.length;
    counts.auditor_only = joined.auditorOnly.length;
    for (const [ids, who, other] of [
      [joined.scholarOnly, 'scholar', 'auditor'],
      [joined.auditorOnly, 'auditor', 'scholar'],
    ] as const) {
      if (ids.length > 0) {
        warnings.push(
          `${ids.length} qid${ids.length === 1 ? '' : 's'} labelled by the ${who} only (no ${other} label) not scored: ${listed(ids)}`,
        );
      }
    }
  }
  const scored = scoreConsistency(pairs);
  const all = pairs;
  return {
    resample: {
      items: all.length,
      metric: (name, pick) => scoreConsistency(Array.from(pick, (i) => all[i]!)).metrics[name]?.value,
    },
    metrics: scored.metrics,
    counts: { pairs: pairs.length, ...counts },
    offenders: scored.flagged.map((f) => toOffender(f, ctx.relative)),
    warnings,
    tables: [
      {
        title: 'confusion matrix (rows: Scholar, columns: Auditor)',
        columns: ['scholar \\ auditor', ...LABELS],
        rows: LABELS.map((s, i) => [s, ...scored.confusion[i]!]),
      },
    ],
    items: itemVerdicts(
      pairs,
      (p) => p.qid,
      (p) => p.scholar.label === p.auditor.label && p.scholar.label !== 'ABSTAIN',
    ),
  };
}

function toOffender(f: FlaggedPair, relative: (file: string) => string): Offender {
  const { pair } = f;
  const at = (s: { file: string; line: number }) => `${relative(s.file)}:${s.line}`;
  const fields: Offender['fields'] = { scholar: pair.scholar.label, auditor: pair.auditor.label };
  if (f.arbitration) {
    fields.final = f.arbitration.final;
    fields.arbitration = f.arbitration.why;
  }
  fields.scholar_reason = pair.scholar.reason ?? null;
  fields.auditor_reason = pair.auditor.reason ?? null;
  // A pairs line is the source of both judgments; joined files give each its own line.
  if (pair.scholar.source !== pair.auditor.source) {
    fields.scholar_line = at(pair.scholar.source);
    fields.auditor_line = at(pair.auditor.source);
  }
  return {
    id: pair.qid,
    labels: [...(f.disagreement ? ['disagreement'] : []), ...(f.abstain ? ['abstain'] : [])],
    fields,
    source: { file: relative(pair.scholar.source.file), line: pair.scholar.source.line },
  };
}

function listed(ids: readonly string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
}
