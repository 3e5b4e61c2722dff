import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportSchema } from '../src/report/schema.js';
import { runCli } from './helpers/process.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

const gold = (qid: string) => ({
  qid,
  question: 'q',
  answerable: true,
  gold_claim_substr: ['alpha beta'],
  gold_citations: ['d1'],
});
const trace = (qid: string, claim = 'alpha beta') => ({
  qid,
  retrieved_ids: ['d1'],
  answer_json: { claim, citations: ['d1'] },
});
const config = (gates = '      precision: ">= 0.8"\n') =>
  `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold.jsonl\n    traces: traces.jsonl\n    gates:\n${gates}`;

describe('groundgate CLI (dist/cli/index.js as a process)', () => {
  // The repo example's qa suite; other suites in gates.yaml have tests of their own.
  it('exits 0 on the repo example and prints the table and the verdict', () => {
    const r = runCli(['--suite', 'qa']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^qa \(grounded-qa\) — gold 47, answerable 35, unanswerable 12, traced 47/);
    expect(r.stdout).toMatch(/precision\s+0\.9091\s+30\/33\s+>= 0\.8\s+pass/);
    expect(r.stdout).toMatch(/PASS — 7 of 8 gates passed, 1 skipped\n$/);
  });

  it('prints nothing with --quiet when the gates pass', () => {
    const r = runCli(['--quiet']);
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('exits 1 on the regressed traces and lists offenders, most severe first', () => {
    const r = runCli([
      '--suite',
      'qa',
      '--input',
      'qa.traces=runs/qa-regressed.trace.jsonl',
      '--offenders',
      '3',
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('top offenders (3 of 22):');
    expect(r.stdout.match(/^ {2}(FM\d+) {2}(\S+)/gm)).toEqual([
      '  FM004  under_refusal',
      '  FM028  under_refusal',
      '  FM044  under_refusal',
    ]);
    expect(r.stdout).toMatch(/FAIL — 7 of 8 gates failed, 1 skipped\n/);
    expect(r.stdout).toContain('✗ qa.scu_violations = 2, wanted == 0');
  });

  it('exits 2 with file:line for a malformed trace line, and no stack trace', () => {
    const dir = tmpTree({
      'gates.yaml': config(),
      'gold.jsonl': jsonl([gold('A')]),
      'traces.jsonl': `${JSON.stringify(trace('A'))}\n{"qid": "A", "retrieved_ids": [}\n`,
    });
    const r = runCli([], dir);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `groundgate: traces.jsonl:2:32: invalid JSON: unexpected token '}'; expected one JSON value per line\n`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 and suggests the right name for a misspelt metric', () => {
    const dir = tmpTree({
      'gates.yaml': config('      precison: ">= 0.8"\n'),
      'gold.jsonl': jsonl([gold('A')]),
      'traces.jsonl': '',
    });
    const r = runCli([], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^groundgate: gates\.yaml:8:7: suite "qa": unknown metric "precison" for kind grounded-qa; did you mean "precision"\?; expected one of /,
    );
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('exits 2 for usage errors, missing files and a missing config', () => {
    expect(runCli(['--format', 'yaml'])).toMatchObject({
      status: 2,
      stderr:
        'groundgate: --format "yaml": expected one of text, json, markdown, junit, html (see groundgate check --help)\n',
    });
    expect(runCli(['--bogus'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(
        /^groundgate: unknown option "--bogus" \(see groundgate check --help\)\n$/,
      ),
    });
    expect(runCli(['--suite', 'qaa'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('unknown suite "qaa"; did you mean "qa"?'),
    });
    expect(runCli(['--input', 'qa.trace=x.jsonl'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--input trace: not an input of qa; did you mean "traces"?'),
    });
    expect(runCli(['--input', 'qa.traces=nope.jsonl'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--input qa.traces: file not found: "nope.jsonl"'),
    });
    const empty = tmpTree({});
    expect(runCli([], empty)).toMatchObject({
      status: 2,
      stderr:
        'groundgate: gates.yaml: config file not found; pass --config PATH, or run "groundgate init" to write one calibrated from the data in the repository\n',
    });
  });

  it('prints help and version', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    expect(runCli(['--version'])).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
    expect(runCli(['--help']).stdout).toMatch(
      /^Usage: groundgate \[command\] \[options\]\n\nCommands:\n {2}check +score the suites/,
    );
    expect(runCli(['check', '--help']).stdout).toMatch(/^Usage: groundgate \[check\] \[options\]/);
    expect(runCli(['chek'])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(
        /^groundgate: unknown command "chek"; did you mean "check"\?; expected one of check/,
      ),
    });
    expect(runCli(['check', '--quiet'])).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('writes a report.json that follows the contract and a JUnit file', () => {
    const dir = tmpTree({});
    const r = runCli([
      '--suite',
      'qa',
      '--format',
      'junit',
      '--out',
      path.join(dir, 'junit.xml'),
      '--report',
      path.join(dir, 'report.json'),
    ]);
    // Every format went to a file: the verdict line is all stdout holds.
    expect(r).toMatchObject({ status: 0, stdout: 'PASS — 7 of 8 gates passed, 1 skipped\n' });
    const report = reportSchema.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));
    expect(report.suites.qa!.metrics['recall@5']).toMatchObject({
      value: 32 / 35,
      numerator: 32,
      denominator: 35,
    });
    const xml = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(xml).toContain('<testsuites name="groundgate" tests="8" failures="0">');
    expect(xml).toContain(
      '<testcase classname="qa" name="recall@5 drop ≤ 0.02"><skipped message="no baseline report given"/></testcase>',
    );
  });

  it('writes text to stdout, HTML and JUnit to files in one check, and the verdict beside -o report.html alone', () => {
    const dir = tmpTree({});
    const [html, junit] = [path.join(dir, 'report.html'), path.join(dir, 'out', 'junit.xml')];
    const r = runCli([
      '--suite',
      'qa',
      '--format',
      'text',
      '--format',
      `html=${html}`,
      '-f',
      `junit=${junit}`,
    ]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^qa \(grounded-qa\) — gold 47, answerable 35, unanswerable 12, traced 47/);
    expect(r.stdout).toMatch(/\nPASS — 7 of 8 gates passed, 1 skipped\n$/);
    expect(readFileSync(html, 'utf8')).toContain('PASS — 7 of 8 gates passed, 1 skipped');
    expect(readFileSync(junit, 'utf8')).toContain('<testsuites name="groundgate" tests="8" failures="0">');

    // Beside files only, the verdict is all stdout holds (the suites' warnings, if any, go to stderr).
    const alone = runCli(['--suite', 'qa', '--format', 'html', '-o', path.join(dir, 'alone.html')]);
    expect([alone.status, alone.stdout]).toEqual([0, 'PASS — 7 of 8 gates passed, 1 skipped\n']);
    expect(alone.stderr).not.toMatch(/PASS/);
    // JSON on stdout stays JSON; the verdict goes to stderr, last.
    const json = runCli(['--suite', 'qa', '--format', 'json', '--format', `junit=${junit}`]);
    expect(JSON.parse(json.stdout).verdict).toBe('pass');
    expect(json.stderr).toMatch(/(?:^|\n)groundgate: PASS — 7 of 8 gates passed, 1 skipped\n$/);
    expect(runCli(['--format', 'text', '--format', 'json'])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: expect.stringMatching(
        /^groundgate: --format text and --format json: both would write to stdout;/,
      ),
    });
  });
});

describe('determinism', () => {
  it('gives byte-identical report.json across runs and when trace lines of different qids are shuffled', () => {
    const lines = readFileSync(path.join(REPO, 'runs/qa-regressed.trace.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    // Reverse, then interleave: every qid's own lines keep their relative order (that order is data).
    const byQid = new Map<string, string[]>();
    for (const l of lines) {
      const q = JSON.parse(l).qid as string;
      byQid.set(q, [...(byQid.get(q) ?? []), l]);
    }
    const shuffled: string[] = [];
    const queues = [...byQid.values()].reverse();
    while (queues.some((q) => q.length)) for (const q of queues) if (q.length) shuffled.push(q.shift()!);
    expect(shuffled).not.toEqual(lines);

    const dir = tmpTree({ 'shuffled.jsonl': shuffled.join('\n') + '\n' });
    const scored = (name: string, traces: string, ...more: string[]) => {
      const r = runCli([
        '--suite',
        'qa',
        '--format',
        'json',
        '--report',
        path.join(dir, name),
        '--input',
        `qa.traces=${traces}`,
        ...more,
      ]);
      expect(r.status).toBe(1);
      return readFileSync(path.join(dir, name));
    };
    const a = scored('a.json', 'runs/qa-regressed.trace.jsonl');
    const b = scored('b.json', 'runs/qa-regressed.trace.jsonl');
    const c = scored('c.json', path.join(dir, 'shuffled.jsonl'), '--allow-outside-workspace');
    // The file itself, not what stdout shows of it: report.json is what a baseline compares against.
    expect(a.length).toBeGreaterThan(1000);
    expect(b.equals(a)).toBe(true);
    // Only the trace file name differs; everything scored is identical to the byte.
    const normalize = (s: Buffer) =>
      s.toString('utf8').replaceAll(/"[^"]*(?:qa-regressed\.trace|shuffled)\.jsonl(:\d+)?"/g, '"TRACE"');
    expect(normalize(c)).toBe(normalize(a));
    expect(normalize(c)).toContain('"TRACE"');
  });
});

describe('--baseline (dist/cli/index.js)', () => {
  it('exits 2 with one line for a baseline that is missing, not JSON, or not a report; never drops max_drop silently', () => {
    const dir = tmpTree({ 'text.json': '{"schema_version": "1", ', 'old.json': '{"schema_version": "0"}' });
    for (const [file, message] of [
      ['missing.json', 'baseline not found; expected a report.json written by groundgate'],
      ['text.json', 'baseline is not JSON ('],
      ['old.json', 'baseline is not a groundgate report: schema_version: expected "1" (found "0")'],
    ]) {
      const r = runCli(['--suite', 'qa', '--baseline', path.join(dir, file!)]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^groundgate: [^\\n]*${file!.replace('.', '\\.')}: ${message!.replace(/[()."]/g, '\\$&')}[^\\n]*\\n$`,
        ),
      );
    }
    // Without --baseline, the max_drop gate is there, marked skipped.
    const none = runCli(['--suite', 'qa']);
    expect(none.stdout).toMatch(/\n {39}drop ≤ 0\.02 {2}skip \(no baseline report given\)\n/);
  });
});

describe('input that is not UTF-8', () => {
  it('is read with U+FFFD and said once per file, with its first such line: gold in the report, gates.yaml on stderr', () => {
    const dir = tmpTree({ 'traces.jsonl': jsonl([trace('A'), trace('B')]) });
    writeFileSync(
      path.join(dir, 'gold.jsonl'),
      Buffer.concat([
        Buffer.from(`${JSON.stringify(gold('A'))}\n`),
        Buffer.from([0xfe, 0x0a]),
        Buffer.from(`${JSON.stringify(gold('B'))}\n`),
      ]),
    );
    writeFileSync(
      path.join(dir, 'gates.yaml'),
      Buffer.concat([Buffer.from('# \xe9\n', 'latin1'), Buffer.from(config())]),
    );
    const r = runCli(['--report', 'r.json'], dir);
    expect(r.status).toBe(2); // the line with the bad byte is not JSON either
    expect(r.stderr).toMatch(/^groundgate: gold\.jsonl:2:1: invalid JSON/);

    writeFileSync(
      path.join(dir, 'gold.jsonl'),
      Buffer.concat([
        Buffer.from(`${JSON.stringify(gold('A'))}\n`),
        Buffer.from(
          `${JSON.stringify({ ...gold('B'), question: 'caf\u00e9' })}\n`.replace('é', '\u0000'),
        ).map((b) => (b === 0 ? 0xe9 : b)),
      ]),
    );
    const ok = runCli(['--report', 'r.json'], dir);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe(
      'groundgate: warning: gates.yaml:1: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes (first such line; expected UTF-8 text)\n',
    );
    const warning =
      'gold.jsonl:2: not valid UTF-8; read with U+FFFD (�) in place of the bad bytes (first such line; expected UTF-8 text)';
    expect(ok.stdout).toContain(`  warning: ${warning}\n`);
    // precision 2/2 has the Wilson interval [0.3424, 1]: the gate's 0.8 lies inside it.
    // The CLI runs from a copy outside the project: the doc is named by the package, not by a machine path.
    expect(JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')).suites.qa.warnings).toEqual([
      "gate precision >= 0.8 lies inside today's 95% interval [0.3424, 1.0000] of 2/2: it can pass or fail on noise alone; add a paired gate (max_new_failures) or more gold items (groundgate's docs/statistics.md)",
      warning,
    ]);
  });
});
