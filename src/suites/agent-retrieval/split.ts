import { z } from 'zod';
import { InputError } from '../../errors.js';
import type { MergePart, SuiteSplit } from '../types.js';
import { loadDocuments, parseDocumentJson } from './load.js';
import { outcomeFile, outcomesOf, type OutcomeFile } from './outcomes.js';
import { eventsAlone, type AgentRetrievalConfig } from './config.js';
import { agentResult, type Loaded } from './result.js';

/**
 * agent-retrieval over shards of its event documents (and result.json files): a task's document is scored
 * alone, but its comparison, offenders and artifacts read the document whole, so a shard keeps each
 * validated document and what each result file says. A merge validates the documents again, looks up each
 * one's outcome among every shard's result files (a trial's result may sit in another shard), and makes the
 * result with the function a run makes it with. Documents read from a `runs:` folder cannot be split.
 */
const outcomeSchema = z.strictObject({
  reward: z.number().nullable(),
  cost_usd: z.number().nullable(),
  wall_seconds: z.number().nullable(),
  tokens: z.number().nullable(),
  model: z.string().nullable(),
  harness: z.string().nullable(),
});
const at = z.int().min(0);
const sectionSchema = z.strictObject({
  documents: z.array(z.strictObject({ at, doc: z.unknown() })),
  outcomes: z.array(
    z.union([
      z.strictObject({ at, trial: z.string(), outcome: outcomeSchema }),
      z.strictObject({ at, jobs: z.array(z.tuple([z.string(), z.number()])) }),
    ]),
  ),
});
type Section = z.infer<typeof sectionSchema>;

export const agentRetrievalSplit: SuiteSplit<AgentRetrievalConfig> = {
  shardKeys: ['events', 'outcomes'],

  async partial(config, ctx) {
    const { events, outcomes } = ctx.inputs;
    if (!events)
      throw new InputError(
        { file: ctx.baseDir },
        `suite "${ctx.suite}": runs: (a run folder normalized in memory) cannot be split into partials; expected events: (retrieval-event documents) with --partial`,
      );
    eventsAlone(config, ctx);
    const section: Section = {
      documents: loadDocuments(events).map(({ doc }, i) => ({ at: i, doc })),
      outcomes: (outcomes ?? []).map((file, i) => ({ at: i, ...outcomeFile(file) })),
    };
    return { state: {}, sections: { read: Buffer.from(JSON.stringify(section), 'utf8') } };
  },

  async merge(config, parts, ctx) {
    const events = ctx.inputs.events ?? [];
    const documents: { at: number; loaded: Loaded }[] = [];
    const files: { at: number; file: OutcomeFile }[] = [];
    for (const part of parts) {
      const section = sectionOf(part, ctx.suite);
      for (const d of section.documents) {
        const f = part.fileAt('events', d.at);
        const doc = parseDocumentJson({ file: part.partial.file, text: '', value: d.doc });
        documents.push({ at: f, loaded: { doc, file: events[f]! } });
      }
      for (const o of section.outcomes) {
        const { at: i, ...file } = o;
        files.push({ at: part.fileAt('outcomes', i), file });
      }
    }
    documents.sort((a, b) => a.at - b.at);
    files.sort((a, b) => a.at - b.at);
    const byTrial = ctx.inputs.outcomes ? outcomesOf(files.map((f) => f.file)) : undefined;
    const loaded = documents.map(({ loaded: l }) => {
      const trial = l.doc.provenance.trial_name;
      const outcome = trial ? byTrial?.get(trial) : undefined;
      return { ...l, ...(outcome ? { outcome } : {}) };
    });
    return { result: agentResult(config, ctx, loaded, byTrial !== undefined, []) };
  },
};

function sectionOf(part: MergePart, suite: string): Section {
  return part.partial.json(
    suite,
    'read',
    sectionSchema,
    'the documents and result files an agent-retrieval shard read',
  );
}
