import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parse as parseYaml } from 'yaml';
import { parseConfig, SUITE_NAME } from '../config/load.js';
import { didYouMean } from '../config/suggest.js';
import { InputError, UsageError } from '../errors.js';
import { digestGold } from '../gold/digest-files.js';
import { buildLock, defaultLockPath, today, writeLock } from '../gold/lock.js';
import { confine, scopeAt, type PathScope } from '../io/confine.js';
import { resolveMetric } from '../metrics/spec.js';
import { BASELINE_FILE } from '../baseline/committed.js';
import { describeWritten, writeCommittedBaseline } from '../baseline/write.js';
import { calibrate } from '../init/calibrate.js';
import { populationSize, withDetectable } from '../init/detectable.js';
import { concerns } from '../init/misread.js';
import { detect, ROLES, sampleOf, nearMiss, spanCandidate, type Candidate } from '../init/detect.js';
import { readAsTool } from '../init/shapes/index.js';
import { appliedMap } from '../init/field-proposal.js';
import { loadGold } from '../grounded-answer/load.js';
import { existingSuites, settingsLines, type ExistingSuite } from '../init/existing.js';
import { answerSettings } from '../grounded-answer/config.js';
import { goldShape, goldTest, traceShape, traceTest } from '../grounded-answer/contract.js';
import { proposalLines } from '../init/proposal-yaml.js';
import { flag, HEADLINE, NAMES, nearMisses, plan, type Proposal } from '../init/plan.js';
import { askingGates, tokenGates, USAGE_MEMBERS } from '../init/token-gates.js';
import {
  actionRef,
  CONTROL,
  LOCAL_ACTION,
  renderCommentWorkflow,
  renderGates,
  renderWorkflow,
  type SuiteGates,
} from '../init/render.js';
import { run, type RunOutcome } from '../run.js';
import { ACTION_REPOSITORY } from '../version.js';
import { SUITE_KINDS, suiteKind } from '../suites/registry.js';
import { escapeTerminal } from '../report/escape.js';
import { commandOf, writeOutput, type CliIo, type Command } from './command.js';
import { declareCommand, parseOptions } from './options.js';
import { compileFieldMap, type FieldMap } from '../io/field-map.js';
import { docRef } from '../docs.js';

const INIT = declareCommand({
  name: 'init',
  summary: 'write a gates.yaml calibrated from the data in the repository, and the workflows',
  usage: 'groundgate init [options]',
  description: [
    "Finds the gold sets, traces, qrels, runs, latency CSVs and logs of timed requests, verdict pairs, retrieval-event documents and ContextBench gold rows and predictions in a repository, says which suite kind each fits and why, runs the suites once, and writes a commented gates.yaml whose gates are calibrated from the data: each at its interval bound at the stated confidence (Wilson for proportions, a bootstrap for means and percentiles), so today's pipeline passes and the gate allows for the noise of a sample that size. Also writes .github/workflows/groundgate.yml (pull-request check with baseline: auto and history: auto, and the report artifact upload). Never overwrites without --force.",
    'It prints one line per file it looked at: what it was taken as, or why not. Records near the grounded-answer contract in their own shape (an "id", a "response.text", a list of "contexts" objects, a "latency_s") get a proposed fields: mapping, and answers that refuse in their own words a proposed refusal: rule; with --yes (or answering y on a terminal) they are written into the suite, a comment on each line, and the gates are calibrated from the data read through them. Lines it is unsure of are written commented out. Without --yes and no terminal, a needed mapping is printed and init exits 2.',
    'With --force or --dry-run, the suites of the gates file it replaces are kept: their inputs and how they read them (fields:, format, refusal, k, ...); only the gates are new.',
  ].join('\n\n'),
  options: {
    dir: { short: 'C', type: 'string', arg: 'DIR', help: 'the repository (default: the working directory)' },
    config: {
      short: 'c',
      type: 'string',
      arg: 'FILE',
      default: 'gates.yaml',
      help: 'the gates file to write, relative to DIR',
    },
    suite: {
      type: 'string',
      arg: 'KIND',
      help: 'write one suite of this kind from the inputs given, instead of looking',
    },
    gold: { type: 'string', arg: 'FILE', help: 'with --suite: the gold set' },
    traces: { type: 'string', arg: 'FILE', help: 'with --suite: the traces' },
    input: {
      short: 'i',
      type: 'string',
      multiple: true,
      arg: 'KEY=VALUE',
      help: 'with --suite: any other key of the suite: a path (run=, qrels=, csv=, pairs=, ...) or a setting, read as YAML reads it (refusal_token="I don\'t know", k=10, scu=true)',
    },
    name: { type: 'string', arg: 'NAME', help: "with --suite: the suite's name (default: from its kind)" },
    confidence: {
      type: 'string',
      arg: 'C',
      help: "the interval's confidence, 0.5-0.999 (default: 0.95)",
    },
    'max-drop': {
      type: 'string',
      arg: 'D',
      help: 'how far a headline metric may drop against the base branch (default: 0.02)',
    },
    branch: {
      type: 'string',
      arg: 'NAME',
      help: "the default branch the workflow runs on (default: origin's, else main)",
    },
    'fork-comments': {
      type: 'boolean',
      help: 'also write the workflow_run workflow that comments on pull requests from forks',
    },
    release: {
      type: 'boolean',
      help: 'freeze each gold set (groundgate freeze) and check locks in the workflow',
    },
    workflow: {
      type: 'boolean',
      negatable: true,
      help: 'write .github/workflows/groundgate.yml (the default); --no-workflow writes gates.yaml only',
    },
    'dry-run': { type: 'boolean', help: 'print what would be written; write nothing' },
    force: { type: 'boolean', help: 'overwrite files that exist' },
    yes: {
      short: 'y',
      type: 'boolean',
      help: 'write the proposed fields: and refusal: without asking',
    },
  },
  exitStatus:
    '0 written (or shown), 2 nothing to calibrate from, ambiguous data, a mapping to confirm (--yes), or a usage or input error.',
  example: 'groundgate init --suite grounded-qa --gold eval/gold.jsonl --traces eval/runs.jsonl --yes',
});

