import { VERSION } from '../version.js';
import type { Calibrated } from './calibrate.js';
import { HEADLINE, type Proposal } from './plan.js';
import type { UsageNoun } from '../cost/usage-metrics.js';
import { pricingExample, type Increase, type SampledUsage } from './token-gates.js';

/** The actions the workflows use, pinned to a commit (a tag can be moved; a sha cannot), the tag beside. */
export const PINNED = {
  checkout: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0',
  uploadArtifact: 'actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2',
  setupNode: 'actions/setup-node@249970729cb0ef3589644e2896645e5dc5ba9c38 # v6.5.0',
};

export interface SuiteGates {
  proposal: Proposal;
  gates: Calibrated[];
  /** Metrics that also get max_drop, and by how much. */
  maxDrop: Record<string, number>;
  /** What was left out and why, as comments. */
  skipped: string[];
  /** Extra keys of the suite block (lock:), already YAML. */
  extra?: string[];
  /** max_increase gates on token counts (token-gates.ts): with them, pricing: is written as a commented example. */
  increases?: Increase[];
}

export interface RenderOptions {
  confidence: number;
  /** The day the data was measured (UTC), for the header. */
  day: string;
}

/** A YAML scalar for a path or name: plain when that cannot be misread, else a JSON (double-quoted) string. */
export function scalar(s: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_./@+-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s)
    ? s
    : JSON.stringify(s);
}

/** Line breaks and other controls: what init writes into YAML must not start a line of its own. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g;

/** Text for a YAML comment: a file name with a line break must not end the comment and start YAML. */
function comment(text: string): string {
  return text.replace(CONTROL, ' ');
}

/** Why init set a suite setting, beside it in gates.yaml. */
const SETTING_NOTES: Record<string, string> = {
  'scu: true': 'the gold locks constraints: check their echo and contradictions',
  'qrels_format: llamaindex':
    "LlamaIndex's EmbeddingQAFinetuneDataset: each docid of relevant_docs a judgment of grade 1",
};

