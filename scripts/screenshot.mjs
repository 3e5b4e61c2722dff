// Regenerates docs/report-screenshot.png: the HTML report of the example's regressed run, compared with
// the passing run as baseline, with a short history. Needs Debian's chromium (/usr/bin/chromium).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const tmp = mkdtempSync(path.join(tmpdir(), 'groundgate-shot-'));
const cli = (...args) => spawnSync(process.execPath, ['dist/cli/index.js', ...args], { encoding: 'utf8' });
const regressed = ['--input', 'qa.traces=runs/qa-regressed.trace.jsonl'];

cli('--suite', 'qa', '--report', `${tmp}/pass.json`, '-q');
cli('--suite', 'qa', ...regressed, '--report', `${tmp}/fail.json`, '-q');
for (const [label, report] of [
  ['run-1', 'pass'],
  ['run-2', 'pass'],
  ['run-3', 'fail'],
  ['run-4', 'pass'],
]) {
  cli('history', 'append', `${tmp}/${report}.json`, '--file', `${tmp}/history.jsonl`, '--label', label);
}
cli(
  '--suite',
  'qa',
  ...regressed,
  '--baseline',
  `${tmp}/pass.json`,
  '--history',
  `${tmp}/history.jsonl`,
  '--format',
  'html',
  '--out',
  `${tmp}/report.html`,
);
execFileSync(
  '/usr/bin/chromium',
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${tmp}/profile`,
    '--hide-scrollbars',
    '--window-size=1280,1500',
    `--screenshot=${path.resolve('docs/report-screenshot.png')}`,
    `file://${tmp}/report.html`,
  ],
  { stdio: 'ignore' },
);
console.log('wrote docs/report-screenshot.png');
