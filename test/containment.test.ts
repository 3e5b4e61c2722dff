import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { contains, containment, containsWord, isShort } from '../src/grounded-answer/containment.js';
import type { GoldLine, TraceLine } from '../src/grounded-answer/contract.js';
import { containsClaim } from '../src/grounded-answer/score.js';
import { run } from '../src/run.js';
import { nestedA, otlpLines, parquetGold, parquetTraces } from './helpers/formats.js';
import { jsonl, tmpTree } from './helpers/tmp.js';

/** C of one claim against gold substrings, as grounded-qa and stability compute it. */
const c = (claim: string, ...gold: string[]) => containsClaim(claim, containment(gold));

describe('containment C', () => {
  it('matches a substring of fewer than 5 characters as a whole word or phrase', () => {
    expect(c('Uploads are at most 2 GB.', '2 GB')).toBe(true);
    expect(c('Uploads are capped (2 GB) per file.', '2 GB')).toBe(true);
    expect(c('2 GB', '2 GB')).toBe(true);
    expect(c('Uploads are at most 12 GB.', '2 GB')).toBe(false);
    expect(c('Uploads are 2 GBs at most.', '2 GB')).toBe(false);
    expect(c('It speaks TLS 1.3.', 'TLS')).toBe(true);
    expect(c('It speaks mTLS.', 'TLS')).toBe(false);
    expect(c('TLS', 'TLS')).toBe(true);
    expect(c('v3', 'v3')).toBe(true);
    expect(c('Use v3 of the API, not v2.', 'v3')).toBe(true);
    expect(c('Use api-v3/users.', 'v3')).toBe(true);
  });

  it('takes any whole occurrence, though an earlier one is inside a word', () => {
    expect(c('mTLS inside, TLS at the edge', 'TLS')).toBe(true);
    expect(c('12 GB on disk, 2 GB in memory', '2 GB')).toBe(true);
    expect(c('12 GB on disk, 32 GB in memory', '2 GB')).toBe(false);
  });

  it('is case-insensitive as C is, and trims a short substring', () => {
    expect(c('at most 2 gb', '2 GB')).toBe(true);
    expect(c('AT MOST 2 GB', '2 gb')).toBe(true);
    expect(c('uses tls', ' TLS ')).toBe(true);
    expect(c('uses mtls', ' TLS ')).toBe(false);
    expect(containment(['  TLS\t', 'Port 7420'])).toEqual({ substrings: ['port 7420'], words: ['tls'] });
  });

  it('keeps a decimal or grouped number one word', () => {
    expect(c('at most 1.2 GB', '2 GB')).toBe(false);
    expect(c('1,2 GB', '2 GB')).toBe(false);
    expect(c('3,000 rows', '000')).toBe(false);
    expect(c('Use v3.1.', 'v3')).toBe(false);
    expect(c('Use v3.', 'v3')).toBe(true);
    expect(c('Use v3, then v4.', 'v3')).toBe(true);
    expect(c('Use v3.x.', 'v3')).toBe(true);
  });

  it('reads letters, digits and marks of every script as word characters', () => {
    expect(c('Le café ouvre à 8 h.', 'caf')).toBe(false);
    expect(c('Le café ouvre à 8 h.', 'café')).toBe(true);
    expect(c('Le CAFÉ ouvre', 'café')).toBe(true);
    expect(c('écrit é', 'é')).toBe(true);
    expect(c('écrit', 'é')).toBe(false);
    // A combining mark continues the letter before it: "TLS" + U+0301 is not "TLS".
    expect(c('TLS\u0301', 'TLS')).toBe(false);
    expect(c('Сеть TLS', 'TLS')).toBe(true);
    expect(c('СетьTLS', 'TLS')).toBe(false);
    expect(c('١٢ GB', '2 GB')).toBe(false); // Arabic-Indic digits are digits
    // Outside the BMP: a mathematical letter is a letter, an emoji is not.
    expect(c('𝐀TLS', 'TLS')).toBe(false);
    expect(c('😀TLS😀', 'TLS')).toBe(true);
  });

  it('does not look for word boundaries in scripts written without spaces', () => {
    expect(c('首都是东京。', '东京')).toBe(true);
    expect(c('最多2 GB。', '2 GB')).toBe(true);
    expect(c('最多12 GB。', '2 GB')).toBe(false);
    expect(c('TLS协议', 'TLS')).toBe(true);
    expect(c('これはTLSです', 'TLS')).toBe(true);
  });

  it('matches substrings of 5 characters or more anywhere, as before', () => {
    expect(isShort('TLS 1')).toBe(false);
    expect(isShort(' 2 GB ')).toBe(true);
    expect(isShort('💥💥💥💥')).toBe(true); // 4 characters, 8 code units
    expect(isShort('💥💥💥💥💥')).toBe(false);
    expect(c('mTLS 1.3', 'TLS 1')).toBe(true);
    expect(c('at most 12 GB', ' 2 GB ')).toBe(false);
    expect(c('at most 12 GB', '2 GB ')).toBe(false); // four characters once trimmed
    expect(c('at most 12 GB.', '2 GB.')).toBe(true); // five: a plain substring
    expect(c('café', 'caf', 'afé')).toBe(false);
    expect(c('cafés', 'café', 'cafés')).toBe(true);
  });

  it('never matches an empty word (gold refuses a blank substring)', () => {
    expect(containsWord('anything', '')).toBe(false);
    expect(contains('anything', containment(['   ']))).toBe(false);
  });
});

