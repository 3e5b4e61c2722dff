import path from 'node:path';
import type { Candidate, Role } from './detect.js';
import type { FieldProposal } from './field-proposal.js';
import { proposeRefusal, type RefusalProposal } from './refusal-proposal.js';
import { proposeSpans, tracesMeeting, type SpanProposal } from './span-proposal.js';
import type { RefusalSettings } from '../grounded-answer/refusal.js';
import type { ClaimsProposal } from './shapes/tool-shape.js';
import { sampledUsage, USAGE_MEMBERS, type SampledUsage } from './token-gates.js';
import { proposeFields } from './field-proposal.js';
import { CompiledFieldMap } from '../io/field-map.js';
import { traceShape } from '../grounded-answer/contract.js';
import type { UsageNoun } from '../cost/usage-metrics.js';

/** A suite `init` will write: its kind, its inputs (paths relative to the repository) and why. */
export interface Proposal {
  name: string;
  kind: string;
  inputs: Record<string, string>;
  /** Settings beyond the inputs (scu: true), written after them. */
  settings?: Record<string, string | number | boolean>;
  why: string[];
  /** `fields:` mappings proposed for inputs near the contract, by input key. */
  fields?: Record<string, FieldProposal>;
  /** `refusal:` phrases proposed from the traces' wording. */
  refusal?: RefusalProposal;
  /** `claims:` proposed for a gold set whose facts are whole reference answers. */
  claims?: ClaimsProposal;
  /** `format: openinference` and how its spans are read, for traces that are spans. */
  openinference?: SpanProposal;
  /** Keys of the suite block kept from an existing gates.yaml (fields:, refusal:, format…), already YAML. */
  kept?: string[];
  /** What the sampled traces count of their tokens, for the token gate and the pricing: example (token-gates.ts). */
  usage?: SampledUsage;
}

/** Candidates that cannot become a suite on their own, with the flags that would settle them. */
export interface Plan {
  proposals: Proposal[];
  /** Several ways to read the data: init stops and lists them (exit 2). */
  ambiguous: string[];
  /** Found but not written (a kind that needs more than files, inputs without a partner). */
  notes: string[];
}

/**
 * The headline metrics each kind gets a gate for (families at the kind's default cutoff), those of them that
 * also get a max_drop against the base branch, and the token counts that get a max_increase when measured
 * (each a mean per `per`).
 */
export const HEADLINE: Record<
  string,
  { gates: string[]; maxDrop: string[]; maxIncrease?: string[]; per?: UsageNoun }
> = {
  'grounded-qa': {
    gates: ['precision', 'chr', 'under_refusal', 'over_refusal', 'recall@{k}', 'scu_violations', 'coverage'],
    maxDrop: ['precision', 'recall@{k}'],
    maxIncrease: ['tokens_in'],
    per: 'answer',
  },
  stability: { gates: ['stable_rate', 'coverage'], maxDrop: ['stable_rate'] },
  ranking: { gates: ['ndcg@{k}', 'recall@{k}', 'mrr'], maxDrop: ['ndcg@{k}'] },
  latency: { gates: ['p95_ms', 'p99_ms'], maxDrop: [], maxIncrease: ['tokens_in'], per: 'request' },
  consistency: { gates: ['agreement', 'kappa', 'abstain_rate'], maxDrop: ['agreement'] },
  'agent-retrieval': { gates: ['file_recall', 'mrr', 'ndcg@{k}'], maxDrop: ['file_recall'] },
  // Without repos: only file and line metrics are computable; span and EditLoc need the checkouts.
  context: {
    gates: ['file.coverage', 'file.precision', 'line.f1', 'span.coverage', 'editloc.precision'],
    maxDrop: ['line.f1'],
  },
};

/** A suite's name in gates.yaml, from its kind. */
export const NAMES: Record<string, string> = {
  'grounded-qa': 'qa',
  stability: 'stability',
  ranking: 'retrieval',
  latency: 'latency',
  consistency: 'consistency',
  'agent-retrieval': 'agent-retrieval',
  context: 'context',
};

