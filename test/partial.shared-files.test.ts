import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { serializeReport } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

// merge checks the files every shard reads whole (a grounded-qa suite's gold) against the sha256 each shard
// recorded, and against the list this checkout's config gives: src/partial/run.ts, mergedInputs. The
// process-level test (partial.cli.test.ts) needs dist/; this one runs the source.

const GATES = `version: 1
suites:
  qa:
    kind: grounded-qa
    gold: gold/*.jsonl
    traces: traces/*.jsonl
    gates:
      precision: '>= 0.5'
`;
const item = (qid: string) => ({
  qid,
  question: `${qid}?`,
  answerable: true,
  gold_claim_substr: [`fact ${qid}`],
  gold_citations: [`d-${qid}`],
});
const trace = (qid: string) => ({
  qid,
  retrieved_ids: [`d-${qid}`],
  answer_json: { claim: `It is fact ${qid}.`, citations: [`d-${qid}`] },
});
const GOLD = jsonl([item('q1'), item('q2')]);
const EDITED = jsonl([item('q1'), { ...item('q2'), question: 'q2, reworded?' }]);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A workspace with two shards' traces; the partial of each shard, written as check --partial writes it. */
async function shards() {
  const dir = tmpTree({
    'gates.yaml': GATES,
    'gold/a.jsonl': GOLD,
    'traces/1.jsonl': jsonl([trace('q1')]),
    'traces/2.jsonl': jsonl([trace('q2')]),
  });
  const config = path.join(dir, 'gates.yaml');
  const partial = async (n: number) => {
    const file = path.join(dir, `${n}.partial`);
    const options: RunOptions = {
      config,
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, `traces/${n}.jsonl`) }],
    };
    await writePartialRun(file, options);
    return file;
  };
  return { dir, config, partial };
}

async function mergeError(files: string[], config: string): Promise<string> {
  return mergeRun(files, { config }).then(
    () => 'merged',
    (e: unknown) => {
      expect(e).toBeInstanceOf(InputError);
      return (e as InputError).message;
    },
  );
}

describe("merge checks the checkout's shared files against the shards'", () => {
  it('merges when the gold is the one every shard read: the report of one run', async () => {
    const { config, partial } = await shards();
    const merged = await mergeRun([await partial(1), await partial(2)], { config });
    expect(serializeReport(merged.report)).toBe(serializeReport((await run({ config })).report));
    expect(merged.report.suites.qa!.gold!.items).toBe(2);
  });

  it('refuses a gold file edited in the checkout since, naming both digests', async () => {
    const { dir, config, partial } = await shards();
    const files = [await partial(1), await partial(2)];
    writeFileSync(path.join(dir, 'gold/a.jsonl'), EDITED);
    const [there, here] = [sha256(GOLD), sha256(EDITED)].map((d) => d.slice(0, 12));
    expect(there).not.toBe(here); // 12 characters tell them apart (digestsApart shows no more)
    expect(await mergeError(files, config)).toBe(
      `${files[0]}: suite qa: gold/a.jsonl differs from the shard's (sha256 ${there}… there, ${here}… here); expected the gold the partials were written with (the same commit)`,
    );
  });

  it('names the shard whose gold differs, when the others match the checkout', async () => {
    const { dir, config, partial } = await shards();
    const first = await partial(1);
    writeFileSync(path.join(dir, 'gold/a.jsonl'), EDITED);
    const second = await partial(2);
    writeFileSync(path.join(dir, 'gold/a.jsonl'), GOLD);
    const [there, here] = [sha256(EDITED), sha256(GOLD)].map((d) => d.slice(0, 12));
    expect(await mergeError([first, second], config)).toBe(
      `${second}: suite qa: gold/a.jsonl differs from the shard's (sha256 ${there}… there, ${here}… here); expected the gold the partials were written with (the same commit)`,
    );
  });

  it('refuses a gold file list other than the one the config gives in the checkout', async () => {
    const { dir, config, partial } = await shards();
    const files = [await partial(1), await partial(2)];
    writeFileSync(path.join(dir, 'gold/b.jsonl'), jsonl([item('q3')]));
    expect(await mergeError(files, config)).toBe(
      `${files[0]}: suite qa: gold gold/a.jsonl; expected gold/a.jsonl, gold/b.jsonl, as this checkout's config lists (every shard reads the whole gold)`,
    );
    expect(readFileSync(path.join(dir, 'gold/a.jsonl'), 'utf8')).toBe(GOLD);
  });
});
