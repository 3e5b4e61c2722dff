import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../src/errors.js';
import { mergeRun, writePartialRun } from '../src/partial/run.js';
import { runCli } from './helpers/process.js';
import { seeded } from './helpers/random.js';
import { forgeHeader, forgeSection, type Forged } from './helpers/forge-partial.js';
import { qaOnlyGates, REPO, tmpTree } from './helpers/tmp.js';

/** The example's qa suite in a folder of its own, with runs/qa-regressed.trace.jsonl dealt to three shards. */
function sharded(): string {
  const dir = tmpTree({
    'gates.yaml': qaOnlyGates().replace('traces: runs/qa.trace.jsonl', 'traces: runs/*/trace.jsonl'),
  });
  mkdirSync(path.join(dir, 'gold'));
  for (const f of ['qa.gold.jsonl', 'qa.gold.lock.json'])
    copyFileSync(path.join(REPO, 'gold', f), path.join(dir, 'gold', f));
  const lines = readFileSync(path.join(REPO, 'runs/qa-regressed.trace.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  for (let k = 0; k < 3; k++) {
    mkdirSync(path.join(dir, 'runs', `shard-${k}`), { recursive: true });
    const own = lines.filter((_, i) => i % 3 === k);
    writeFileSync(path.join(dir, 'runs', `shard-${k}`, 'trace.jsonl'), own.map((l) => `${l}\n`).join(''));
  }
  mkdirSync(path.join(dir, 'parts'));
  return dir;
}
const shard = (dir: string, k: number) =>
  runCli(
    ['check', '--input', `qa.traces=runs/shard-${k}/trace.jsonl`, '--partial', `parts/${k}.partial`],
    dir,
  );

describe('groundgate check --partial and groundgate merge (dist)', () => {
  it('merge prints, writes and exits as one check over every shard', () => {
    const dir = sharded();
    for (let k = 0; k < 3; k++) {
      const r = shard(dir, k);
      expect([r.status, r.stdout]).toEqual([0, '']);
    }
    const single = runCli(['check', '--report', 'single.json', '--offenders', '30'], dir);
    const merged = runCli(['merge', 'parts/*.partial', '--report', 'merged.json', '--offenders', '30'], dir);
    expect(single.status).toBe(1);
    expect(merged.status).toBe(1);
    expect(merged.stdout).toBe(single.stdout);
    expect(merged.stderr).toBe(single.stderr);
    expect(readFileSync(path.join(dir, 'merged.json'), 'utf8')).toBe(
      readFileSync(path.join(dir, 'single.json'), 'utf8'),
    );
    const md = runCli(['merge', 'parts/0.partial', 'parts/1.partial', 'parts/2.partial', '-f', 'junit'], dir);
    expect(md.stdout).toBe(runCli(['check', '-f', 'junit'], dir).stdout);
  });

  it("makes the folders a partial and a report are written to, as a matrix job's paths need", () => {
    const dir = sharded();
    const part = runCli(
      ['check', '--input', 'qa.traces=runs/shard-0/trace.jsonl', '--partial', 'out/parts/0.partial'],
      dir,
    );
    expect([part.status, part.stderr]).toEqual([0, '']);
    const merged = runCli(['merge', 'out/parts/0.partial', '--report', 'out/reports/merged.json'], dir);
    expect(merged.stderr).toBe('');
    expect(JSON.parse(readFileSync(path.join(dir, 'out/reports/merged.json'), 'utf8')).suites.qa.kind).toBe(
      'grounded-qa',
    );
  });

  it('writes the same bytes for the same shard, on the main thread or the engine thread', () => {
    const dir = sharded();
    expect(shard(dir, 1).status).toBe(0);
    const first = readFileSync(path.join(dir, 'parts/1.partial'));
    expect(shard(dir, 1).status).toBe(0);
    expect(readFileSync(path.join(dir, 'parts/1.partial')).equals(first)).toBe(true);
    const args = [
      'check',
      '--input',
      'qa.traces=runs/shard-1/trace.jsonl',
      '--partial',
      'parts/engine.partial',
    ];
    expect(runCli(args, dir, { GROUNDGATE_ENGINE_THREAD: '256', GROUNDGATE_THREADS: '3' }).status).toBe(0);
    expect(readFileSync(path.join(dir, 'parts/engine.partial')).equals(first)).toBe(true);
  });

  it('refuses mismatched or broken partials with one line and exit 2', () => {
    const dir = sharded();
    for (let k = 0; k < 3; k++) expect(shard(dir, k).status).toBe(0);
    const fails = (args: string[], message: RegExp) => {
      const r = runCli(['merge', ...args], dir);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    };
    fails(['parts/0.partial', 'parts/0.partial'], /parts\/0\.partial: is the same shard as .*0\.partial/);
    copyFileSync(path.join(dir, 'parts/1.partial'), path.join(dir, 'parts/copy.partial'));
    fails(['parts/1.partial', 'parts/copy.partial'], /copy\.partial: is the same shard as/);

    const bytes = readFileSync(path.join(dir, 'parts/2.partial'));
    writeFileSync(path.join(dir, 'cut.partial'), bytes.subarray(0, bytes.length - 10));
    fails(
      ['parts/0.partial', 'cut.partial'],
      /cut\.partial: the partial holds \d+ bytes after its header, not the \d+ it lists/,
    );
    copyFileSync(path.join(dir, 'parts/2.partial'), path.join(dir, 'old.partial'));
    forgeHeader(path.join(dir, 'old.partial'), (h) => (h.tool.version = '0.0.9'));
    fails(
      ['parts/0.partial', 'old.partial'],
      /old\.partial: written by groundgate 0\.0\.9; expected 0\.1\.0/,
    );
    writeFileSync(path.join(dir, 'junk.partial'), '{"format":"something else"}\n');
    fails(['junk.partial'], /junk\.partial:1: not a groundgate partial/);
    fails(['missing.partial'], /missing\.partial: cannot read the partial \(ENOENT\)/);
    fails(['nothing-*.partial'], /no partial matches "nothing-\*\.partial"/);

    // Another config: the same suites with another gate.
    const config = readFileSync(path.join(dir, 'gates.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'gates.yaml'), config.replace("'>= 0.80'", "'>= 0.81'"));
    fails(
      ['parts/0.partial'],
      /0\.partial: written with another config \(gates\.yaml, sha256 \w+…\); expected this merge's gates\.yaml/,
    );
    writeFileSync(path.join(dir, 'gates.yaml'), config);

    // Another gold set in the merge's checkout, or in one shard.
    const gold = path.join(dir, 'gold/qa.gold.jsonl');
    const goldText = readFileSync(gold, 'utf8');
    writeFileSync(gold, goldText.replace('What is the maximum length', 'What is the longest length'));
    fails(
      ['parts/0.partial'],
      /suite qa: gold\/qa\.gold\.jsonl differs from the shard's \(sha256 \w+… there, \w+… here\); expected the gold the partials were written with/,
    );
    expect(shard(dir, 2).status).toBe(0);
    writeFileSync(gold, goldText);
    fails(
      ['parts/0.partial', 'parts/2.partial'],
      /parts\/2\.partial: suite qa: gold\/qa\.gold\.jsonl differs from the shard's \(sha256 \w+… there/,
    );
    expect(shard(dir, 2).status).toBe(0);

    // The same trace file in two shards.
    expect(
      runCli(['check', '--input', 'qa.traces=runs/shard-[12]/trace.jsonl', '--partial', 'again.partial'], dir)
        .status,
    ).toBe(0);
    fails(
      ['parts/1.partial', 'again.partial'],
      /again\.partial: suite qa: traces file runs\/shard-1\/trace\.jsonl is also parts\/1\.partial's/,
    );
    expect(runCli(['merge', 'parts/[0-9].partial', '-q'], dir).status).toBe(1);
  });

  it('refuses flags that do not belong to a partial or a merge', () => {
    const dir = sharded();
    const r = runCli(['check', '--partial', 'p.partial', '--report', 'r.json'], dir);
    expect([r.status, r.stderr]).toEqual([
      2,
      expect.stringMatching(/--report with --partial: a partial judges no gate/),
    ]);
    const m = runCli(['merge', 'p.partial', '--input', 'qa.traces=x'], dir);
    expect([m.status, m.stderr]).toEqual([
      2,
      expect.stringMatching(/--input with merge: the partials say which/),
    ]);
    // Every suite of the example (all seven kinds) in one partial: merged, the example's own report.
    expect(runCli(['check', '--partial', path.join(dir, 'all.partial')], REPO).status).toBe(0);
    const merged = runCli(['merge', path.join(dir, 'all.partial'), '-f', 'json'], REPO);
    expect(merged.stdout).toBe(runCli(['check', '-f', 'json'], REPO).stdout);
    expect(merged.status).toBe(0);
    expect(Object.keys(JSON.parse(merged.stdout).suites)).toHaveLength(8);
  });
});

describe('merge of a damaged partial (fuzz)', () => {
  it('ends with an input error naming the partial, or merges, never anything else', async () => {
    const dir = sharded();
    const config = path.join(dir, 'gates.yaml');
    const parts = [0, 1].map((k) => path.join(dir, `${k}.partial`));
    for (const [k, part] of parts.entries())
      await writePartialRun(part, {
        config,
        inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, `runs/shard-${k}/trace.jsonl`) }],
      });
    const good = readFileSync(parts[1]!);
    const bodyAt = good.indexOf(10) + 1;
    const rnd = seeded(77);
    const outcomes = { merged: 0, refused: 0 };
    for (let round = 0; round < 300; round++) {
      const bad = Buffer.from(good);
      const flips = 1 + Math.floor(rnd() * 4);
      // Mostly the body (the columns and fields), sometimes the header.
      for (let f = 0; f < flips; f++) {
        const at =
          rnd() < 0.8 ? bodyAt + Math.floor(rnd() * (bad.length - bodyAt)) : Math.floor(rnd() * bodyAt);
        bad[at] = Math.floor(rnd() * 256);
      }
      const file = path.join(dir, 'bad.partial');
      writeFileSync(file, rnd() < 0.1 ? bad.subarray(0, Math.floor(rnd() * bad.length)) : bad);
      try {
        // The damaged partial first, at times: the gold columns are read (and inflated) from the first only.
        await mergeRun(rnd() < 0.5 ? [parts[0]!, file] : [file, parts[0]!], { config });
        outcomes.merged++;
      } catch (err) {
        if (!(err instanceof InputError || err instanceof UsageError)) throw err;
        expect(err.message).toMatch(/\.partial|gold|qa/);
        expect(err.message).not.toMatch(/\n/);
        outcomes.refused++;
      }
    }
    expect(outcomes.refused).toBeGreaterThan(100);
  });
});

