import { recordWord } from '../../errors.js';
import { z } from 'zod';
import { gatesSchema } from '../../config/gate.js';
import type { MetricSpec } from '../../metrics/spec.js';
import { itemVerdicts, type Offender, type SuiteKind } from '../types.js';
import type { LineRef } from '../../io/jsonl.js';
import { compileFieldMap, type FieldMap } from '../../io/field-map.js';
import { isParquet } from '../../io/records.js';
import { recordsAt } from '../../io/records.js';
import type { GoldDigest } from '../../gold/digest.js';
import {
  asTraceLine,
  goldShape,
  traceShape,
  type GoldItem,
  type TraceLine,
} from '../../grounded-answer/contract.js';
import type { Label } from '../../grounded-answer/labels.js';
import { loadGold, startJudging, startRecordJudging, type RunsLoad } from '../../grounded-answer/load.js';
import { readsRecords, traceInput } from '../../grounded-answer/source.js';
import type { ScoreOptions } from '../../grounded-answer/score.js';
import {
  answerSettings,
  checkInputSettings,
  fieldsSchema,
  inputSettings,
  scuRules,
} from '../../grounded-answer/config.js';
import { compileRules } from '../../grounded-answer/scu.js';
import { aggregate, offendingItems } from '../../grounded-answer/score.js';
import { stageOf, triage } from '../../grounded-answer/triage.js';

export const metrics: readonly MetricSpec[] = [
  {
    name: 'precision',
    direction: 'higher',
    unit: 'ratio',
    description: 'Shipped answers that are contained, cited and constraint-safe, over all shipped answers',
  },
  {
    name: 'chr',
    direction: 'higher',
    unit: 'ratio',
    description: 'Citation hit rate: shipped answers citing a gold id, all citations retrieved',
  },
  {
    name: 'under_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Unanswerable gold items that were answered, over all unanswerable items',
  },
  {
    name: 'over_refusal',
    direction: 'lower',
    unit: 'ratio',
    description: 'Answerable gold items that were refused, over all answerable items',
  },
  {
    name: 'recall@{k}',
    direction: 'higher',
    unit: 'ratio',
    description: 'Answerable items whose gold citations are all in the top k retrieved ids',
  },
  {
    name: 'chr@{k}_upper_bound',
    direction: 'higher',
    unit: 'ratio',
    description:
      'Shipped answers with a gold id among the top k retrieved: the best CHR the retriever allows',
  },
  {
    name: 'scu_violations',
    direction: 'lower',
    unit: 'count',
    description: 'Shipped answers with constraints that miss the echo or contradict a lock (scu: true)',
  },
  {
    name: 'constraint_integrity',
    direction: 'higher',
    unit: 'ratio',
    description: '1 − scu_violations / shipped answers with constraints',
  },
  {
    name: 'coverage',
    direction: 'higher',
    unit: 'ratio',
    description: 'Gold items with a trace, over all gold items',
  },
];

export const configSchema = z
  .strictObject({
    kind: z.literal('grounded-qa'),
    gold: z.string().min(1),
    traces: z.string().min(1),
    lock: z.string().min(1).optional(),
    refusal_token: answerSettings.refusal_token,
    k: z.int().min(1).max(100_000).default(5),
    scu: answerSettings.scu,
    format: inputSettings.format,
    openinference: inputSettings.openinference,
    fields: fieldsSchema({ gold: goldShape, traces: traceShape }),
    gates: gatesSchema.default({}),
  })
  .superRefine(checkInputSettings);
export type GroundedQaConfig = z.infer<typeof configSchema>;

