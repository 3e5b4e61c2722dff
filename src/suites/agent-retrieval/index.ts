import { existsSync, statSync } from 'node:fs';
import { InputError } from '../../errors.js';
import type { ScoreContext, SuiteKind } from '../types.js';
import { agentRetrievalSplit } from './split.js';
import { loadRegistry } from './ground-truth/registry.js';
import { loadDocuments } from './load.js';
import { metrics } from './metrics.js';
import { normalizeRun } from './normalize/run.js';
import { loadOutcomes } from './outcomes.js';
import { configSchema, eventsAlone, type AgentRetrievalConfig } from './config.js';
import { agentResult, type Loaded } from './result.js';

export const agentRetrieval: SuiteKind<AgentRetrievalConfig> = {
  kind: 'agent-retrieval',
  description:
    'Agent retrieval (CodeScaleBench): file-level IR metrics, chunk recall, utilization probes, error taxonomy of agent traces',
  configSchema,
  inputKeys: ['events', 'outcomes', 'registry'],
  metrics,
  offenderColumns: ['file_recall', 'missed', 'irrelevant', 'trace_source'],
  defaultCutoffs: (config) => [...config.k].sort((a, b) => a - b),

  async score(config, ctx) {
    const warnings: string[] = [];
    const { loaded, outcomesGiven } = await load(config, ctx, warnings);
    return agentResult(config, ctx, loaded, outcomesGiven, warnings);
  },
  split: agentRetrievalSplit,
};

async function load(
  config: AgentRetrievalConfig,
  ctx: ScoreContext,
  warnings: string[],
): Promise<{ loaded: Loaded[]; outcomesGiven: boolean }> {
  const { events, outcomes, registry } = ctx.inputs;
  if (events) {
    eventsAlone(config, ctx);
    const byTrial = outcomes ? loadOutcomes(outcomes) : undefined;
    return {
      loaded: loadDocuments(events).map(({ doc, file }) => {
        const outcome = doc.provenance.trial_name ? byTrial?.get(doc.provenance.trial_name) : undefined;
        return { doc, file, ...(outcome ? { outcome } : {}) };
      }),
      outcomesGiven: byTrial !== undefined,
    };
  }
  if (outcomes) {
    throw new InputError(
      { file: outcomes[0]! },
      `suite "${ctx.suite}": outcomes come from the run's own result.json files with runs:; expected no outcomes:`,
    );
  }
  // Normalizing walks these folders and reads what it finds: no link in them may lead out of the workspace.
  const folder = (key: 'runs' | 'tasks') => {
    const dir = ctx.resolvePath(key, { tree: true });
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new InputError({ file: dir }, `suite "${ctx.suite}": ${key}: folder not found`);
    }
    return dir;
  };
  const run = await normalizeRun(folder('runs'), {
    ...(config.tasks ? { tasksDir: folder('tasks') } : {}),
    ...(registry ? { registry: loadRegistry(registry[0]!) } : {}),
    // Never written: the documents live in memory only.
    generatedAt: '1970-01-01T00:00:00Z',
  });
  warnings.push(...run.warnings);
  return {
    loaded: run.tasks.map((t) => ({ doc: t.doc, trial: t.trialDir, outcome: t.outcome })),
    outcomesGiven: true,
  };
}