describe('merge of partials damaged where a byte flip seldom reaches', () => {
  /** A partial of shard 1, its header changed by `edit` (the body kept). */
  async function edited(edit: (header: Forged) => void) {
    const dir = sharded();
    const config = path.join(dir, 'gates.yaml');
    const good = path.join(dir, 'good.partial');
    await writePartialRun(good, {
      config,
      inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, 'runs/shard-1/trace.jsonl') }],
    });
    const bad = path.join(dir, 'bad.partial');
    copyFileSync(good, bad);
    // A state too deep to stringify goes in as text; the header's sha256 is made to match, as a forger would.
    forgeHeader(bad, edit, (json) => json.replace('"__DEEP__"', '['.repeat(20000) + ']'.repeat(20000)));
    return { dir, config, bad };
  }
  const refused = async (edit: (header: Forged) => void, message: RegExp) => {
    const { config, bad } = await edited(edit);
    await expect(mergeRun([bad], { config })).rejects.toThrow(message);
    await expect(mergeRun([bad], { config })).rejects.toBeInstanceOf(InputError);
  };

  it('refuses no suite, a deflated section past what the gold allows, and gold places outside the gold', async () => {
    await refused((h) => (h.suites = {}), /bad\.partial: the partial holds no suite/);
    await refused(
      (h) => (h.suites.qa.sections['gold.qids'].inflated.length = 2 ** 40),
      /section qa\.gold\.qids would inflate to 1099511627776 bytes; expected at most \d+/,
    );
    // A column written as varints, called deflated by a forged header, is bounded by its items too.
    await refused(
      (h) => (h.suites.qa.sections['gold.source'].inflated = { length: 10 ** 6, sha256: '0'.repeat(64) }),
      /section qa\.gold\.source would inflate to 1000000 bytes; expected at most \d+/,
    );
    await refused(
      (h) => (h.suites.qa.state.items = 10 ** 9),
      /suite qa: 1000000000 gold items; expected at most \d+/,
    );
    // A state nested deeper than any stack: refused by its schema, not by a recursion.
    await refused(
      (h) => (h.suites.qa.state = '__DEEP__'),
      /header state: .*expected a grounded-qa partial of this version/,
    );
  });

  it('refuses trace names no run writes (out of the workspace, absolute, not normal), a negative count, and release mixed with not', async () => {
    for (const name of [
      '../../../etc/passwd',
      '/etc/shadow',
      'C:\\runner\\x.jsonl',
      'runs/./shard-1/trace.jsonl',
    ])
      await refused(
        (h) => (h.suites.qa.inputs.traces = [name]),
        /bad\.partial: suite qa: traces file ".+"; expected a path relative to the config's folder, \/-separated, inside the workspace/,
      );
    await refused(
      (h) => Object.assign(h.suites.qa.state, { known: 0, lines: 0 }),
      /bad\.partial:1: header state of suite qa: known 0; expected at least runs, \d+/,
    );
    const { dir, config, bad } = await edited((h) => (h.release = true));
    await expect(mergeRun([path.join(dir, 'good.partial'), bad], { config })).rejects.toThrow(
      /bad\.partial: written with --release; expected without, as .*good\.partial was \(release sign-off is all shards or none\)/,
    );
  });

  it('refuses forged columns whose sha256 match: an answerability or a recall bit that is neither 0 nor 1', async () => {
    const { config, bad } = await edited(() => {});
    forgeSection(bad, 'qa', 'gold.answerable', (column) => void (column[1] = 2));
    await expect(mergeRun([bad], { config })).rejects.toThrow(
      /bad\.partial: suite qa: gold item 1 has answerability 2, not 0 or 1; expected a consistent partial/,
    );
    const again = await edited(() => {});
    forgeSection(again.bad, 'qa', 'runs.recall', (column) => void column.fill(0xff));
    await expect(mergeRun([again.bad], { config: again.config })).rejects.toThrow(
      /bad\.partial: suite qa: run 0 names runs\.recall bit 255, runs\.upper bit \d; expected 0 or 1 \(a consistent partial\)/,
    );
  });

  it('refuses forged verdicts and counts whose sha256 match, naming the partial, the section and the run', async () => {
    const forged = async (key: string, edit: (bytes: Buffer) => Buffer | void, message: RegExp) => {
      const { config, bad } = await edited(() => {});
      forgeSection(bad, 'qa', key, edit);
      const error = await mergeRun([bad], { config }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(message);
    };
    // The issue's flipped bit: a correct run's CORRECT cleared, which no stage of triage explains.
    const words = (b: Buffer) => new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
    await forged(
      'runs.flags',
      (b) => {
        const j = words(b).findIndex((f) => (f & 2) !== 0);
        words(b)[j] = words(b)[j]! & ~2;
      },
      /bad\.partial: suite qa: run \d+ names runs\.flags \d+; expected flags judging gives a run of an answerable item/,
    );
    await forged(
      'runs.flags',
      (b) => void (words(b)[0] = 0xffffffff),
      /bad\.partial: suite qa: run 0 names runs\.flags 4294967295; expected flags judging gives/,
    );
    await forged(
      'runs.row',
      (b) => void words(b).copyWithin(1, 0, 1),
      /bad\.partial: suite qa: run 1 names runs\.row \d+; expected a gold row below 47, after the run before's/,
    );
    await forged(
      'unknown',
      () => Buffer.from('[["FM001",3]]'),
      /bad\.partial: suite qa: section unknown lists qid "FM001", which is in gold; expected qids not in gold/,
    );
    const counts = async (state: Record<string, number>, message: RegExp) => {
      const { config, bad } = await edited((h) => Object.assign(h.suites.qa.state, state));
      await expect(mergeRun([bad], { config })).rejects.toThrow(message);
    };
    await counts(
      { lines: 1e15 },
      /bad\.partial:1: header state of suite qa: lines 1000000000000000; expected known plus the lines of section unknown, \d+/,
    );
    await counts({ runs: 48 }, /header state of suite qa: runs 48; expected at most items, 47/);
    // Two shards' counts, each possible, whose sum is past what a number holds exactly.
    const dir = sharded();
    const config = path.join(dir, 'gates.yaml');
    const parts = [0, 1].map((k) => path.join(dir, `${k}.partial`));
    for (const [k, part] of parts.entries()) {
      await writePartialRun(part, {
        config,
        inputs: [{ suite: 'qa', key: 'traces', path: path.join(dir, `runs/shard-${k}/trace.jsonl`) }],
      });
      forgeHeader(part, (h) =>
        Object.assign(h.suites.qa.state, {
          known: h.suites.qa.state.known + 2 ** 52,
          lines: h.suites.qa.state.lines + 2 ** 52,
        }),
      );
    }
    await expect(mergeRun(parts, { config })).rejects.toThrow(
      /0\.partial: suite qa: the partials give trace_lines 9007199254741\d+; expected a whole count of 0 to 9007199254740991 \(was a partial altered\?\)/,
    );
  });

  it('refuses a folder, and a partial reached through a link out of the workspace', async () => {
    const dir = sharded();
    await expect(
      mergeRun([path.join(dir, 'parts')], { config: path.join(dir, 'gates.yaml') }),
    ).rejects.toThrow(/parts: not a file; expected a file written by "groundgate check --partial"/);
    mkdirSync(path.join(dir, 'planted'));
    symlinkSync('/etc/hostname', path.join(dir, 'planted', 'x.partial'));
    const r = runCli(['merge', 'planted/*.partial'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/resolves outside the workspace/);
  });
});