/** Pairs gold sets with the traces that answer their items (shared ids), and lone inputs with their kind. */
export function plan(candidates: readonly Candidate[], root: string): Plan {
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const of = (role: Role) => candidates.filter((c) => c.role === role);
  const out: Plan = { proposals: [], ambiguous: [], notes: [] };
  const used = new Set<string>();
  const propose = (
    kind: string,
    inputs: Record<string, string>,
    why: string[],
    settings?: Proposal['settings'],
    extra?: Pick<Proposal, 'fields' | 'refusal' | 'claims' | 'openinference' | 'usage'>,
  ) => {
    let name = NAMES[kind]!;
    for (let i = 2; out.proposals.some((p) => p.name === name); i++) name = `${NAMES[kind]}-${i}`;
    out.proposals.push({ name, kind, inputs, why, ...(settings ? { settings } : {}), ...extra });
  };
  // Ids of whole files (tens of thousands of qids): each file's set made once.
  const sets = new Map<Candidate, Set<string>>();
  const shares = (a: Candidate, b: Candidate) => {
    // Spans name their questions where the gold set's ids meet them (see span-proposal.ts).
    if (b.spans) return tracesMeeting(a.records ?? [], b.spans) > 0;
    let ids = sets.get(a);
    if (!ids) sets.set(a, (ids = new Set(a.ids)));
    return b.ids.some((id) => ids.has(id));
  };
  const describe = (c: Candidate) => `${rel(c.file)} (${c.what}: ${c.why})`;

  // A gold set with the files that answer it: traces make grounded-qa, repeated runs make stability.
  const golds = of('qa-gold');
  for (const [role, kind, key] of [
    ['qa-traces', 'grounded-qa', 'traces'],
    ['stability-runs', 'stability', 'runs'],
  ] as const) {
    // Spans are grounded-answer traces: no stability runs.
    const answers = of(role).filter((a) => kind === 'grounded-qa' || !a.spans);
    for (const gold of golds) {
      // Shared item ids only: traces of other questions would give vacuous gates (coverage >= 0).
      const mine = answers.filter((a) => shares(gold, a));
      if (mine.length === 1) {
        // Locked constraints in the gold: the seed's symbolic constraint checks (SCU) apply.
        const scu = kind === 'grounded-qa' && gold.constraints ? { scu: true } : undefined;
        propose(
          kind,
          { gold: rel(gold.file), [key]: rel(mine[0]!.file) },
          [describe(gold), describe(mine[0]!)],
          scu,
          nearMisses(gold, mine[0]!, key, kind === 'grounded-qa', {}),
        );
        used.add(gold.file).add(mine[0]!.file);
      } else if (mine.length > 1) {
        out.ambiguous.push(
          `${rel(gold.file)} is answered by ${mine.length} ${key} files (${mine.map((m) => rel(m.file)).join(', ')}): pick one with --suite ${kind} ${flag('gold', rel(gold.file))} ${flag(key, rel(mine[0]!.file))}`,
        );
        used.add(gold.file);
        for (const m of mine) used.add(m.file);
      }
    }
  }
  for (const c of of('qa-traces').concat(of('stability-runs')))
    if (!used.has(c.file)) out.notes.push(`${describe(c)}: no gold set shares its qids`);
  for (const g of golds)
    if (!used.has(g.file)) out.notes.push(`${describe(g)}: no traces or runs share its qids`);

  // Qrels with the run(s) over their queries.
  const runs = of('run');
  for (const qrels of of('qrels')) {
    const mine = runs.filter((r) => shares(qrels, r));
    if (mine.length === 1) {
      propose(
        'ranking',
        { qrels: rel(qrels.file), run: rel(mine[0]!.file) },
        [describe(qrels), describe(mine[0]!)],
        qrels.settings,
      );
    } else if (mine.length > 1) {
      out.ambiguous.push(
        `${rel(qrels.file)} has ${mine.length} runs over its queries (${mine.map((m) => rel(m.file)).join(', ')}): pick one with --suite ranking ${flag('qrels', rel(qrels.file))} ${flag('run', rel(mine[0]!.file))}`,
      );
    } else out.notes.push(`${describe(qrels)}: no run shares its qids`);
  }

  for (const [role, kind, key] of [
    ['latency-csv', 'latency', 'csv'],
    ['latency-traces', 'latency', 'traces'],
    ['pairs', 'consistency', 'pairs'],
  ] as const) {
    const found = of(role);
    const fields = found[0]?.fields;
    if (found.length === 1)
      propose(kind, { [key]: rel(found[0]!.file) }, [describe(found[0]!)], undefined, {
        ...(fields ? { fields: { [key]: fields } } : {}),
        ...(role === 'latency-traces' && found[0]!.records ? { usage: sampledUsage(found[0]!.records) } : {}),
      });
    else if (found.length > 1)
      out.ambiguous.push(
        `${found.length} files fit ${kind} (${found.map((f) => rel(f.file)).join(', ')}): pick one with --suite ${kind} ${flag(key, rel(found[0]!.file))}`,
      );
  }

  // Event documents: one glob over the folder they share.
  const events = of('events');
  if (events.length) {
    const dirs = events.map((e) => path.dirname(rel(e.file)).split('/'));
    const common: string[] = [];
    for (let i = 0; dirs.every((d) => d[i] !== undefined && d[i] === dirs[0]![i]); i++)
      common.push(dirs[0]![i]!);
    // The glob must match these documents only: `**/*.json` would also read package.json and fail.
    const named = events.every((e) => e.file.endsWith('.retrieval_events.json'));
    const glob = [...common.filter((c) => c !== '.'), '**', '*.retrieval_events.json'].join('/');
    if (!named) {
      out.notes.push(
        `${events.length} ${events[0]!.what} (${events.map((e) => rel(e.file)).join(', ')}) are not named *.retrieval_events.json, so no glob picks them alone; use --suite agent-retrieval --input events=GLOB`,
      );
    } else
      propose('agent-retrieval', { events: glob }, [
        `${events.length} ${events[0]!.what}, e.g. ${describe(events[0]!)}`,
      ]);
  }

  // ContextBench gold rows with the predictions for their instances.
  const predictions = of('context-predictions');
  for (const gold of of('context-gold')) {
    const mine = predictions.filter((p) => shares(gold, p));
    if (mine.length === 1)
      propose('context', { gold: rel(gold.file), predictions: rel(mine[0]!.file) }, [
        describe(gold),
        describe(mine[0]!),
        'no repos: file and line metrics only; add repos: (one checkout per instance) for spans, symbols and EditLoc',
      ]);
    else if (mine.length > 1)
      out.ambiguous.push(
        `${rel(gold.file)} has ${mine.length} prediction files (${mine.map((m) => rel(m.file)).join(', ')}): pick one with --suite context ${flag('gold', rel(gold.file))} ${flag('predictions', rel(mine[0]!.file))}`,
      );
    else out.notes.push(`${describe(gold)}: no predictions share its instance ids`);
  }
  return out;
}