const GOLD: GoldLine[] = [
  ['A', '2 GB'],
  ['B', '2 GB'],
  ['C', 'TLS'],
  ['D', 'v3'],
  ['E', 'port 7420'],
].map(([qid, fact]) => ({
  qid: qid!,
  question: `What is ${qid}?`,
  answerable: true,
  gold_claim_substr: [fact!],
  gold_citations: [`d${qid}`],
}));
const CLAIMS: Record<string, string> = {
  A: 'Uploads are at most 2 GB.',
  B: 'Uploads are at most 12 GB.',
  C: 'Services use mTLS inside, and TLS 1.3 at the edge.',
  D: 'Use v3.1 of the API.',
  E: 'It listens on Port 7420.',
};
const TRACES: TraceLine[] = GOLD.map((g, i) => ({
  ts: i + 1,
  qid: g.qid,
  retrieved_ids: [`d${g.qid}`],
  answer_json: { claim: CLAIMS[g.qid]!, citations: [`d${g.qid}`] },
}));

describe('grounded-qa with short gold facts', () => {
  it('scores them as whole words on every trace reader', async () => {
    const dir = tmpTree({});
    const files: Record<string, string | Buffer> = {
      'gold.jsonl': jsonl(GOLD),
      'traces.jsonl': jsonl(TRACES),
      'gold-a.jsonl': jsonl(GOLD.map(nestedA.gold)),
      'traces-a.jsonl': jsonl(TRACES.map(nestedA.trace)),
      'traces.otlp.jsonl': otlpLines(TRACES, (t) => `What is ${t.qid}?`),
      'gold.parquet': parquetGold(GOLD),
      'traces.parquet': parquetTraces(TRACES),
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const qa = { kind: 'grounded-qa', k: 5 };
    const suites = {
      jsonl: { ...qa, gold: 'gold.jsonl', traces: 'traces.jsonl' },
      mapped: {
        ...qa,
        gold: 'gold-a.jsonl',
        traces: 'traces-a.jsonl',
        fields: { traces: nestedA.traceFields, gold: nestedA.goldFields },
      },
      otlp: { ...qa, gold: 'gold.jsonl', traces: 'traces.otlp.jsonl', format: 'openinference' },
      parquet: { ...qa, gold: 'gold.parquet', traces: 'traces.parquet' },
    };
    writeFileSync(path.join(dir, 'gates.yaml'), YAML.stringify({ version: 1, suites }));
    const { report } = await run({ config: path.join(dir, 'gates.yaml') });
    for (const name of Object.keys(suites)) {
      const s = report.suites[name]!;
      // A, C and E contain their fact; B (12 GB) and D (v3.1) do not, and cite the gold chunk.
      expect([name, s.metrics.precision!.value, s.metrics.chr!.value]).toEqual([name, 3 / 5, 1]);
      expect([name, s.offenders.map((o) => `${o.id}:${o.labels.join('+')}`)]).toEqual([
        name,
        ['B:claim_miss', 'D:claim_miss'],
      ]);
    }
  });
});

describe('stability with short gold facts', () => {
  it("computes containment_rate with grounded-qa's C", async () => {
    const gold = { ...GOLD[0]!, gold_claim_substr: ['2 GB'] };
    const runOf = (seed: number, claim: string) => ({
      qid: 'A',
      run_id: `A#${seed}`,
      answer_json: { claim, citations: ['dA'] },
      retrieved_ids: ['dA'],
    });
    const dir = tmpTree({
      'gates.yaml':
        'version: 1\nsuites:\n  st:\n    kind: stability\n    gold: gold.jsonl\n    runs: runs.jsonl\n',
      'gold.jsonl': jsonl([gold]),
      'runs.jsonl': jsonl([
        runOf(1, 'Uploads are at most 2 GB.'),
        runOf(2, 'Uploads are at most 2 GB!'),
        runOf(3, 'Uploads are at most 12 GB.'),
        runOf(4, 'Uploads: 2 GB at most.'),
      ]),
    });
    const st = (await run({ config: path.join(dir, 'gates.yaml') })).report.suites.st!;
    expect(st.metrics.containment_rate!.value).toBe(3 / 4);
    expect(st.offenders[0]).toMatchObject({ id: 'A', containment_rate: 3 / 4, gold_claim_substr: ['2 GB'] });
  });
});
