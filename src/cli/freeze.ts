import path from 'node:path';
import { loadConfig } from '../config/load.js';
import { displayPath, UsageError } from '../errors.js';
import { UNCONFINED } from '../io/confine.js';
import { digestGold } from '../gold/digest-files.js';
import type { GoldDigest } from '../gold/digest.js';
import { loadGold } from '../grounded-answer/load.js';
import type { FieldMap } from '../io/field-map.js';
import { buildLock, describeDiff, diffLock, readLock, today, writeLock } from '../gold/lock.js';
import { lockPathFor } from '../gold/status.js';
import { selectSuites, suiteInputs } from '../run.js';
import type { LoadedSuite } from '../suites/types.js';
import { commandOf, printLine, type CliIo } from './command.js';
import { CONFIG_OPTION, suiteOption, declareCommand, parseOptions } from './options.js';

/** freeze's and verify's options: which config, which suites. */
const GOLD_OPTIONS = {
  config: CONFIG_OPTION,
  suite: suiteOption('only this suite (repeatable; default: every suite with a gold set)'),
  'allow-outside-workspace': {
    type: 'boolean',
    help: 'let paths in gates.yaml lead outside the workspace (the git repository of gates.yaml); for local use, never for untrusted configs',
  },
} as const;

const FREEZE = declareCommand({
  name: 'freeze',
  summary: 'write a lock for each gold set (sha256, item count, per-item digests)',
  usage: 'groundgate freeze [options]',
  description:
    "Writes a lock for each suite's gold set: sha256 of the canonical content (items sorted by id, keys sorted), the item count, each item's digest (so changes can be named), the day (UTC; SOURCE_DATE_EPOCH overrides) and the tool version. The lock goes to the suite's lock: path, else beside the gold (qa.gold.jsonl → qa.gold.lock.json); a gold set that has not changed keeps its lock as it is. Commit it; release mode (check --release) and verify compare against it.",
  options: GOLD_OPTIONS,
  exitStatus: '0 every lock written (or kept), 2 usage, configuration or input error.',
  example: 'groundgate freeze --suite qa',
});

const VERIFY = declareCommand({
  name: 'verify',
  summary: 'check every gold set against its lock (exit 2 naming changed items)',
  usage: 'groundgate verify [options]',
  description:
    "Checks that each suite's gold set matches its lock (written by groundgate freeze), naming the added, removed and changed item ids of one that does not.",
  options: GOLD_OPTIONS,
  exitStatus:
    '0 every gold set matches its lock, 2 a gold set has changed or has no lock, or a usage, configuration or input error.',
  example: 'groundgate verify --config eval/gates.yaml',
});

function parse(spec: typeof FREEZE, argv: readonly string[]) {
  const { values, positionals } = parseOptions(spec, argv);
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  return {
    config: values.config,
    suites: values.suite ?? [],
    scope: values['allow-outside-workspace'] ? UNCONFINED : undefined,
  };
}

/**
 * The digest `check` makes of a suite's gold set: with a `fields:` mapping, items are named by their mapped
 * qid, as check names them (the file's own id fields may be other ids, or none).
 */
async function suiteGoldDigest(suite: LoadedSuite, gold: readonly string[]): Promise<GoldDigest> {
  const fields = (suite.config as { fields?: { gold?: FieldMap } }).fields?.gold;
  if (!fields || Object.keys(fields).length === 0) return digestGold(gold);
  return (await loadGold(gold, { fields })).digest!;
}

/** The suites whose kind has a lockable gold set, with their gold files and lock path. */
async function goldSuites({ config: configPath, suites: names, scope }: ReturnType<typeof parse>) {
  const config = loadConfig(configPath, scope);
  const suites = selectSuites(config, names).filter((s): s is LoadedSuite & { kind: { goldKey: string } } =>
    Boolean(s.kind.goldKey),
  );
  if (suites.length === 0) throw new UsageError('no selected suite has a gold set to lock');
  const out = [];
  for (const suite of suites) {
    const gold = (await suiteInputs(suite, config, []))[suite.kind.goldKey]!;
    out.push({ suite, gold, lock: lockPathFor(suite, config, gold) });
  }
  return out;
}

export const freezeCommand = commandOf(FREEZE, async (argv, io: CliIo) => {
  const args = parse(FREEZE, argv);
  for (const { suite, gold, lock } of await goldSuites(args)) {
    const digest = await suiteGoldDigest(suite, gold);
    const previous = readLock(lock.file);
    // An unchanged gold set keeps its lock as it is, date included: freezing again is not a new sign-off.
    const day = previous?.sha256 === digest.sha256 ? previous.frozen : today(io.env);
    const written = writeLock(lock.file, buildLock(digest, gold, lock.file, day));
    const change = previous ? describeDiff(diffLock(previous, digest)) : '';
    io.stdout(
      `${suite.name}: ${written ? 'wrote' : 'kept'} ${displayPath(lock.file)} (${digest.size} items, sha256:${digest.sha256.slice(0, 12)})${previous ? (change ? `; since the previous lock: ${change}` : '; unchanged') : ''}\n`,
    );
  }
  return 0;
});

export const verifyCommand = commandOf(VERIFY, async (argv, io: CliIo) => {
  const args = parse(VERIFY, argv);
  let ok = true;
  for (const { suite, gold, lock } of await goldSuites(args)) {
    const goldName = displayPath(gold[0]!);
    const locked = readLock(lock.file);
    if (!locked) {
      ok = false;
      printLine(
        io,
        `${displayPath(lock.file)}: no lock for ${goldName} (suite ${suite.name}); run groundgate freeze`,
      );
      continue;
    }
    const digest = await suiteGoldDigest(suite, gold);
    if (digest.sha256 === locked.sha256) {
      io.stdout(
        `${suite.name}: ${goldName} matches ${path.basename(lock.file)} (${locked.items} items, frozen ${locked.frozen})\n`,
      );
    } else {
      ok = false;
      printLine(
        io,
        `${goldName}: does not match its lock ${displayPath(lock.file)}: ${describeDiff(diffLock(locked, digest))}`,
      );
    }
  }
  return ok ? 0 : 2;
});
