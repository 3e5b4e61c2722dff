import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonl, REPO, tmpTree } from './helpers/tmp.js';

// The "Done when" (#45): the tarball `npm pack` makes, installed into a fresh project that keeps its
// data in its own shape, then `init --yes` and `check` there, as the README's quick start says. It packs the
// working tree, so it runs dist/ as committed (npm run bundle), not src/.

/** A private npm cache: --offline must find nothing it could have fetched before. */
const cache = mkdtempSync(path.join(tmpdir(), 'groundgate-npm-cache-'));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NO_COLOR: '1',
  npm_config_cache: cache,
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
function sh(cwd: string, cmd: string, ...args: string[]) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const DOCS = ['install', 'limits', 'auth', 'backup', 'metrics'];
const UNANSWERABLE = [16, 17, 18, 19, 20];

/**
 * A small RAG project's evaluation data: 20 gold questions in the canonical gold shape, 16-20 unanswerable,
 * and its pipeline's traces as it logs them — an id, the answer as response.text with its sources, what it
 * retrieved as a list of objects, latency in seconds. Unanswerable questions are answered "I don't know.";
 * `answered` lists those that instead get a made-up claim citing a retrieved document.
 */
function traces(answered: readonly number[] = []) {
  return Array.from({ length: 20 }, (_, k) => {
    const i = k + 1;
    const doc = `${DOCS[i % 5]}#${i}`;
    const unanswerable = UNANSWERABLE.includes(i);
    const text = !unanswerable
      ? `Setting ${i} defaults to ${i * 30} seconds.`
      : answered.includes(i)
        ? `Setting ${i} is limited to ${i * 1000} entries.`
        : "I don't know.";
    return {
      id: `S${String(i).padStart(2, '0')}`,
      question: `What does setting ${i} default to?`,
      response: { text, sources: unanswerable && !answered.includes(i) ? [] : [doc] },
      contexts: [
        { doc_id: doc, score: 0.82 },
        { doc_id: `${DOCS[(i + 1) % 5]}#${i + 1}`, score: 0.41 },
      ],
      latency_s: 0.4 + i / 50,
    };
  });
}
const gold = Array.from({ length: 20 }, (_, k) => {
  const i = k + 1;
  const answerable = !UNANSWERABLE.includes(i);
  return {
    qid: `S${String(i).padStart(2, '0')}`,
    question: `What does setting ${i} default to?`,
    answerable,
    gold_claim_substr: answerable ? [`${i * 30} seconds`] : [],
    gold_citations: answerable ? [`${DOCS[i % 5]}#${i}`] : [],
  };
});