/** The mappings proposed for a gold set and its traces, and the refusal wording its traces show. */
export function nearMisses(
  gold: Candidate,
  answers: Candidate,
  key: string,
  qa: boolean,
  rule: { token?: string; refusal?: RefusalSettings },
): Pick<Proposal, 'fields' | 'refusal' | 'claims' | 'openinference' | 'usage'> {
  const fields: Record<string, FieldProposal> = {};
  if (gold.fields) fields.gold = gold.fields;
  if (answers.fields) fields[key] = answers.fields;
  // A tool's ids may sit in more than one place (a node's own id, its metadata): the one the gold ids meet.
  if (answers.meet) fields[key] = answers.meet(goldIdsOf(gold));
  const spans = answers.spans && proposeSpans(gold.records ?? [], answers.spans);
  const usage = qa && !answers.fields && !spans ? usageFields(answers.records ?? []) : undefined;
  if (usage) fields[key] = usage.fields;
  const traces = spans ? spans.records : (usage?.records ?? answers.records);
  type Trace = Parameters<typeof proposeRefusal>[0][number];
  const unanswerable = new Set(
    (gold.records ?? []).flatMap((g) => {
      const r = g as { qid?: unknown; answerable?: unknown };
      return r.answerable === false && typeof r.qid === 'string' ? [r.qid] : [];
    }),
  );
  const refusal = qa
    ? proposeRefusal((traces ?? []) as Trace[], unanswerable, rule.token ?? 'not in context', rule.refusal)
    : undefined;
  return {
    ...(Object.keys(fields).length ? { fields } : {}),
    ...(refusal ? { refusal } : {}),
    ...(qa && gold.claims ? { claims: { ...gold.claims } } : {}),
    ...(spans ? { openinference: spans.proposal } : {}),
    ...(qa
      ? {
          usage: sampledUsage(
            traces ?? [],
            answers.spans?.map((t) => t.spans),
          ),
        }
      : {}),
  };
}

/**
 * For traces in the contract's shape that count no tokens under its names but under the names `fields:`
 * tries (OpenAI's `usage.prompt_tokens`, …): the mapping of those alone, and the records read through it.
 */
function usageFields(records: readonly unknown[]): { fields: FieldProposal; records: unknown[] } | undefined {
  const own = (r: unknown) => {
    const { tokens_in: i, tokens_out: o } = r as { tokens_in?: unknown; tokens_out?: unknown };
    return i !== undefined || o !== undefined;
  };
  if (!records.length || records.some(own)) return undefined;
  const lines = proposeFields(records, 'traces').lines.filter(
    (l) => USAGE_MEMBERS.has(l.canonical) && !l.unsure,
  );
  if (!lines.some((l) => l.canonical === '/tokens_in' || l.canonical === '/tokens_out')) return undefined;
  const map = new CompiledFieldMap(Object.fromEntries(lines.map((l) => [l.canonical, l.source])), traceShape);
  return {
    fields: { input: 'traces', lines, missing: [], partial: {} },
    records: records.map((r) => map.apply(r)),
  };
}

/** The ids the sampled gold items cite. */
export function goldIdsOf(gold: Candidate): Set<string> {
  return new Set(
    (gold.records ?? []).flatMap((g) => {
      const cited = (g as { gold_citations?: unknown }).gold_citations;
      return Array.isArray(cited) ? cited.filter((c): c is string => typeof c === 'string') : [];
    }),
  );
}

/** The init flag that sets an input: --gold and --traces have their own, the rest go through --input. */
export function flag(key: string, value: string): string {
  return key === 'gold' || key === 'traces' ? `--${key} ${value}` : `--input ${key}=${value}`;
}
