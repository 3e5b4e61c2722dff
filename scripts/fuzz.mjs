// `npm run fuzz`: the fuzz tests (every fuzz target, partials' bit flips, the triage property) with a random seed and more inputs than CI's sample.
// FUZZ_RUNS sets the inputs per target (default 1000); FUZZ_SEED replays a run (the seed is printed first).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync } from 'node:fs';

// Every fuzz target names itself: test/fuzz.<surface>.test.ts or test/<surface>.fuzz.test.ts.
const targets = readdirSync('test')
  .filter((f) => /^fuzz\..+\.test\.ts$|\.fuzz\.test\.ts$/.test(f))
  .sort()
  .map((f) => `test/${f}`);

const seed = process.env.FUZZ_SEED ?? String(randomInt(2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS ?? '1000';
console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (set them to replay this run)`);
const { status } = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    ...targets,
    'test/partial.bitflip.test.ts',
    'test/triage.test.ts',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs } },
);
if (status !== 0) console.log(`fuzz: failed with FUZZ_SEED=${seed} FUZZ_RUNS=${runs}`);
process.exit(status ?? 1);
