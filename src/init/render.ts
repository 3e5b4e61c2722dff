import { ACTION_REPOSITORY, VERSION } from '../version.js';
import type { Calibrated } from './calibrate.js';
import type { Proposal } from './plan.js';

/** The actions the workflows use, pinned to a commit (a tag can be moved; a sha cannot), the tag beside. */
export const PINNED = {
  checkout: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0',
  uploadArtifact: 'actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2',
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
    for (const [key, value] of Object.entries(p.settings ?? {}))
      out.push(
        `    ${key}: ${typeof value === 'string' ? scalar(value) : value}${key === 'scu' ? ' # the gold locks constraints: check their echo and contradictions' : ''}`,
      );
    for (const line of s.extra ?? []) out.push(`    ${line}`);
    if (s.gates.length === 0) {
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
    }
    for (const why of s.skipped) out.push(`    # not gated: ${comment(why)}`);
  }
  return out.join('\n') + '\n';
}

export interface WorkflowOptions {
  branch: string;
  release: boolean;
  config: string;
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
      # Run your pipeline here, so that it writes the traces ${options.config} points at.
      - id: gate
        uses: ${ACTION_REPOSITORY}@v${VERSION}
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

/** Comments on pull requests from forks, whose own run has a read-only token; checks nothing out. */
export function renderCommentWorkflow(options: WorkflowOptions): string {
  return `# groundgate comment: posts the report of a fork's pull-request run as the sticky comment. It runs with
# this repository's token and checks nothing out: the fork's code never runs here.
name: groundgate comment
on:
  workflow_run:
    workflows: [groundgate]
    types: [completed]
permissions:
  actions: read # the triggering run's report artifact
  pull-requests: write # the sticky comment
jobs:
  comment:
    if: github.event.workflow_run.event == 'pull_request' && github.event.workflow_run.head_repository.full_name != github.repository
    runs-on: ubuntu-latest
    steps:
      - uses: ${ACTION_REPOSITORY}@v${VERSION}
        with:
          mode: comment
          config: ${scalar(options.config)}
          history: auto
`;
}