describe('the packed tarball, installed in a fresh project', () => {
  it('installs offline with nothing beside it, and init --yes, check and a regressed check work there', () => {
    const packDir = mkdtempSync(path.join(tmpdir(), 'groundgate-pack-'));
    const pack = sh(REPO, 'npm', 'pack', '--ignore-scripts', '--json', '--pack-destination', packDir);
    expect(pack.status).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path);
    for (const f of ['action.yml', 'dist/index.js', 'dist/cli/index.js', 'dist/wasm/web-tree-sitter.wasm'])
      expect(files).toContain(f);
    // Every doc a message, the README or action.yml points to travels with the package.
    const named = new Set(
      [
        ...readdirSync(path.join(REPO, 'src'), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.ts'))
          .map((f) => path.join('src', f)),
        'README.md',
        'action.yml',
      ].flatMap(
        (f) =>
          readFileSync(path.join(REPO, f), 'utf8').match(/\bdocs\/[\w.-]+\.\w+|\bBENCHMARKS\.md\b/g) ?? [],
      ),
    );
    expect(named.size).toBeGreaterThanOrEqual(7);
    expect(files).toEqual(expect.arrayContaining([...named]));
    const tarball = path.join(packDir, packed!.filename);

    const dir = tmpTree({
      'package.json': JSON.stringify({ name: 'rag-app', version: '1.0.0', private: true }),
      'eval/gold.jsonl': jsonl(gold),
      'eval/runs.jsonl': jsonl(traces()),
    });
    const install = sh(dir, 'npm', 'install', '--offline', '--save-dev', tarball);
    expect(install.status).toBe(0);
    // No engine warning, no install script to approve, no dependency: the package alone.
    expect(install.stderr).toBe('');
    expect(install.stdout).toMatch(/^added 1 package in /m);
    expect(readdirSync(path.join(dir, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual([
      'groundgate',
    ]);

    const init = sh(dir, 'npx', '--no-install', 'groundgate', 'init', '--yes');
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain(
      'note: package.json of groundgate names no repository: the workflow runs the copy installed by npm ci (uses: ./node_modules/groundgate)\n',
    );
    const workflow = readFileSync(path.join(dir, '.github/workflows/groundgate.yml'), 'utf8');
    expect(workflow).toContain('        uses: ./node_modules/groundgate\n');
    const qa = (
      parse(readFileSync(path.join(dir, 'gates.yaml'), 'utf8')) as {
        suites: Record<
          string,
          { fields: { traces: Record<string, unknown> }; gates: Record<string, unknown> }
        >;
      }
    ).suites.qa!;
    // The traces read through the mapping init proposed (H2), latency in seconds scaled to milliseconds.
    expect(qa.fields.traces).toMatchObject({
      '/qid': '/id',
      '/retrieved_ids': '/contexts/*/doc_id',
      '/answer_json/claim': '/response/text',
      '/latency_ms': { from: '/latency_s', scale: 1000 },
    });
    // 5 unanswerable items: no level gate can see 2 of them go wrong; the paired gate can (H3).
    expect(qa.gates.under_refusal).toEqual({ max_new_failures: 1 });

    const base = sh(dir, 'npx', '--no-install', 'groundgate', 'check', '--report', 'base.json');
    expect(base.stderr).toBe('');
    expect(base.status).toBe(0);

    // Two of the five unanswerable questions answered with a made-up claim.
    writeFileSync(path.join(dir, 'eval/runs.regressed.jsonl'), jsonl(traces([17, 19])));
    const regressed = sh(
      dir,
      'npx',
      '--no-install',
      'groundgate',
      'check',
      '--input',
      'qa.traces=eval/runs.regressed.jsonl',
      '--baseline',
      'base.json',
      '--report',
      'regressed.json',
    );
    expect(regressed.status).toBe(1);
    const report = JSON.parse(readFileSync(path.join(dir, 'regressed.json'), 'utf8')) as {
      suites: { qa: { metrics: Record<string, { numerator?: number; denominator?: number }> } };
      gates: { suite: string; metric: string; op: string; passed: boolean; reason?: string }[];
    };
    // under_refusal 2/5 = 0.40: below the 0.4345 a level gate at the Wilson bound of 0/5 would have allowed.
    expect(report.suites.qa.metrics.under_refusal).toMatchObject({ numerator: 2, denominator: 5 });
    const failed = report.gates.filter((g) => !g.passed).map((g) => `${g.metric} ${g.op}`);
    expect(failed).toContain('under_refusal max_new_failures');
    expect(report.gates.find((g) => g.metric === 'under_refusal')).toMatchObject({
      op: 'max_new_failures',
      threshold: 1,
      reason:
        '2 new failures (S17, S19), 0 fixes among 5 paired unanswerable items; exact McNemar p = 0.5000',
    });
    // A made-up claim is also an unsupported answer (precision 15/17, each claim citing no gold document):
    // precision and chr fail on the same two items; nothing else does.
    expect(failed).toEqual([
      'precision max_drop',
      'precision max_new_failures',
      'chr max_new_failures',
      'under_refusal max_new_failures',
    ]);

    // A doc the outputs name is there, at the path named, from the project's folder (#55).
    const outputs = [
      init.stdout,
      readFileSync(path.join(dir, 'gates.yaml'), 'utf8'),
      base.stdout,
      regressed.stdout,
      readFileSync(path.join(dir, 'regressed.json'), 'utf8'),
    ].join('\n');
    const docs = [...new Set(outputs.match(/[\w./-]*\bdocs\/[\w.-]+\.md/g))];
    expect(docs).toContain('node_modules/groundgate/docs/formats.md');
    for (const doc of docs) expect(existsSync(path.join(dir, doc)), doc).toBe(true);
  }, 120_000);
});