const WORKFLOW = '.github/workflows/groundgate.yml';
const COMMENT_WORKFLOW = '.github/workflows/groundgate-comment.yml';

interface InitArgs {
  dir: string;
  config: string;
  suite?: string;
  inputs: Record<string, string>;
  /** -i keys that are not paths, as YAML reads their values. */
  settings: Record<string, unknown>;
  name?: string;
  confidence: number;
  maxDrop: number;
  branch?: string;
  forkComments: boolean;
  release: boolean;
  workflow: boolean;
  dryRun: boolean;
  force: boolean;
  yes: boolean;
}

function parseInitArgs(argv: readonly string[]): InitArgs {
  const { values, positionals } = parseOptions(INIT, argv);
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const number = (flag: string, text: string | undefined, fallback: number, lo: number, hi: number) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d*\.?\d+$/.test(text) || !(n >= lo && n <= hi))
      throw new UsageError(`--${flag} ${JSON.stringify(text)}: expected a number from ${lo} to ${hi}`);
    return n;
  };
  const inputs: Record<string, string> = {};
  const settings: Record<string, unknown> = {};
  const kindOf = values.suite ? suiteKind(values.suite) : undefined;
  for (const text of values.input ?? []) {
    const m = /^([a-z_]+)=(.+)$/s.exec(text);
    if (!m)
      throw new UsageError(`--input ${JSON.stringify(text)}: expected KEY=VALUE, e.g. run=runs/bm25.run`);
    const [, key, value] = m as unknown as [string, string, string];
    if (!kindOf || kindOf.inputKeys.includes(key)) {
      inputs[key] = value;
      continue;
    }
    const keys = settingKeys(kindOf);
    if (!keys.includes(key))
      throw new UsageError(
        `--input ${key}: not a key of a ${kindOf.kind} suite${didYouMean(key, [...kindOf.inputKeys, ...keys])}; expected one of ${[...kindOf.inputKeys, ...keys].join(', ')}`,
      );
    settings[key] = yamlValue(value);
  }
  if (values.gold) inputs.gold = values.gold;
  if (values.traces) inputs.traces = values.traces;
  if (!values.suite && Object.keys(inputs).length)
    throw new UsageError('--gold, --traces and --input go with --suite KIND (the kind they are for)');
  if (values.suite && !suiteKind(values.suite))
    throw new UsageError(
      `--suite ${JSON.stringify(values.suite)}: expected one of ${SUITE_KINDS.map((k) => k.kind).join(', ')}`,
    );
  const dir = path.resolve(values.dir ?? '.');
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--dir ${JSON.stringify(values.dir)}: not a folder`);
  const config = values.config ?? 'gates.yaml';
  const configRel = path.relative(dir, path.resolve(dir, config));
  if (
    !config ||
    config.replace(CONTROL, '') !== config ||
    !configRel ||
    configRel.startsWith('..') ||
    path.isAbsolute(configRel)
  )
    throw new UsageError(
      `--config ${JSON.stringify(config)}: expected a file path inside the repository (${dir})`,
    );
  if (values.branch !== undefined && !/^[A-Za-z0-9._/-]{1,100}$/.test(values.branch))
    throw new UsageError(
      `--branch ${JSON.stringify(values.branch)}: expected a branch name (letters, digits, . _ / -)`,
    );
  if (values.name !== undefined && !(SUITE_NAME.test(values.name) && values.name.length <= 100))
    throw new UsageError(
      `--name ${JSON.stringify(values.name)}: expected a suite name of letters, digits, "_", "-", "." starting with a letter`,
    );
  return {
    dir,
    config: configRel.split(path.sep).join('/'),
    suite: values.suite,
    inputs,
    settings,
    name: values.name,
    confidence: number('confidence', values.confidence, 0.95, 0.5, 0.999),
    maxDrop: number('max-drop', values['max-drop'], 0.02, 0, 1),
    branch: values.branch,
    forkComments: values['fork-comments'] ?? false,
    release: values.release ?? false,
    workflow: values.workflow ?? true,
    dryRun: values['dry-run'] ?? false,
    force: values.force ?? false,
    yes: values.yes ?? false,
  };
}

/** The keys of a kind's block that are settings (not its kind, inputs, lock or gates). */
function settingKeys(kind: NonNullable<ReturnType<typeof suiteKind>>): string[] {
  let def = kind.configSchema._zod.def as unknown as {
    type: string;
    shape?: object;
    in?: { _zod: { def: unknown } };
  };
  while (def.type === 'pipe' && def.in) def = def.in._zod.def as typeof def;
  return Object.keys(def.shape ?? {}).filter(
    (k) => !['kind', 'gates', 'lock', ...kind.inputKeys].includes(k),
  );
}

/** A -i value as YAML reads it in gates.yaml: `10` a number, `true` a boolean, `{phrases: [...]}` a map. */
function yamlValue(text: string): unknown {
  try {
    const v: unknown = parseYaml(text);
    return v === null || v === undefined ? text : v;
  } catch {
    return text;
  }
}

export const initCommand: Command = commandOf(INIT, async (argv, io) => {
  const args = parseInitArgs(argv);
  const configFile = path.resolve(args.dir, args.config);
  const scope = scopeAt(args.dir, 'the repository (--dir)');
  // Its lines name files of the repository, which may be a fork's: one line each, as stderr's are, but not
  // cut: they are the repository's own listing, and one is a command to copy (git add …).
  const say = (line = '') => io.stdout(`${escapeTerminal(line, Infinity)}\n`);

  const baselineFile = path.join(path.dirname(configFile), BASELINE_FILE);
  const targets = [
    configFile,
    baselineFile,
    ...(args.workflow ? [path.join(args.dir, WORKFLOW)] : []),
    ...(args.workflow && args.forkComments ? [path.join(args.dir, COMMENT_WORKFLOW)] : []),
  ];
  const rel = (file: string) => path.relative(args.dir, file).split(path.sep).join('/');
  const refuseExisting = (files: string[]) => {
    for (const f of files) {
      // Never through a link (a dangling one included: it is "absent" to existsSync) nor out of DIR.
      if (lstatSync(f, { throwIfNoEntry: false })?.isSymbolicLink())
        throw new UsageError(
          `${rel(f)} is a symbolic link; init writes regular files in the repository only`,
        );
      confine(f, scope, rel(f), { file: f });
    }
    const existing = files.filter((f) => lstatSync(f, { throwIfNoEntry: false }) !== undefined);
    if (existing.length && !args.force && !args.dryRun)
      throw new UsageError(
        `${existing.map(rel).join(', ')} already exist${existing.length === 1 ? 's' : ''}; --force overwrites, --dry-run shows what would be written`,
      );
  };
  // Before any work: a file the user has is never touched without --force.
  refuseExisting(targets);
  // Inputs are written relative to the gates file, as check reads them.
  const fromConfig = (abs: string) => {
    const r = path.relative(path.dirname(configFile), abs).split(path.sep).join('/');
    return r || '.';
  };
  // The gates file being replaced: how its suites read their data is kept.
  let existing: ExistingSuite[] = [];
  if (lstatSync(configFile, { throwIfNoEntry: false })) {
    const read = existingSuites(configFile, args.dir);
    if ('problem' in read) say(`  not kept: ${args.config} (${read.problem})`);
    else existing = read;
  }
  const proposed = args.suite ? given(args, scope, existing, say) : discovered(args.dir, say, existing);
  await confirm(proposed, args, io, say);
  const found = proposed.map((p) => ({
    ...p,
    inputs: Object.fromEntries(
      Object.entries(p.inputs).map(([k, v]) => [k, fromConfig(path.resolve(args.dir, v))]),
    ),
  }));
  const planned: SuiteGates[] = found.map((proposal) => {
    const extra = [...(proposal.kept ?? []), ...proposalLines(proposal)];
    // Traces whose sample counts tokens: the trial run is asked for them, as a token gate would ask.
    const asking = proposal.usage?.counted ? askingGates(HEADLINE[proposal.kind]?.maxIncrease ?? []) : [];
    return {
      proposal,
      gates: [],
      maxDrop: {},
      skipped: [],
      ...(extra.length ? { extra } : {}),
      ...(asking.length ? { increases: asking } : {}),
    };
  });
  const day = today(io.env);
  const draft = renderGates(planned, { confidence: args.confidence, day });
  const notWritten = (text: string) => (err: unknown) =>
    proposalError(err, text, configFile, args.config, say);
  let loaded;
  try {
    loaded = parseConfig(draft, configFile, scope);
  } catch (err) {
    // The draft is init's own: a key it lacks is a flag the user did not give, not a line of a file.
    const missing = err instanceof InputError && /: (\w+): missing required key/.exec(err.detail);
    if (missing && args.suite)
      throw new UsageError(`--suite ${args.suite} needs ${flag(missing[1]!, 'FILE')} as well`);
    throw notWritten(draft)(err);
  }
  const outcome = await run({
    config: configFile,
    loaded,
    scope,
    resample: true,
    committedBaseline: false,
  }).catch((err: unknown) => {
    throw notWritten(draft)(err);
  });
  for (const s of planned.filter((x) => x.proposal.claims)) {
    const measured = await contrastClaims(s, outcome.report, { configFile, scope, day, args });
    say(`  ${s.proposal.name}: claims: ${measured}`);
  }

  for (const s of planned) {
    const suite = loaded.suites.find((x) => x.name === s.proposal.name)!;
    const report = outcome.report.suites[s.proposal.name]!;
    // The largest default cutoff: ndcg@10 says more about a ranking than ndcg@1.
    const k = suite.kind.defaultCutoffs(suite.config).at(-1);
    // Every kind has its headline (test/init.test.ts keeps the table in step with the registry).
    const headline = HEADLINE[s.proposal.kind]!;
    const named = (m: string) => m.replace('{k}', String(k));
    // A gate calibrated on data read wrongly would hold the wrong numbers in place: say so, gate the rest.
    const misread = outcome.misreads[s.proposal.name] ?? [];
    for (const m of misread) say(`  warning: ${s.proposal.name}: ${m.warning}`);
    for (const metric of headline.gates.map(named)) {
      const resolved = resolveMetric(metric, suite.kind.metrics);
      const value = report.metrics[metric];
      if (!resolved || !value) continue;
      const doubt = misread.find((m) => concerns(m, metric));
      if (doubt) {
        s.skipped.push(`${metric}: the data looks read wrongly (${doubt.warning})`);
        continue;
      }
      const resampler = outcome.resamplers[s.proposal.name];
      const c = withDetectable(
        metric,
        calibrate(
          metric,
          value,
          resolved.spec,
          args.confidence,
          resampler,
          // p{k}_ms: k is a percentile (elsewhere, as in ndcg@{k}, a cutoff).
          resolved.spec.unit === 'ms' || resolved.spec.unit === 's' ? resolved.k : undefined,
        ),
        {
          value,
          spec: resolved.spec,
          confidence: args.confidence,
          ...(resampler ? { resampled: resampler.items } : {}),
          population: populationSize(suite.kind, resolved.spec, report),
          maxDrop: args.maxDrop,
        },
      );
      if ('skipped' in c) s.skipped.push(c.skipped);
      else {
        if (c.detectable) say(`  ${s.proposal.name}.${c.detectable}`);
        s.gates.push(c);
        if (headline.maxDrop.map(named).includes(metric) && resolved.spec.direction === 'higher')
          s.maxDrop[metric] = args.maxDrop;
      }
    }
    const increases = tokenGates(report.metrics, headline.maxIncrease ?? [], headline.per);
    if (increases.length) s.increases = increases;
    else delete s.increases;
    for (const i of increases) say(`  ${s.proposal.name}.${i.metric}: max_increase ${i.fraction}, ${i.note}`);
  }

  // A suite with nothing to gate today (no samples, nothing computable) is left out, and said so.
  const gated = (s: SuiteGates) => s.gates.length + (s.increases?.length ?? 0) > 0;
  for (const s of planned.filter((x) => !gated(x)))
    say(
      `  not written: ${s.proposal.name} (${s.proposal.kind}): no metric to gate today (${s.skipped.join('; ') || 'none computable'})`,
    );
  const kept = planned.filter(gated);
  if (kept.length === 0)
    throw new InputError(
      { file: args.dir },
      'none of the suites found has a metric to gate today; see the notes above',
    );
  const writes: { file: string; text: string }[] = [];
  const locks = args.release ? await freezeGold(kept, args.dir) : [];
  writes.push({ file: configFile, text: renderGates(kept, { confidence: args.confidence, day }) });
  if (args.workflow) {
    const options = {
      branch: args.branch ?? defaultBranch(args.dir),
      release: args.release,
      config: args.config,
      repository: ACTION_REPOSITORY,
    };
    writes.push({ file: path.join(args.dir, WORKFLOW), text: renderWorkflow(options) });
    if (args.forkComments)
      writes.push({ file: path.join(args.dir, COMMENT_WORKFLOW), text: renderCommentWorkflow(options) });
  }

  // The result must be what check accepts and passes on the same data: run it as check would.
  const text = writes[0]!.text;
  let final;
  try {
    final = parseConfig(text, configFile, scope);
  } catch (err) {
    throw notWritten(text)(err);
  }
  // The committed baseline is made from this run: the verdicts of the data the gates were calibrated on.
  const checked = await run({ config: configFile, loaded: final, scope, committedBaseline: false }).catch(
    (err: unknown) => {
      throw notWritten(text)(err);
    },
  );
  const gates = checked.report.gates.length;
  if (checked.report.verdict !== 'pass')
    throw new Error(
      `init: the calibrated gates fail on the data they came from: ${JSON.stringify(checked.report.gates.filter((g) => !g.passed))}`,
    );

  if (args.dryRun) {
    for (const w of writes) {
      say(`--- ${rel(w.file)} (dry run: not written)`);
      io.stdout(w.text);
    }
    for (const lock of locks)
      say(`--- ${rel(lock.file)} (dry run: not written): gold lock, ${lock.items} items`);
    say(`--- ${rel(baselineFile)} (dry run: not written): committed baseline of this run`);
    return 0;
  }
  refuseExisting(locks.map((l) => l.file));
  for (const w of writes) {
    mkdirSync(path.dirname(w.file), { recursive: true });
    writeOutput(w.file, w.text);
  }
  for (const lock of locks) lock.write();
  const baseline = writeCommittedBaseline(checked.report, path.dirname(configFile), scope, io.env);
  say(
    `wrote ${[...writes.map((w) => w.file), ...locks.map((l) => l.file)].map(rel).join(', ')}: ${gates} gates, calibrated at ${Number((args.confidence * 100).toFixed(2))}%; check passes on today's data`,
  );
  say(
    `${describeWritten(baseline).replace(/; commit it$/, '')}: the verdicts of this run, what check compares with until the base commit has a report artifact`,
  );
  if (args.workflow)
    say(
      ACTION_REPOSITORY === undefined
        ? `note: package.json of groundgate names no repository: the workflow runs the copy installed by npm ci (uses: ${LOCAL_ACTION})`
        : `note: the workflow uses ${actionRef(ACTION_REPOSITORY)}; pin it to that tag's commit sha, as it pins actions/checkout and actions/upload-artifact`,
    );
  say(
    `next: review the gates, then git add ${[...writes.map((w) => w.file), ...locks.map((l) => l.file), baselineFile].map(rel).join(' ')} && git commit`,
  );
  return 0;
});

