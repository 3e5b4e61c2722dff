import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { JudgeServer } from './helpers/judge-server.js';
import type { Report } from '../src/report/schema.js';
import { runCli } from './helpers/process.js';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

/* `groundgate judge [--prune]` in process, the judge a stand-in server on 127.0.0.1 (see judge-server.ts). */
const GOLD = [
  {
    qid: 'Q1',
    question: 'Which port do clients use?',
    answerable: true,
    gold_claim_substr: ['port 7420'],
    gold_citations: ['install#5'],
  },
  {
    qid: 'Q2',
    question: 'Where must the data live?',
    answerable: true,
    gold_claim_substr: ['local filesystem'],
    gold_citations: ['install#4'],
  },
  {
    qid: 'Q3',
    question: 'How long can a key be?',
    answerable: true,
    gold_claim_substr: ['512 bytes'],
    gold_citations: ['keys#2'],
  },
];
const run = (qid: string, claim: string, cited: string) => ({
  qid,
  retrieved_ids: [cited],
  answer_json: { claim, citations: [cited] },
});
const TRACES = [
  run('Q1', 'Clients connect to 7420 over TCP.', 'install#5'),
  run('Q2', 'Any disk works.', 'install#4'),
  run('Q3', 'A key is at most 512 bytes long.', 'keys#2'),
];
const CACHE = '.groundgate/judgments.jsonl';
const GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold.jsonl
    traces: traces.jsonl
    claims: { match: semantic, cache: ${CACHE} }
    gates:
      precision: '>= 0.6'
