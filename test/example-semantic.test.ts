import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { JudgeServer } from './helpers/judge-server.js';
import { REPO, tmpTree } from './helpers/tmp.js';

/*
 * examples/semantic: the repository's example with paraphrased claims, judged semantically. Its judgments file
 * was recorded by `groundgate judge` against the stand-in server answering from the hand-written
 * judge-table.jsonl; this test checks the committed file holds the table's verdicts under keys it computes
 * itself, by docs/metrics.md's rule, and that recording it again gives the same lines.
 * GROUNDGATE_WRITE_EXAMPLE=1 rewrites the committed file.
 */
const EXAMPLE = path.join(REPO, 'examples', 'semantic');
const MODEL = 'stand-in-label-table-v1';

const read = (file: string) =>
  readFileSync(path.join(EXAMPLE, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const server = new JudgeServer();
beforeAll(async () => {
  server.model = MODEL;
  server.fingerprint = null;
  // An ask the table has no line for is answered with no verdict word: it shows up as unjudged.
  server.unlabeled = 'NOT IN THE TABLE';
  const claims = new Map(
    read('paraphrased.trace.jsonl').map((t) => [t.qid, (t.answer_json as { claim: string }).claim]),
  );
  for (const { qid, fact, verdict } of read('judge-table.jsonl'))
    server.label(claims.get(qid)!, fact as string, verdict as string);
  await server.start();
});
afterAll(() => server.stop());
afterEach(() => vi.unstubAllEnvs());

async function judge(config: string): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await main(['judge', '-c', config], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
    env: {
      GROUNDGATE_JUDGE_MODEL: MODEL,
      GROUNDGATE_JUDGE_BASE_URL: server.baseUrl,
      GROUNDGATE_JUDGE_API_KEY: 'sk-example-not-a-key',
    },
  });
  return { status, stdout, stderr };
}

/** The judgments file's lines as {key, verdict, model, model_returned}, sorted by key. */
const verdicts = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { key, verdict, model, model_returned } = JSON.parse(l) as Record<string, string>;
      return { key, verdict, model, model_returned };
    });

/**
 * What the file must hold, from the table, the gold set and the traces alone: each table line's key is the
 * sha256 of the sorted, compact JSON of {claim, fact, model, prompt, prompt_sha256, question}
 * (docs/metrics.md, "The key and the file"); the prompt's id and sha256 as pinned in claims.judge-io.test.ts.
 */
function expectedLines() {
  const gold = new Map(
    readFileSync(path.join(REPO, 'gold', 'qa.gold.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { qid: string; question: string })
      .map((g) => [g.qid, g.question]),
  );
  const claims = new Map(
    read('paraphrased.trace.jsonl').map((t) => [t.qid, (t.answer_json as { claim: string }).claim]),
  );
  return read('judge-table.jsonl')
    .map(({ qid, fact, verdict }) => {
      const canonical = JSON.stringify({
        claim: claims.get(qid as string),
        fact,
        model: MODEL,
        prompt: 'groundgate/claim-support@1',
        prompt_sha256: '7f498c13ef1f5c6183d0d4a9405b8fdb38b8b1ca4ba96ae880b4f14c89ed6c08',
        question: gold.get(qid as string),
      });
      const key = createHash('sha256').update(canonical, 'utf8').digest('hex');
      return { key, verdict: verdict as string, model: MODEL, model_returned: MODEL };
    })
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

describe('examples/semantic', () => {
  it("its judgments file holds the table's verdicts under keys computed apart, and is what groundgate judge records", async () => {
    expect(verdicts(path.join(EXAMPLE, 'judgments.jsonl'))).toEqual(expectedLines());
    if (process.env.GROUNDGATE_WRITE_EXAMPLE) {
      writeFileSync(path.join(EXAMPLE, 'judgments.jsonl'), '');
      expect((await judge(path.join(EXAMPLE, 'gates.yaml'))).status).toBe(0);
    }
    const copy = tmpTree({ '.git/HEAD': '' });
    cpSync(EXAMPLE, path.join(copy, 'examples', 'semantic'), { recursive: true });
    cpSync(path.join(REPO, 'gold'), path.join(copy, 'gold'), { recursive: true });
    writeFileSync(path.join(copy, 'examples', 'semantic', 'judgments.jsonl'), '');
    const recorded = await judge(path.join(copy, 'examples', 'semantic', 'gates.yaml'));
    expect(recorded).toMatchObject({ status: 0, stderr: '' });
    expect(verdicts(path.join(copy, 'examples', 'semantic', 'judgments.jsonl'))).toEqual(expectedLines());
  });

  it('checks offline over the committed file, without the judge environment: the agreement tables of the closing note', async () => {
    // No GROUNDGATE_JUDGE_MODEL: the file records the one model it was recorded with.
    vi.stubEnv('GROUNDGATE_JUDGE_MODEL', '');
    vi.stubEnv('GROUNDGATE_JUDGE_API_KEY', '');
    const { report } = await run({ config: path.join(EXAMPLE, 'gates.yaml') });
    const qa = report.suites.qa!;
    // 33 answered answerable items: 15 hit by substring, 2 by the normalized rule (FM001, "512 B" since #54;
    // FM005, "four gibibytes"), 16 missed. The judge supports 12 misses (judge-table.jsonl); FM011, FM023,
    // FM046 (NOT_SUPPORTED) and FM038 (UNCLEAR) stay misses. Six sampled hits (FM002, FM017, FM018, FM021,
    // FM026, FM034) are judged too, all SUPPORTED.
    expect(qa.counts).toMatchObject({
      claims_substring: 15,
      claims_normalized: 2,
      claims_semantic: 12,
      judged_items: 22,
      judge_rescues: 12,
      unjudged_items: 0,
      new_judgments: 0,
    });
    // First the items only the normalized rule passed, then the judge's tables.
    expect(qa.tables!.map((t) => t.title.split(' (')[0])).toEqual([
      'claims: matched by the normalized rule only',
      'claims: deterministic match',
      'claims: agreement',
      'claims: judge-only rescues',
    ]);
    expect(qa.tables![0]!.rows).toEqual([['FM001'], ['FM005']]);
    expect(qa.tables![1]!.rows).toEqual([
      ['hit', 6, 0],
      ['miss', 12, 4],
    ]);
    // Deterministic vs judge: 10 of 22 agree; rows (6, 16), columns (18, 4): chance 6·18 + 16·4 = 172,
    // kappa (22·10 − 172) / (22² − 172) = 48/312. Judge vs human (human-labels.jsonl): they differ on FM029
    // (judge SUPPORTED, human not: "about three months" is not 90 days) and FM038 (judge UNCLEAR, human
    // SUPPORTED): 20 of 22; rows and columns (18, 4): chance 324 + 16 = 340, kappa (440 − 340) / (484 − 340).
    expect(qa.tables![2]!.rows).toEqual([
      ['deterministic vs judge', 22, 10 / 22, 48 / 312],
      ['judge vs human', 22, 20 / 22, 100 / 144],
    ]);
    expect(qa.tables![3]!.rows.map((r) => r[0])).toEqual([
      'FM003',
      'FM006',
      'FM010',
      'FM013',
      'FM014',
      'FM022',
      'FM025',
      'FM029',
      'FM031',
      'FM033',
      'FM041',
      'FM045',
    ]);
    // Correct: 33 shipped less the four claim misses and FM015 (a citation miss): 28; 15 without the judge.
    expect(qa.metrics.precision).toMatchObject({ value: 28 / 33, numerator: 28, denominator: 33 });
    expect(report.verdict).toBe('pass');
  });
});