/** gates.yaml, commented: where each input came from, and beside each gate its measured value, n and rule. */
export function renderGates(suites: readonly SuiteGates[], options: RenderOptions): string {
  const pct = `${Number((options.confidence * 100).toFixed(2))}%`;
  const out = [
    `# groundgate gates, written by groundgate init ${VERSION} on ${options.day} from the data in this repository.`,
    `# Each gate is the ${pct} interval bound of today's value on the side that matters (Wilson for proportions,`,
    '# a bootstrap for means and percentiles), so today passes and the gate allows for the noise of a sample that size.',
    ...(suites.some((s) => s.gates.some((g) => g.paired))
      ? [
          "# A paired gate (max_new_failures) counts the items that passed on the base branch's report and fail now: it",
          '# catches what a level gate on few items cannot. The line above each gate says what the gold set can detect.',
        ]
      : []),
    '# Tighten them as the pipeline improves; the comment beside each says what it was measured at.',
    'version: 1',
    'offenders: 10',
    'suites:',
  ];
  for (const s of suites) {
    const { proposal: p } = s;
    out.push(`  ${p.name}:`, `    kind: ${p.kind}`);
    for (const why of p.why) out.push(`    # found: ${comment(why)}`);
    for (const [key, value] of Object.entries(p.inputs)) out.push(`    ${key}: ${scalar(value)}`);
    for (const [key, value] of Object.entries(p.settings ?? {})) {
      const note = SETTING_NOTES[`${key}: ${String(value)}`];
      out.push(`    ${key}: ${typeof value === 'string' ? scalar(value) : value}${note ? ` # ${note}` : ''}`);
    }
    for (const line of s.extra ?? []) out.push(`    ${line}`);
    const increases = s.increases ?? [];
    if (increases.length)
      out.push(...pricingLines(p.usage, HEADLINE[p.kind]?.per ?? 'request').map((l) => `    ${l}`));
    if (s.gates.length === 0 && increases.length === 0) {
      out.push('    gates: {}');
    } else {
      out.push('    gates:');
      for (const g of s.gates) {
        const drop = s.maxDrop[g.metric];
        const keys = [
          ...(g.pairedOnly ? [] : [`${g.op === '>=' ? 'min' : 'max'}: ${g.threshold}`]),
          ...(drop === undefined ? [] : [`max_drop: ${drop}`]),
          ...(g.paired ? [`max_new_failures: ${g.paired.most}`] : []),
        ];
        const rule =
          keys.length === 1 && !g.pairedOnly ? `'${g.op} ${g.threshold}'` : `{ ${keys.join(', ')} }`;
        const dropNote = drop === undefined ? '' : `; may drop at most ${drop} against the base branch`;
        const pairedNote = g.paired ? `; ${g.paired.rule}` : '';
        if (g.detectable) out.push(`      # ${comment(g.detectable)}`);
        out.push(`      ${scalar(g.metric)}: ${rule} # ${comment(g.note)}${dropNote}${pairedNote}`);
      }
      for (const i of increases)
        out.push(`      ${scalar(i.metric)}: { max_increase: ${i.fraction} } # ${comment(i.note)}`);
    }
    for (const why of s.skipped) out.push(`    # not gated: ${comment(why)}`);
  }
  return out.join('\n') + '\n';
}

/** `pricing:` commented out: prices are the user's to fill in and keep current (see token-gates.ts). */
function pricingLines(usage: SampledUsage | undefined, per: UsageNoun): string[] {
  const { models, price, more } = pricingExample(usage);
  return [
    '# pricing: USD per million tokens, as your provider lists them; yours to keep current (groundgate looks',
    `# none up). With it, each ${per}'s cost is reported and can be gated, e.g. cost: { max_increase: 0.1 }.`,
    // A trace that names no model is n/a for cost whatever the table says: the example would never apply.
    ...(usage?.counted && usage.models.length === 0
      ? [
          `# The sampled traces name no model (model, llm.model_name, gen_ai.response.model): each ${per} is priced`,
          '# at the model it names, so record one before filling this in.',
        ]
      : []),
    '# pricing:',
    ...models.map((m) => `#   ${comment(scalar(m))}: ${price}`),
    ...(more ? [`#   … (${more} more models)`] : []),
  ];
}

export interface WorkflowOptions {
  branch: string;
  release: boolean;
  config: string;
  /** The repository groundgate is published from (owner/name), or undefined: see ACTION_REPOSITORY. */
  repository: string | undefined;
}

/** Where the installed package is, as a local action: its action.yml and dist/ are in the package. */
export const LOCAL_ACTION = './node_modules/groundgate';

/** What a workflow's groundgate step uses: the published tag, else the copy `npm ci` installed. */
export function actionRef(repository: string | undefined): string {
  return repository === undefined ? LOCAL_ACTION : `${repository}@v${VERSION}`;
}

/**
 * The steps that put the local action in place (none for a published one): GitHub resolves a local action's
 * runs.main relative to its folder, so the package npm ci installed runs as it is, at the version the
 * lockfile holds.
 */
function installSteps(repository: string | undefined, npmCi: string): string {
  if (repository !== undefined) return '';
  return `      - uses: ${PINNED.setupNode}
        with:
          node-version: 24
      - run: ${npmCi}
`;
}

/** The pull-request check: scores, gates, comments, and uploads the report the next runs compare with. */
export function renderWorkflow(options: WorkflowOptions): string {
  return `# groundgate: scores the pipeline's traces against ${options.config} on every pull request, and on
# ${options.branch}, whose reports are the baselines (baseline: auto) and the trend (history: auto).
name: groundgate
on:
  pull_request:
  push:
    branches: [${scalar(options.branch)}]
permissions:
  contents: read
  actions: read # baseline: auto and history: auto read other runs' report artifacts
  pull-requests: write # the sticky comment
concurrency:
  group: groundgate-\${{ github.ref }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: ${PINNED.checkout}
${installSteps(options.repository, `npm ci # installs groundgate, a devDependency, as ${LOCAL_ACTION}`)}      # Run your pipeline here, so that it writes the traces ${options.config} points at.
      - id: gate
        uses: ${actionRef(options.repository)}
        with:
          config: ${scalar(options.config)}
          baseline: auto
          history: auto${options.release ? '\n          release: true # every gold set must match its lock (groundgate freeze)' : ''}
      - uses: ${PINNED.uploadArtifact}
        if: always()
        with:
          name: groundgate-report
          path: \${{ steps.gate.outputs.report }}
`;
}

/**
 * Comments on pull requests from forks, whose own run has a read-only token. It runs with this repository's
 * token, so the fork's code must never run here: with a published action it checks nothing out; with the
 * installed copy it checks out the default branch (what was merged, as trusted as this workflow file, which
 * workflow_run also reads from the default branch), keeps no credentials, and installs it without scripts.
 */
export function renderCommentWorkflow(options: WorkflowOptions): string {
  const local = options.repository === undefined;
  return `# groundgate comment: posts the report of a fork's pull-request run as the sticky comment. It runs with
# this repository's token, so the fork's code never runs here: ${
    local
      ? `it checks out the default branch only (trusted:
# what was merged, like this file), to install groundgate from its lockfile without running any scripts.`
      : 'it checks nothing out.'
  }
name: groundgate comment
on:
  workflow_run:
    workflows: [groundgate] # the name of the pull-request check's workflow
    types: [completed]
permissions:
  actions: read # the triggering run's report artifact${local ? "\n  contents: read # the default branch's checkout" : ''}
  pull-requests: write # the sticky comment
jobs:
  comment:
    # Pull requests from forks only: the check comments on its own branches' pull requests.
    if: github.event.workflow_run.event == 'pull_request' && github.event.workflow_run.head_repository.full_name != github.repository
    runs-on: ubuntu-latest
    steps:
${
  local
    ? `      - uses: ${PINNED.checkout}
        with:
          ref: \${{ github.event.repository.default_branch }} # never the pull request's head
          persist-credentials: false
${installSteps(options.repository, 'npm ci --ignore-scripts')}`
    : ''
}      - uses: ${actionRef(options.repository)}
        with:
          mode: comment
          config: ${scalar(options.config)}
          history: auto
`;
}