export const groundedQa: SuiteKind<GroundedQaConfig> = {
  kind: 'grounded-qa',
  description: 'Grounded Q&A: precision, citation hit rate, refusal rates, constraint integrity, Recall@k',
  configSchema,
  inputKeys: ['gold', 'traces'],
  goldKey: 'gold',
  objectHeap: true,
  metrics,
  offenderColumns: ['question', 'claim', 'citations', 'retrieved_ids', 'gold_citations'],
  defaultCutoffs: (config) => [config.k],

  async score(config, ctx) {
    const rules = scuRules(config.scu);
    const cutoffs = [
      ...new Set([config.k, ...ctx.metrics.flatMap((m) => (m.k === undefined ? [] : [m.k]))]),
    ].sort((a, b) => a - b);
    const traces = traceInput({ ...config, fields: config.fields?.traces });
    const options = {
      refusalToken: config.refusal_token,
      scuRules: rules ? compileRules(rules) : null,
      cutoffs,
      traces,
    };
    const goldFields = config.fields?.gold;
    const { gold, loaded, digest } = readsRecords(ctx.inputs.traces!, traces)
      ? await judgeInMemory(ctx.inputs.gold!, ctx.inputs.traces!, options, goldFields)
      : await judgeLines(ctx.inputs.gold!, ctx.inputs.traces!, options, goldFields);
    const { metrics, counts } = aggregate(gold, loaded.table, options);

    const warnings: string[] = [];
    if (loaded.unknown.size > 0) {
      const ids = [...loaded.unknown.keys()].sort();
      const lines = [...loaded.unknown.values()].reduce((a, b) => a + b, 0);
      const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
      warnings.push(
        `${ids.length} trace qid${ids.length === 1 ? '' : 's'} not in gold (${lines} line${lines === 1 ? '' : 's'}) not scored: ${shown}`,
      );
    }
    if (counts.missing > 0) warnings.push(`${counts.missing} of ${counts.gold} gold items have no trace`);

    // Only failing items get their labels spelled out: a passing item needs just a yes in `items`.
    const failing = gold.flatMap((g, row) =>
      loaded.passed(row)
        ? []
        : [{ gold: g, row, labels: loaded.labels(row) ?? (['missing_trace'] as Label[]) }],
    );
    const byId = new Map(failing.map((v) => [v.gold.qid, v]));
    return {
      metrics,
      counts: {
        ...counts,
        trace_lines: loaded.lines,
        superseded_runs: loaded.superseded,
        unknown_qids: loaded.unknown.size,
      },
      offenders: offendingItems(failing).map((v) => {
        const { file, line } = v.gold.source;
        const stage = loaded.table.present[v.row]
          ? stageOf(loaded.table.flags[v.row]!, v.gold.answerable)
          : undefined;
        return {
          id: v.gold.qid,
          labels: v.labels,
          ...(stage ? { stage } : {}),
          source: { file: ctx.relative(file), line },
        };
      }),
      // Only the offenders a report shows are read again from disk, so memory does not grow with failures.
      describe: async (ids) => {
        const shown = ids.flatMap((id) => byId.get(id) ?? []);
        const inMemory = loaded.record !== undefined;
        const refs = shown.map((v) => loaded.ref(v.row));
        // Records are keyed by the reference objects asked for: take each gold item's once.
        const sources = shown.map((v) => v.gold.source);
        const again = inMemory ? [] : refs.filter((r): r is LineRef => r !== undefined);
        const records = await recordsAt([...sources, ...again]);
        const goldMap = compileFieldMap(goldFields);
        const traceMap = compileFieldMap(traces.fields);
        const out = new Map<string, NonNullable<Offender['fields']>>();
        shown.forEach((v, i) => {
          const record = records.get(sources[i]!);
          const question = (goldMap ? goldMap.apply(record) : record) as { question?: unknown };
          const ref = refs[i];
          const t = loaded.record
            ? loaded.record(v.row)
            : ref
              ? asTraceLine(traceMap ? traceMap.apply(records.get(ref)) : records.get(ref))
              : undefined;
          out.set(
            v.gold.qid,
            describeItem(v.gold, question.question, t, loaded, v.row, v.labels, ctx.relative),
          );
        });
        return out;
      },
      warnings,
      items: itemVerdicts(
        gold,
        (g) => g.qid,
        (_, row) => loaded.passed(row),
      ),
      goldDigest: digest,
      triage: triage(gold, loaded.table),
    };
  },
};

interface Judged {
  gold: GoldItem[];
  loaded: RunsLoad;
  digest: GoldDigest;
}

/**
 * Traces read as lines: on a large input, workers start reading them while this thread loads and checks
 * gold, and one of them digests gold (when it is JSON Lines) while this thread judges.
 */
async function judgeLines(
  goldFiles: readonly string[],
  traceFiles: readonly string[],
  options: ScoreOptions,
  fields: FieldMap | undefined,
): Promise<Judged> {
  const judging = startJudging(traceFiles, options, goldFiles.some(isParquet) ? [] : goldFiles);
  const digestsGold = await judging.digestsGold;
  const { items: gold, digest: ownDigest } = await loadGold(goldFiles, {
    digest: !digestsGold,
    fields,
  }).catch(async (err: unknown) => {
    await judging.cancel();
    throw err;
  });
  const loaded = await judging.finish(gold);
  return { gold, loaded, digest: ownDigest ?? (await judging.goldDigest(gold)) };
}

/**
 * Traces read as records (Parquet rows, OpenInference traces): threads start reading them while this thread
 * loads gold (see startRecordJudging), which the runs are then matched to.
 */
async function judgeInMemory(
  goldFiles: readonly string[],
  traceFiles: readonly string[],
  options: ScoreOptions,
  fields: FieldMap | undefined,
): Promise<Judged> {
  const byQuestion = options.traces?.format === 'openinference' && options.traces.qid === 'input.value';
  const judging = startRecordJudging(traceFiles, options);
  const {
    items: gold,
    digest,
    questions,
  } = await loadGold(goldFiles, {
    fields,
    questions: byQuestion,
  }).catch(async (err: unknown) => {
    await judging.cancel();
    throw err;
  });
  const loaded = await judging.finish(gold, questions);
  return { gold, loaded, digest: digest! };
}

function describeItem(
  gold: GoldItem,
  question: unknown,
  t: TraceLine | undefined,
  loaded: RunsLoad,
  row: number,
  labels: readonly Label[],
  relative: (file: string) => string,
): NonNullable<Offender['fields']> {
  const ref = loaded.ref(row);
  const fields: NonNullable<Offender['fields']> = {
    question: typeof question === 'string' ? question : null,
    claim: t ? t.answer_json.claim : null,
    citations: t ? t.answer_json.citations : null,
    retrieved_ids: t ? t.retrieved_ids : null,
    gold_citations: gold.citations,
  };
  if (labels.includes('claim_miss')) fields.gold_claim_substr = gold.claimSubstrings;
  if (labels.includes('scu_violation')) {
    fields.constraints = gold.constraints;
    fields.constraints_echo = t?.answer_json.constraints_echo ?? null;
    const broken = loaded.table.rule[row]!;
    if (ref && broken >= 0) fields.contradiction = loaded.rules[broken]!.contradiction;
  }
  if (ref)
    fields.trace =
      recordWord(ref.file) === 'row'
        ? `${relative(ref.file)} row ${ref.line}`
        : `${relative(ref.file)}:${ref.line}`;
  return fields;
}
