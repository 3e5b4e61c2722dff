import { compareCodeUnits } from '../../io/files.js';
import { cohensKappa } from '../../metrics/kappa.js';
import { count, notComputable, proportion, type MetricValue } from '../../metrics/spec.js';
import { LABELS, type Pair, type Verdict } from './contract.js';

/**
 * The seed's deterministic conflict policy, in its order; the first rule that applies decides. Offenders
 * are listed in this order too: red flags first, as the seed says to triage them.
 */
export const ARBITRATIONS = [
  'hard_flag',
  'citation_out_of_scope',
  'auditor_veto',
  'incoherent_pair',
  'auditor_ok',
] as const;
export type Arbitration = (typeof ARBITRATIONS)[number];

export function arbitrate(pair: Pair): { final: 'VALID' | 'REJECT'; why: Arbitration } {
  if (pair.redFlag) return { final: 'REJECT', why: 'hard_flag' };
  if (pair.citationOutOfScope) return { final: 'REJECT', why: 'citation_out_of_scope' };
  if (pair.auditor.label !== 'VALID') return { final: 'REJECT', why: 'auditor_veto' };
  if (pair.scholar.label === 'VALID' || pair.scholar.label === 'NOT_IN_CONTEXT') {
    return { final: 'VALID', why: 'auditor_ok' };
  }
  return { final: 'REJECT', why: 'incoherent_pair' };
}

/** A pair a reviewer should look at: the agents disagree, or one of them abstained. */
export interface FlaggedPair {
  pair: Pair;
  disagreement: boolean;
  abstain: boolean;
  /** The arbitration of a disagreement. */
  arbitration?: { final: 'VALID' | 'REJECT'; why: Arbitration };
}

export interface ConsistencyScore {
  metrics: Record<string, MetricValue>;
  /** confusion[scholar][auditor], both indexed in LABELS order. */
  confusion: number[][];
  /** Disagreements by arbitration order then qid, then abstentions the agents agreed on, by qid. */
  flagged: FlaggedPair[];
}

const NO_PAIRS = 'no pairs labelled by both scholar and auditor';

export function scoreConsistency(pairs: readonly Pair[]): ConsistencyScore {
  const index = new Map<Verdict, number>(LABELS.map((l, i) => [l, i]));
  const confusion = LABELS.map(() => LABELS.map(() => 0));
  let agreed = 0;
  let abstained = 0;
  const flagged: FlaggedPair[] = [];
  for (const pair of pairs) {
    const s = pair.scholar.label;
    const a = pair.auditor.label;
    const row = confusion[index.get(s)!]!;
    row[index.get(a)!]! += 1;
    const disagreement = s !== a;
    const abstain = s === 'ABSTAIN' || a === 'ABSTAIN';
    if (!disagreement) agreed++;
    if (abstain) abstained++;
    if (disagreement || abstain) {
      flagged.push({
        pair,
        disagreement,
        abstain,
        ...(disagreement ? { arbitration: arbitrate(pair) } : {}),
      });
    }
  }
  const rank = (f: FlaggedPair) =>
    f.arbitration ? ARBITRATIONS.indexOf(f.arbitration.why) : ARBITRATIONS.length;
  flagged.sort((x, y) => rank(x) - rank(y) || compareCodeUnits(x.pair.qid, y.pair.qid));

  const n = pairs.length;
  return {
    metrics: {
      agreement: proportion(agreed, n, NO_PAIRS),
      kappa: n === 0 ? notComputable(NO_PAIRS) : cohensKappa(confusion),
      abstain_rate: proportion(abstained, n, NO_PAIRS),
      disagreements: n === 0 ? notComputable(NO_PAIRS) : count(n - agreed),
    },
    confusion,
    flagged,
  };
}