/**
 * An error at a line of the gates file init is writing names that line of the text it would write, printed
 * with its line numbers: no file holds that text (nothing is written on an error, and with --force the file
 * there is the one being replaced). Any other error is returned as it is.
 */
function proposalError(
  err: unknown,
  text: string,
  configFile: string,
  config: string,
  say: (line?: string) => void,
): unknown {
  if (!(err instanceof InputError) || err.where === undefined || path.resolve(err.where.file) !== configFile)
    return err;
  const lines = text.replace(/\n$/, '').split('\n');
  const width = String(lines.length).length;
  say(`--- ${config} (proposed, not written), at the error:`);
  lines.forEach((line, i) =>
    say(`${i + 1 === err.where!.line ? '>' : ' '}${String(i + 1).padStart(width)} | ${line}`),
  );
  return new InputError({ ...err.where, file: `${configFile} (proposed, not written)` }, err.detail);
}

/** The suite given with --suite: inputs as typed (relative to the working directory), checked to exist inside DIR. */
function given(
  args: InitArgs,
  scope: PathScope,
  existing: readonly ExistingSuite[],
  say: (line?: string) => void,
): Proposal[] {
  const kind = suiteKind(args.suite!)!;
  const name = args.name ?? NAMES[kind.kind] ?? kind.kind;
  // The suite of that name in the gates.yaml being replaced: its inputs and settings, unless given again.
  const prior = existing.find((e) => e.name === name && e.kind === kind.kind);
  const inputs: Record<string, string> = { ...prior?.inputs };
  const settings: Record<string, unknown> = { ...prior?.settings, ...args.settings };
  for (const [key, value] of Object.entries(args.inputs)) {
    const abs = path.resolve(value);
    // A glob (events: runs/**/*.json) is checked by the suite when it runs; a plain path here.
    if (!/[*?[{]/.test(value) && !existsSync(abs))
      throw new UsageError(`${flag(key, value)}: file not found`);
    confine(abs, scope, value, { file: abs }, flag(key, '').trim().replace(/^--/, ''));
    inputs[key] = path.relative(args.dir, abs).split(path.sep).join('/');
  }
  const why = [
    'given on the command line',
    ...(prior ? [`kept from the suite ${name} of the gates file`] : []),
  ];
  const kept = settingsLines(settings);
  const proposal: Proposal = { name, kind: kind.kind, inputs, why, ...(kept.length ? { kept } : {}) };
  if (kind.kind !== 'grounded-qa' || settings.format === 'openinference' || settings.format === 'otel')
    return [proposal];
  // Own-shape gold or traces: a mapping proposed for what the given fields: does not map already.
  const fields = (settings.fields ?? {}) as Record<string, FieldMap | undefined>;
  const read = (key: 'gold' | 'traces'): Candidate | undefined => {
    const file = inputs[key];
    if (!file || !/\.(jsonl|ndjson|json)$/i.test(file)) return undefined;
    const sample = sampleOf(path.resolve(args.dir, file));
    if (!sample?.records) return undefined;
    const map = compileFieldMap(fields[key], key === 'gold' ? goldShape : traceShape);
    const records = map ? sample.records.map((r) => map.apply(r)) : sample.records;
    const base = { file: sample.file, what: key, why: '', ids: [], constraints: false };
    if (records.every(key === 'gold' ? goldTest : traceTest))
      return { ...base, role: key === 'gold' ? 'qa-gold' : 'qa-traces', records };
    if (map) return undefined;
    const tool = readAsTool(sample.records);
    const mine = tool?.inputs.find((i) => i.input === key);
    if (tool && mine) {
      const { input, qids, ...rest } = mine;
      return {
        ...base,
        role: input === 'gold' ? 'qa-gold' : 'qa-traces',
        ids: qids,
        tool: tool.what,
        ...rest,
      };
    }
    if (tool) say(`  ${flag(key, file)}: ${tool.line}`);
    const near = nearMiss(sample, [key]);
    if ('candidate' in near) return near.candidate;
    // The loader's error names the line; this says what no mapping tried could find.
    say(
      `  ${flag(key, file)}: ${near.line} (map yours with fields: in the gates file, ${docRef('docs/formats.md')})`,
    );
    return undefined;
  };
  const gold = read('gold');
  // Spans given without a format: read as detection reads them, the format and keys proposed.
  const spanFile =
    settings.format === undefined && inputs.traces ? path.resolve(args.dir, inputs.traces) : undefined;
  const spanRead = spanFile && /\.(jsonl|ndjson|json)$/i.test(spanFile) ? sampleOf(spanFile) : undefined;
  const spans = spanRead && spanCandidate(spanRead)?.candidate;
  const traces = spans ?? read('traces');
  if (!gold || !traces) return [proposal];
  // A refusal typed with -i is checked where the proposed gates file is: here it only words the proposal.
  const given = answerSettings.refusal.safeParse(settings.refusal);
  const extras = nearMisses(gold, traces, 'traces', true, {
    token: typeof settings.refusal_token === 'string' ? settings.refusal_token : undefined,
    refusal: given.success ? given.data : undefined,
  });
  if (extras.refusal && settings.refusal !== undefined) delete extras.refusal;
  return [{ ...proposal, ...extras }];
}

/**
 * Proposals of fields: and refusal: are shown, then written with --yes (or --dry-run, which writes nothing),
 * or when the user says so on a terminal; else a needed mapping stops init (exit 2) and a refusal rule is
 * left out, each said so.
 */
async function confirm(found: Proposal[], args: InitArgs, io: CliIo, say: (line?: string) => void) {
  const proposing = found.filter((p) => p.fields || p.refusal || p.claims || p.openinference);
  if (proposing.length === 0) return;
  for (const p of proposing) {
    say(`proposed for the suite ${p.name} of ${args.config}:`);
    for (const line of proposalLines(p)) say(`    ${line}`);
  }
  let yes = args.yes || args.dryRun;
  if (!yes && io.isTty && process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      yes = /^(y|yes)?$/i.test((await rl.question('write this mapping? [Y/n] ')).trim());
    } finally {
      rl.close();
    }
  }
  if (yes) return;
  // A mapping of the usage alone is not needed to read the traces: left out, the tokens are not read.
  const needed = proposing.filter(
    (p) =>
      p.openinference ||
      Object.values(p.fields ?? {}).some((f) =>
        f.lines.some((l) => !l.unsure && !USAGE_MEMBERS.has(l.canonical)),
      ),
  );
  if (needed.length)
    throw new UsageError(
      `${needed.map((p) => `the suite ${p.name}`).join(', ')} can read its data only through the ${needed.some((p) => p.openinference) ? 'format: openinference or ' : ''}fields: mapping above; --yes writes it into ${args.config} (or copy it there yourself)`,
    );
  for (const p of proposing) {
    // The usage sampled through a mapping not written is not what check will read.
    if (Object.values(p.fields ?? {}).some((f) => f.lines.some((l) => USAGE_MEMBERS.has(l.canonical))))
      delete p.usage;
    delete p.fields;
    delete p.refusal;
    delete p.claims;
  }
  say('  not written: the proposal above; --yes writes it');
}

function discovered(
  dir: string,
  say: (line?: string) => void,
  existing: readonly ExistingSuite[],
): Proposal[] {
  const { candidates, looked, looks } = detect(dir);
  const rel = (file: string) => path.relative(dir, file).split(path.sep).join('/');
  // The suites of the gates file being replaced, whose inputs are there: kept as they read them.
  const present = (v: string) => /[*?[{]/.test(v) || existsSync(path.resolve(dir, v));
  const keep = existing.filter((e) => Object.values(e.inputs).every(present));
  const keptFiles = new Map(
    keep.flatMap((e) => Object.values(e.inputs).map((v) => [path.resolve(dir, v), e.name] as const)),
  );
  const planned = plan(
    candidates.filter((c) => !keptFiles.has(c.file)),
    dir,
  );
  const lines = looks.map(
    (l) =>
      `${rel(l.file)}: ${keptFiles.has(l.file) ? `read by the suite ${keptFiles.get(l.file)} of the gates file, as it says` : l.line}`,
  );
  const proposals: Proposal[] = keep.map((e) => ({
    name: e.name,
    kind: e.kind,
    inputs: e.inputs,
    why: ['kept from the gates file: its inputs and how it reads them'],
    ...(e.kept.length ? { kept: e.kept } : {}),
  }));
  for (const p of planned.proposals) {
    let name = p.name;
    for (let i = 2; proposals.some((x) => x.name === name); i++) name = `${p.name}-${i}`;
    proposals.push({ ...p, name });
  }
  if (planned.ambiguous.length)
    throw new InputError(
      { file: dir },
      `more than one way to read the data: ${planned.ambiguous.join('; ')}`,
    );
  if (proposals.length === 0) {
    const what = ROLES.map((r) => r.what).join(', ');
    const shown = lines.slice(0, SHOWN);
    const more = lines.length - shown.length;
    throw new InputError(
      { file: dir },
      `no inputs found to calibrate gates from (looked at ${looked} files: .jsonl, .json, .csv, .qrels, .run, .txt, .tsv; for ${what})${planned.notes.length ? `; ${planned.notes.join('; ')}` : ''}; ${shown.join('; ')}${more ? `; and ${more} more files` : ''}; name them with --suite KIND --gold FILE --traces FILE`,
    );
  }
  say(`groundgate init: looked at ${looked} files in ${dir}`);
  // Every file taken, and the first of the others: a large repository's would fill the screen.
  let untaken = 0;
  looks.forEach((l, i) => {
    if (l.taken || keptFiles.has(l.file) || untaken++ < SHOWN) say(`  ${lines[i]!}`);
  });
  if (untaken > SHOWN) say(`  and ${untaken - SHOWN} more files not taken`);
  for (const p of proposals) {
    say(`  ${p.name} (${p.kind}): ${Object.values(p.inputs).join(' + ')}`);
    for (const why of p.why) say(`    ${why}`);
  }
  for (const note of planned.notes) say(`  not used: ${note}`);
  for (const e of existing.filter((x) => !keep.includes(x)))
    say(`  not kept: the suite ${e.name} of the gates file (an input of it is not there)`);
  return proposals;
}

/**
 * The precision of a suite whose proposed claim rule replaces substring matching, under that rule and under
 * substring matching (the suite run once more without `claims:`): written beside the rule, and returned.
 */
async function contrastClaims(
  s: SuiteGates,
  report: RunOutcome['report'],
  at: { configFile: string; scope: PathScope; day: string; args: InitArgs },
): Promise<string> {
  const { proposal } = s;
  const claims = proposal.claims!;
  const without = { ...proposal, claims: undefined };
  const extra = [...(proposal.kept ?? []), ...proposalLines(without)];
  const draft = renderGates([{ ...s, proposal: without, ...(extra.length ? { extra } : {}) }], {
    confidence: at.args.confidence,
    day: at.day,
  });
  const loaded = parseConfig(draft, at.configFile, at.scope);
  const substring = await run({ config: at.configFile, loaded, scope: at.scope, committedBaseline: false });
  const shown = (r: RunOutcome['report']) => {
    const m = r.suites[proposal.name]?.metrics.precision;
    return m
      ? `${m.value === null ? 'none' : Number(m.value).toFixed(4)} (${m.numerator}/${m.denominator})`
      : 'none';
  };
  claims.measured = `precision measured ${shown(report)} under this rule, ${shown(substring.report)} under substring matching`;
  s.extra = [...(proposal.kept ?? []), ...proposalLines(proposal)];
  return `${claims.match}, min_token_recall ${claims.min_token_recall}: ${claims.measured}`;
}

/** The most lines of files not taken init prints, and of files the exit-2 message holds. */
const SHOWN = 20;

/** Locks beside each gold set (groundgate freeze), written after the gates. */
async function freezeGold(suites: readonly SuiteGates[], dir: string) {
  const out: { file: string; items: number; write: () => void }[] = [];
  for (const s of suites) {
    const goldKey = suiteKind(s.proposal.kind)?.goldKey;
    const gold = goldKey && s.proposal.inputs[goldKey];
    if (!gold) continue;
    const goldFile = path.resolve(dir, gold);
    // Through the proposed mapping, as freeze and check name the items (a RAGAS file has no id of its own).
    const fields = s.proposal.fields?.gold && appliedMap(s.proposal.fields.gold);
    const digest =
      fields && Object.keys(fields).length
        ? (await loadGold([goldFile], { fields })).digest!
        : await digestGold([goldFile]);
    const file = defaultLockPath(goldFile);
    const lock = buildLock(digest, [goldFile], file, today());
    out.push({ file, items: lock.items, write: () => void writeLock(file, lock) });
  }
  return out;
}

function defaultBranch(dir: string): string {
  try {
    const ref = execFileSync(
      'git',
      ['-C', dir, 'symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 5_000,
      },
    ).trim();
    return ref.replace(/^origin\//, '') || 'main';
  } catch {
    return 'main';
  }
}
