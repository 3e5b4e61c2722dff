import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../io/confine.js';
import { addInterval, mergeByFile, type Interval } from '../../metrics/intervals.js';
import { lineRangeToBytes, lineStarts } from './bytes.js';
import type { InstanceError, StepJson } from './contract.js';
import { deletedLines } from './diff.js';
import type { GoldInstance } from './gold.js';
import { cleanPath, normalizeGoldPath } from './paths.js';
import type { PredictionRecord } from './predictions.js';
import { scoreInstance, symbolKey, type ContextView, type InstanceScore } from './score.js';
import {
  definitionsInSpans,
  definitionsNamed,
  extractDefinitions,
  languageOf,
  UNSUPPORTED_EXTENSIONS,
  type Definition,
} from './symbols.js';
import type { Language } from './tree-sitter.js';
import { DirectoryWorkspace, GitWorkspace, resolvePredictedPath, type Workspace } from './workspace.js';

export const LAYOUTS = ['per-instance', 'shared', 'git'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface EvaluateOptions {
  /** Where file contents come from; without it only the file and line levels are computable. */
  repos?: { dir: string; layout: Layout };
  /** Score the gold patch's EditLoc when a prediction has no patch, as the evaluator does. */
  patchFallback: boolean;
}

export interface InstanceOutcome {
  id: string;
  prediction: PredictionRecord;
  gold?: GoldInstance;
  error?: InstanceError;
  score?: InstanceScore;
  steps: number;
}

export interface Evaluation {
  outcomes: InstanceOutcome[];
  /** Files in a language the evaluator parses and groundgate has no grammar for (no symbols from them). */
  unsupported: Set<string>;
}

/** Scores every prediction against its gold row, in prediction order. */
export async function evaluate(
  gold: readonly GoldInstance[],
  predictions: readonly PredictionRecord[],
  options: EvaluateOptions,
): Promise<Evaluation> {
  const byId = new Map<string, GoldInstance>();
  for (const g of gold) for (const id of g.ids) byId.set(id, g);
  const shared: Shared = { unsupported: new Set(), definitions: new DefinitionCache() };
  const outcomes: InstanceOutcome[] = [];
  for (const prediction of predictions) {
    const g = byId.get(prediction.id);
    outcomes.push(await evaluateOne(prediction, g, options, shared));
  }
  return { outcomes, unsupported: shared.unsupported };
}

/** What instances share: the warnings' file list, parsed definitions and the `shared` layout's checkout. */
interface Shared {
  unsupported: Set<string>;
  definitions: DefinitionCache;
  checkout?: DirectoryWorkspace;
}

/**
 * Definitions by language and file content: a file is parsed once however many instances (or checkouts of
 * nearby commits) hold the same bytes. The least recently used entries go beyond `capacity` files.
 */
class DefinitionCache {
  private readonly entries = new Map<string, Promise<Definition[]>>();

  constructor(private readonly capacity = 20_000) {}

  get(bytes: Uint8Array, language: Language): Promise<Definition[]> {
    const key = `${language}:${createHash('sha1').update(bytes).digest('base64')}`;
    let definitions = this.entries.get(key);
    if (definitions) {
      this.entries.delete(key);
    } else {
      definitions = extractDefinitions(bytes, language);
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, definitions);
    return definitions;
  }
}

async function evaluateOne(
  prediction: PredictionRecord,
  gold: GoldInstance | undefined,
  options: EvaluateOptions,
  shared: Shared,
): Promise<InstanceOutcome> {
  const outcome: InstanceOutcome = { id: prediction.id, prediction, gold, steps: 0 };
  if (!gold) return { ...outcome, error: 'missing_gold' };
  let files: InstanceFiles | undefined;
  if (options.repos) {
    const workspace = openWorkspace(options.repos, prediction, gold, shared);
    if (!workspace) return { ...outcome, error: 'checkout_failed' };
    files = new InstanceFiles(workspace, shared);
  }
  const resolve = files
    ? (p: string) => resolvePredictedPath(files.workspace, p)
    : (p: string) => normalizeGoldPath(cleanPath(p)) || undefined;

  const traj = prediction.traj;
  const final = resolveStep(
    { files: traj.pred_files, spans: traj.pred_spans, symbols: traj.pred_symbols },
    resolve,
  );
  if (final.files.length === 0 && final.spans.length === 0)
    return { ...outcome, error: 'no_context_extracted' };
  const steps = traj.pred_steps.length > 0 ? traj.pred_steps.map((s) => resolveStep(s, resolve)) : [final];

  const patch = prediction.patch || (options.patchFallback ? gold.patch : '');
  const score = scoreInstance({
    gold: await goldView(gold, files),
    final: await viewOf(final, files),
    steps: await Promise.all(steps.map((s) => viewOf(s, files))),
    deleted: patch ? deletedLines(patch) : undefined,
  });
  return { ...outcome, score, steps: steps.length };
}

/** The instance's files: its own checkout, the shared one, or its commit of a git repository. */
function openWorkspace(
  repos: NonNullable<EvaluateOptions['repos']>,
  prediction: PredictionRecord,
  gold: GoldInstance,
  shared: Shared,
): Workspace | undefined {
  switch (repos.layout) {
    case 'shared':
      // One checkout for every instance: the paths it has resolved stay resolved.
      return (shared.checkout ??= new DirectoryWorkspace(repos.dir));
    case 'git': {
      const commit = prediction.commit ?? gold.commit;
      return commit ? GitWorkspace.open(repos.dir, commit) : undefined;
    }
    case 'per-instance': {
      for (const id of [prediction.id, ...gold.ids]) {
        // Ids come from the data: one must name a folder of repos, not repos itself, its parent or a link out.
        const dir = path.join(repos.dir, id);
        if (id === '' || id === '.' || id === '..' || id.includes('/') || id.includes('\\')) continue;
        if (
          existsSync(dir) &&
          statSync(dir).isDirectory() &&
          isInside(realpathSync(repos.dir), realpathSync(dir))
        )
          return new DirectoryWorkspace(dir);
      }
      return undefined;
    }
  }
}

interface ResolvedSpan {
  file: string;
  start: number;
  end: number;
}

interface ResolvedStep {
  files: string[];
  spans: ResolvedSpan[];
  symbols: Map<string, string[]>;
}

/** A step with its paths mapped to repository files; what maps to none is dropped, as the evaluator does. */
function resolveStep(step: StepJson, resolve: (p: string) => string | undefined): ResolvedStep {
  const files = [...new Set(step.files.map(resolve).filter((f): f is string => f !== undefined))].sort();
  const spans: ResolvedSpan[] = [];
  for (const [file, list] of Object.entries(step.spans)) {
    const rel = resolve(file);
    if (rel !== undefined) for (const s of list) spans.push({ file: rel, start: s.start, end: s.end });
  }
  const symbols = new Map<string, string[]>();
  for (const [file, names] of Object.entries(step.symbols ?? {})) {
    const rel = names.length > 0 ? resolve(file) : undefined;
    if (rel !== undefined) symbols.set(rel, [...(symbols.get(rel) ?? []), ...names]);
  }
  return { files, spans, symbols };
}

/** The gold: files and bytes of init + add regions, lines of init regions, definitions the bytes touch. */
async function goldView(gold: GoldInstance, files: InstanceFiles | undefined): Promise<ContextView> {
  const regions = [...gold.init, ...gold.add];
  const lines = new Map<string, Interval[]>();
  for (const r of gold.init) addInterval(lines, r.file, [r.start, r.end]);
  const view: ContextView = { files: new Set(regions.map((r) => r.file)), lines: mergeByFile(lines) };
  if (!files) return view;
  const bytes = new Map<string, Interval[]>();
  for (const r of regions) {
    const span = files.byteSpan(r.file, r.start, r.end);
    if (span) addInterval(bytes, r.file, span);
  }
  view.bytes = mergeByFile(bytes);
  view.symbols = await files.symbolsInSpans(view.bytes);
  return view;
}

/** A step or final context at every level its inputs allow. */
async function viewOf(step: ResolvedStep, files: InstanceFiles | undefined): Promise<ContextView> {
  const lines = new Map<string, Interval[]>();
  for (const s of step.spans) if (s.start > 0 && s.end > 0) addInterval(lines, s.file, [s.start, s.end]);
  const view: ContextView = { files: new Set(step.files), lines: mergeByFile(lines) };
  if (!files) return view;
  const bytes = new Map<string, Interval[]>();
  for (const s of step.spans) {
    const span = files.byteSpan(s.file, s.start, s.end);
    if (span) addInterval(bytes, s.file, span);
  }
  view.bytes = mergeByFile(bytes);
  // Named symbols (Agentless) are taken as named; otherwise a span selects the definitions it touches.
  view.symbols =
    step.symbols.size > 0 ? await files.symbolsNamed(step.symbols) : await files.symbolsInSpans(view.bytes);
  return view;
}

/** One instance's repository files, read once each. */
class InstanceFiles {
  private readonly contents = new Map<string, { bytes: Uint8Array; starts: number[] } | undefined>();
  private readonly definitions = new Map<string, Promise<Definition[]>>();

  constructor(
    readonly workspace: Workspace,
    private readonly shared: Shared,
  ) {}

  byteSpan(file: string, start: number, end: number): Interval | undefined {
    const content = this.content(file);
    return content && lineRangeToBytes(content.starts, content.bytes.length, start, end);
  }

  async symbolsInSpans(bytes: ReadonlyMap<string, readonly Interval[]>): Promise<Set<string>> {
    const out = new Set<string>();
    for (const [file, spans] of bytes) {
      for (const d of definitionsInSpans(await this.definitionsOf(file), spans)) {
        out.add(symbolKey(file, d.kind, d.start, d.end));
      }
    }
    return out;
  }

  async symbolsNamed(symbols: ReadonlyMap<string, readonly string[]>): Promise<Set<string>> {
    const out = new Set<string>();
    for (const [file, names] of symbols) {
      for (const d of definitionsNamed(await this.definitionsOf(file), names)) {
        out.add(symbolKey(file, d.kind, d.start, d.end));
      }
    }
    return out;
  }

  private content(file: string): { bytes: Uint8Array; starts: number[] } | undefined {
    if (!this.contents.has(file)) {
      const bytes = this.workspace.read(file);
      this.contents.set(file, bytes && { bytes, starts: lineStarts(bytes) });
    }
    return this.contents.get(file);
  }

  private definitionsOf(file: string): Promise<Definition[]> {
    let defs = this.definitions.get(file);
    if (!defs) {
      const language = languageOf(file);
      const content = this.content(file);
      if (!language && UNSUPPORTED_EXTENSIONS.has(path.extname(file).toLowerCase()) && content) {
        this.shared.unsupported.add(file);
      }
      defs = language && content ? this.shared.definitions.get(content.bytes, language) : Promise.resolve([]);
      this.definitions.set(file, defs);
    }
    return defs;
  }
}