`;

const server = new JudgeServer();
beforeAll(async () => {
  await server.start();
  server.label('Clients connect to 7420 over TCP.', 'port 7420', 'SUPPORTED');
});
afterAll(() => server.stop());
beforeEach(() => {
  server.requests = [];
});

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const status = await main(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
    env,
  });
  return { status, stdout, stderr };
}

const MODEL = 'stand-in-judge-2026-11-28';
const withKey = () => ({
  GROUNDGATE_JUDGE_MODEL: MODEL,
  GROUNDGATE_JUDGE_BASE_URL: server.baseUrl,
  GROUNDGATE_JUDGE_API_KEY: 'sk-test',
});

describe('groundgate judge', () => {
  it('records the missing judgments without gating, then finds them all', async () => {
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    const first = await cli(['judge', '-c', config], withKey());
    expect(first).toEqual({
      status: 0,
      stdout: `qa: 2 questions: 0 answered in ${CACHE}, 2 recorded now, 0 unjudged\n`,
      stderr: '',
    });
    expect(server.requests).toHaveLength(2);
    const lines = readFileSync(path.join(dir, CACHE), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => (JSON.parse(l) as { verdict: string }).verdict).sort()).toEqual([
      'NOT_SUPPORTED',
      'SUPPORTED',
    ]);

    const again = await cli(['judge', '-c', config], withKey());
    expect(again.stdout).toBe(`qa: 2 questions: 2 answered in ${CACHE}, 0 recorded now, 0 unjudged\n`);
    expect(server.requests).toHaveLength(2);
  });

  it('--prune drops the lines no question refers to any more', async () => {
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    await cli(['judge', '-c', config], withKey());
    const before = readFileSync(path.join(dir, CACHE), 'utf8');
    writeFileSync(
      path.join(dir, 'traces.jsonl'),
      jsonl([TRACES[0], run('Q2', 'It must be a local disk.', 'install#4'), TRACES[2]]),
    );
    const pruned = await cli(['judge', '-c', config, '--prune'], withKey());
    expect(pruned.stdout).toBe(
      `qa: 2 questions: 1 answered in ${CACHE}, 1 recorded now, 0 unjudged; pruned 1 line\n`,
    );
    const after = readFileSync(path.join(dir, CACHE), 'utf8').trimEnd().split('\n');
    expect(after).toHaveLength(2);
    // Q1's line is kept as it was; Q2's old claim's line is gone.
    const q1 = before.split('\n').find((l) => l.includes('"SUPPORTED"'))!;
    expect(after).toContain(q1);
  });

  it('without a key: the questions stay unjudged, exit 1; without a model: exit 2', async () => {
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    const noKey = await cli(['judge', '-c', config], { GROUNDGATE_JUDGE_MODEL: MODEL });
    expect(noKey.status).toBe(1);
    expect(noKey.stdout).toBe(`qa: 2 questions: 0 answered in ${CACHE}, 0 recorded now, 2 unjudged\n`);
    expect(noKey.stderr).toBe(
      'groundgate: qa: 2 unjudged (no GROUNDGATE_JUDGE_API_KEY); run groundgate judge again to ask them\n',
    );
    const noModel = await cli(['judge', '-c', config], {});
    expect(noModel.status).toBe(2);
    expect(noModel.stderr).toMatch(/^groundgate: GROUNDGATE_JUDGE_MODEL is not set; expected the model/);
    expect(server.requests).toHaveLength(0);
  });

  it('a FIFO or a folder as claims.cache or claims.labels is a one-line input error, exit 2, not a hang', async () => {
    const withLabels = GATES.replace(`cache: ${CACHE} }`, `cache: ${CACHE}, labels: labels.jsonl }`);
    const dir = tmpTree({
      'gates.yaml': withLabels,
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES),
    });
    const config = path.join(dir, 'gates.yaml');
    mkdirSync(path.join(dir, '.groundgate'));
    execFileSync('mkfifo', [path.join(dir, CACHE)]);
    for (const command of ['check', 'judge']) {
      const r = await cli([command, '-c', config], withKey());
      expect([r.status, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `groundgate: ${path.join(dir, CACHE)}: claims.cache is not a file (a FIFO)\n`,
      ]);
    }
    execFileSync('rm', [path.join(dir, CACHE)]);
    mkdirSync(path.join(dir, CACHE));
    const folder = await cli(['check', '-c', config], {});
    expect([folder.status, folder.stderr]).toEqual([
      2,
      `groundgate: ${path.join(dir, CACHE)}: claims.cache is not a file (a folder)\n`,
    ]);
    execFileSync('rmdir', [path.join(dir, CACHE)]);
    execFileSync('mkfifo', [path.join(dir, 'labels.jsonl')]);
    const labels = await cli(['check', '-c', config], withKey());
    expect([labels.status, labels.stderr]).toEqual([
      2,
      `groundgate: ${path.join(dir, 'labels.jsonl')}: claims.labels is not a file (a FIFO)\n`,
    ]);
  });

  it('refuses a config without a semantic suite', async () => {
    const dir = tmpTree({
      'gates.yaml': GATES.replace(/ {4}claims: .*\n/, ''),
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES),
    });
    const r = await cli(['judge', '-c', path.join(dir, 'gates.yaml')], withKey());
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no selected suite has claims: \{match: semantic\}/);
  });
});

describe('groundgate judge and check as processes (dist/cli)', () => {
  /** The bundled CLI, asynchronously: the stand-in server answers in this process meanwhile. */
  const cliProcess = (args: string[], env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(REPO, 'dist', 'cli', 'index.js'), ...args],
        { env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });

  it('records with the key, then checks with no GROUNDGATE_JUDGE_* at all: the judged claim is a hit', async () => {
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    const judged = await cliProcess(['judge', '-c', config], withKey());
    expect(judged).toEqual({
      code: 0,
      stdout: `qa: 2 questions: 0 answered in ${CACHE}, 2 recorded now, 0 unjudged\n`,
      stderr: '',
    });
    // The file records the model asked: a run without the judge's environment reads it under that model.
    const checked = await cliProcess(['check', '-c', config, '--format', 'json'], {});
    expect(checked.code).toBe(0);
    const qa = (JSON.parse(checked.stdout) as Report).suites.qa!;
    // Q1 judged SUPPORTED, Q3 a substring hit: 2 of 3; Q2 stays a claim miss.
    expect(qa.metrics.precision).toMatchObject({ numerator: 2, denominator: 3 });
    expect(qa.counts).toMatchObject({ judge_rescues: 1, unjudged_items: 0, new_judgments: 0 });
    expect(server.requests).toHaveLength(2);
  });

  it('no piece of the key the endpoint echoes reaches stdout, stderr, report.json, the comment or the HTML', async () => {
    const KEY = 'sk-SECRETQZXJWV6789';
    const leaky = await new JudgeServer().start();
    try {
      const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
      const env = {
        GROUNDGATE_JUDGE_MODEL: MODEL,
        GROUNDGATE_JUDGE_BASE_URL: leaky.baseUrl,
        GROUNDGATE_JUDGE_API_KEY: KEY,
        GROUNDGATE_JUDGE_BUDGET_MS: '5000',
      };
      const outputs = ['report.json', 'comment.md', 'report.html'];
      const formats = ['json', 'markdown', 'html'].map((f, i) => [
        '-f',
        `${f}=${path.join(dir, outputs[i]!)}`,
      ]);
      const check = async () => {
        const r = await cliProcess(['check', '-c', path.join(dir, 'gates.yaml'), ...formats.flat()], env);
        const files = outputs.map((f) => readFileSync(path.join(dir, f), 'utf8'));
        return [r.stdout, r.stderr, ...files].join('\n');
      };
      const shown: string[] = [];
      // A 429 echoing the key in a header and, cut, in its message (its wait past the budget: unjudged at
      // once), and a 400 echoing the whole key in its body.
      leaky.failures = [
        {
          status: 429,
          headers: { 'retry-after': '120', 'x-echo': `Bearer ${KEY}` },
          body: { error: { message: `Rate limit reached for sk-SECRETQZX in organization org-1` } },
        },
        { status: 400, body: `{"error": {"message": "Invalid body sent with ${KEY}"}}` },
      ];
      shown.push(await check());
      // OpenAI's 401: the key's first 8 and last 4 characters.
      leaky.failures = [
        {
          status: 401,
          body: {
            error: {
              message:
                'Incorrect API key provided: sk-SECRE**********6789. You can find your API key at https://platform.openai.com/account/api-keys.',
            },
          },
        },
      ];
      shown.push(await check());
      leaky.failures = [
        { status: 302, headers: { location: `https://login.example/auth?api_key=${KEY}&next=%2F` } },
      ];
      shown.push(await check());
      leaky.failures = [
        { status: 302, headers: { location: `https://login.example/auth?api_key=${KEY}&next=%2F` } },
      ];
      const judged = await cliProcess(['judge', '-c', path.join(dir, 'gates.yaml')], env);
      shown.push(judged.stdout, judged.stderr);
      const all = shown.join('\n');
      // Each run reached the terminal and the reports with what the endpoint said, redacted.
      expect(shown[0]).toContain(
        'HTTP 429: Rate limit reached for *** in organization org-1 (asks to wait 120 s',
      );
      expect(shown[0]).toContain('HTTP 400: Invalid body sent with ***');
      expect(shown[1]).toContain(
        // Both ends masked; the stars between them were the endpoint's.
        `HTTP 401: Incorrect API key provided: ***${'*'.repeat(10)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
      );
      expect(shown[2]).toContain('HTTP 302: redirects to https://login.example/auth, not followed');
      expect(judged.stderr).toContain('HTTP 302: redirects to https://login.example/auth, not followed');
      for (let i = 0; i + 4 <= KEY.length; i++) expect(all).not.toContain(KEY.slice(i, i + 4));
      expect(all).not.toContain('api_key');
    } finally {
      await leaky.stop();
    }
  });

  it("prints the example's agreement tables, with or without GROUNDGATE_JUDGE_MODEL", () => {
    const r = runCli(['check', '-c', 'examples/semantic/gates.yaml'], REPO, {
      GROUNDGATE_JUDGE_MODEL: 'stand-in-label-table-v1',
    });
    expect(runCli(['check', '-c', 'examples/semantic/gates.yaml'], REPO, {}).stdout).toBe(r.stdout);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      [
        '    raters                  items  agreement  kappa',
        // FM001 ("512 B") is matched by the normalized rule since #54: 22 items, 10 and 20 agreeing
        // (test/example-semantic.test.ts works the kappas out: 48/312 and 100/144).
        '    deterministic vs judge  22     0.4545     0.1538',
        '    judge vs human          22     0.9091     0.6944',
      ].join('\n'),
    );
  });
});
