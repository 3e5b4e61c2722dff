import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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

/** check reads the judge's variables from the process's environment, as the Action sets them. */
async function checkWith(args: string[], env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  try {
    return await cli(['check', ...args], {});
  } finally {
    vi.unstubAllEnvs();
  }
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
      stdout:
        `qa: 2 questions: 0 answered in ${CACHE}, 2 recorded now, 0 unjudged\n` +
        `qa: the judge: 2 requests, 0 tokens in, 0 out, 2 answers without usage (tokens unknown), no price for ${MODEL} in claims.pricing\n`,
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
    expect(pruned.stdout.split('\n')[0]).toBe(
      `qa: 2 questions: 1 answered in ${CACHE}, 1 recorded now, 0 unjudged; pruned 1 line`,
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

  it('--dry-run sends nothing and predicts the requests the real run then makes, its estimated tokens and cost', async () => {
    const priced = GATES.replace(
      `cache: ${CACHE} }`,
      `cache: ${CACHE}, pricing: { ${MODEL}: { input: 0.15, output: 0.6 } } }`,
    );
    const dir = tmpTree({ 'gates.yaml': priced, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    const dry = await cli(['judge', '-c', config, '--dry-run'], withKey());
    expect(server.requests).toHaveLength(0);
    expect(existsSync(path.join(dir, CACHE))).toBe(false);
    expect(dry.status).toBe(0);
    const said =
      /^qa: 2 questions: 0 answered in \S+, 2 missing: (\d+) requests?; ~(\d+) tokens in \(4 characters a token\), at most (\d+) out \(8 a request\), ~\$([\d.]+) at (\S+)'s price\n$/.exec(
        dry.stdout,
      );
    expect(said, dry.stdout).not.toBeNull();

    const real = await cli(['judge', '-c', config], withKey());
    expect(real.status).toBe(0);
    expect(server.requests).toHaveLength(Number(said![1]));
    // The rule, applied here to what the server received: 3 a message and ceil(code points / 4) of its
    // content, 3 for the reply; 8 out a request (max_tokens).
    const tokensIn = server.requests
      .map((r) => 3 + r.body!.messages!.reduce((n, m) => n + 3 + Math.ceil([...m.content].length / 4), 0))
      .reduce((a, b) => a + b, 0);
    expect([Number(said![2]), Number(said![3])]).toEqual([tokensIn, 16]);
    expect(Number(said![4])).toBeCloseTo((tokensIn * 0.15 + 16 * 0.6) / 1e6, 6);
    expect(said![5]).toBe(MODEL);

    const again = await cli(['judge', '-c', config, '--dry-run'], withKey());
    expect(again.stdout).toBe(
      `qa: 2 questions: 2 answered in ${CACHE}, 0 missing: 0 requests; ~0 tokens in (4 characters a token), at most 0 out (8 a request), ~$0 at ${MODEL}'s price\n`,
    );
  });

  it('--dry-run under a call budget predicts the count the real run makes; without a key or a price it still predicts', async () => {
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(GOLD), 'traces.jsonl': jsonl(TRACES) });
    const config = path.join(dir, 'gates.yaml');
    const budget = { GROUNDGATE_JUDGE_MAX_CALLS: '1' };
    const dry = await cli(['judge', '-c', config, '--dry-run'], { GROUNDGATE_JUDGE_MODEL: MODEL, ...budget });
    expect(dry.stdout).toMatch(
      new RegExp(
        `^qa: 2 questions: 0 answered in \\S+, 2 missing: 1 request, 1 left unjudged \\(not sent: 1 calls is the budget \\(GROUNDGATE_JUDGE_MAX_CALLS\\)\\); ~\\d+ tokens in \\(4 characters a token\\), at most 8 out \\(8 a request\\); no price for ${MODEL} in claims.pricing\n$`,
      ),
    );
    expect(server.requests).toHaveLength(0);
    const real = await cli(['judge', '-c', config], { ...withKey(), ...budget });
    expect(real.status).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect((await cli(['judge', '-c', config, '--dry-run', '--prune'], withKey())).status).toBe(2);
  });

  it('a token budget stops the judge at the stated point: 250 tokens, 101 an answer, one at a time: 3 requests', async () => {
    const gold = Array.from({ length: 5 }, (_, i) => ({
      ...GOLD[1]!,
      qid: `M${i}`,
      gold_claim_substr: [`fact ${i}`],
    }));
    const traces = gold.map((g) => run(g.qid, 'Any disk works.', 'install#4'));
    const dir = tmpTree({ 'gates.yaml': GATES, 'gold.jsonl': jsonl(gold), 'traces.jsonl': jsonl(traces) });
    const config = path.join(dir, 'gates.yaml');
    server.usage = { prompt_tokens: 100, completion_tokens: 1 };
    try {
      const env = { ...withKey(), GROUNDGATE_JUDGE_MAX_TOKENS: '250', GROUNDGATE_JUDGE_CONCURRENCY: '1' };
      const r = await cli(['judge', '-c', config], env);
      expect(server.requests).toHaveLength(3);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe(
        `qa: 5 questions: 0 answered in ${CACHE}, 3 recorded now, 2 unjudged\n` +
          `qa: the judge: 3 requests, 300 tokens in, 3 out, no price for ${MODEL} in claims.pricing\n`,
      );
      expect(r.stderr).toBe(
        'groundgate: qa: 2 unjudged (budget: not sent: 250 tokens is the budget (GROUNDGATE_JUDGE_MAX_TOKENS); 303 counted); run groundgate judge again to ask them\n',
      );
    } finally {
      server.usage = null;
    }
  });

  it("check reports the judge's usage in report.json and the comment: tokens, and the cost at claims.pricing", async () => {
    const priced = GATES.replace(`cache: ${CACHE} }`, `cache: ${CACHE}, pricing: prices.yaml }`);
    const dir = tmpTree({
      'gates.yaml': priced,
      'prices.yaml': `${MODEL}:\n  input: 0.15\n  output: 0.6\n`,
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES),
    });
    const config = path.join(dir, 'gates.yaml');
    server.usage = { prompt_tokens: 100, completion_tokens: 2 };
    try {
      const out = path.join(dir, 'report.json');
      const r = await checkWith(['-c', config, '--report', out, '--format', 'markdown'], withKey());
      expect(r.status).toBe(0);
      const qa = (JSON.parse(readFileSync(out, 'utf8')) as Report).suites.qa!;
      // 2 answers of 100 + 2 tokens: (200 × 0.15 + 4 × 0.6) / 1e6 = 0.0000324 USD.
      expect(qa.judge).toEqual({
        model: MODEL,
        requests: 2,
        tokens_in: 200,
        tokens_out: 4,
        without_usage: 0,
        cost_usd: 0.0000324,
      });
      expect(r.stdout).toContain(
        `**Judge** (\`${MODEL}\`): 2 requests · 200 tokens in · 4 out · $0.000032\n`,
      );
    } finally {
      server.usage = null;
    }
    // Every judgment now in the file: nothing asked, nothing spent.
    const again = await checkWith(['-c', config, '--format', 'json'], withKey());
    expect((JSON.parse(again.stdout) as Report).suites.qa!.judge).toEqual({
      model: MODEL,
      requests: 0,
      tokens_in: 0,
      tokens_out: 0,
      without_usage: 0,
      cost_usd: 0,
    });
  });

  it('a bad price file is a one-line input error naming file:line; a cost budget without a price is refused before any request', async () => {
    const dir = tmpTree({
      'gates.yaml': GATES.replace(`cache: ${CACHE} }`, `cache: ${CACHE}, pricing: prices.yaml }`),
      'prices.yaml': `${MODEL}:\n  input: 0.15\n  output: -1\n`,
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES),
    });
    const config = path.join(dir, 'gates.yaml');
    const bad = await cli(['judge', '-c', config, '--dry-run'], withKey());
    expect([bad.status, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toMatch(
      new RegExp(
        `^groundgate: ${path.join(dir, 'prices.yaml')}:3:11: field "${MODEL}.output": .*\\(a price table \\{<model>: \\{input, output\\}\\} in USD per million tokens\\)\n$`,
      ),
    );
    writeFileSync(path.join(dir, 'prices.yaml'), `other-model-2024-01-01: { input: 1, output: 2 }\n`);
    const env = { ...withKey(), GROUNDGATE_JUDGE_MAX_COST_USD: '0.5' };
    for (const args of [
      ['judge', '-c', config],
      ['judge', '-c', config, '--dry-run'],
      ['check', '-c', config],
    ]) {
      const r = args[0] === 'check' ? await checkWith(args.slice(1), env) : await cli(args, env);
      expect([r.status, r.stderr]).toEqual([
        2,
        `groundgate: GROUNDGATE_JUDGE_MAX_COST_USD is set, but claims.pricing has no price for ${MODEL}; expected its price (USD per million tokens) in claims.pricing, or GROUNDGATE_JUDGE_MAX_TOKENS instead\n`,
      ]);
    }
    expect(server.requests).toHaveLength(0);
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
      stdout:
        `qa: 2 questions: 0 answered in ${CACHE}, 2 recorded now, 0 unjudged\n` +
        `qa: the judge: 2 requests, 0 tokens in, 0 out, 2 answers without usage (tokens unknown), no price for ${MODEL} in claims.pricing\n`,
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
