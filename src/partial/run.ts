import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { digestsApart, displayPath, InputError, preview, UsageError } from '../errors.js';
import { describeDiff } from '../gold/lock.js';
import { compareCodeUnits } from '../io/files.js';
import { confineIfInside, writtenInside, type PathScope } from '../io/confine.js';
import { takeUtf8Notes, utf8Warnings } from '../io/utf8.js';
import {
  judgeRun,
  metricsToCompute,
  prepareRun,
  scoreContext,
  suiteGold,
  suiteInputs,
  type RunOptions,
  type RunOutcome,
} from '../run.js';
import { SUITE_KINDS } from '../suites/registry.js';
import type { LoadedSuite, MergePart, SuiteSplit } from '../suites/types.js';
import { TOOL_NAME, VERSION } from '../version.js';
import { fileSha256, PartialFile, writePartial, type PartialSuite, type Sections } from './file.js';
import type { GoldReport } from '../report/schema.js';

/**
 * `check --partial`: scores the selected suites over this shard's inputs and writes what a merge needs to
 * make the report one run over every shard's inputs would (see SuiteSplit). No gate is judged.
 */
export async function writePartialRun(file: string, options: RunOptions): Promise<{ warnings: string[] }> {
  const setup = prepareRun(options);
  const { config, selected, relative } = setup;
  for (const suite of selected) splitOf(suite);
  const warnings = (await utf8Warnings(takeUtf8Notes(), relative)).slice();
  const suites: Record<string, Omit<PartialSuite, 'sections'> & { sections: Sections }> = {};
  for (const suite of selected) {
    const split = splitOf(suite);
    const inputs = await suiteInputs(suite, config, options.inputs ?? []);
    const metrics = metricsToCompute(suite);
    const part = await split.partial(suite.config, scoreContext(setup, suite, inputs, metrics));
    const gold = await suiteGold(setup, suite, inputs, part.goldDigest, options.release ?? false);
    const utf8 = takeUtf8Notes();
    const texts = await utf8Warnings(utf8, relative);
    warnings.push(...texts.map((w) => `${suite.name}: ${w}`));
    suites[suite.name] = {
      kind: suite.kind.kind,
      inputs: Object.fromEntries(Object.entries(inputs).map(([k, files]) => [k, files.map(relative)])),
      digests: Object.fromEntries(
        Object.entries(inputs)
          .filter(([k]) => !split.shardKeys.includes(k))
          .map(([k, files]) => [k, files.map(fileSha256)]),
      ),
      ...(gold ? { gold: gold.report } : {}),
      utf8_warnings: [...utf8]
        .sort(([a], [b]) => compareCodeUnits(a, b))
        .map(([f], i) => [relative(f), texts[i]!]),
      state: part.state,
      sections: part.sections,
    };
  }
  writePartial(
    file,
    {
      tool: { name: TOOL_NAME, version: VERSION },
      config: { file: relative(config.file), sha256: fileSha256(config.file) },
      release: options.release ?? false,
    },
    suites,
  );
  return { warnings };
}

/**
 * `merge`: the report of one run over every shard's inputs, from the shards' partials. They must come from
 * this config, this groundgate and one gold set; a shard's own files (its traces) may not be another's.
 */
export async function mergeRun(files: readonly string[], options: RunOptions): Promise<RunOutcome> {
  if (files.length === 0)
    throw new UsageError(
      'merge: no partial given; expected one or more files written by "groundgate check --partial"',
    );
  const partials: PartialFile[] = [];
  try {
    for (const file of files) partials.push(PartialFile.open(file));
    return await mergeOpen(partials, options);
  } finally {
    for (const p of partials) p.close();
  }
}

async function mergeOpen(partials: readonly PartialFile[], options: RunOptions): Promise<RunOutcome> {
  const first = partials[0]!;
  const names = Object.keys(first.header.suites);
  // No names would select every suite of the config.
  if (names.length === 0)
    throw new InputError(
      { file: first.file },
      'the partial holds no suite; expected one written by "groundgate check --partial"',
    );
  const setup = prepareRun({ ...options, suites: names });
  const { config } = setup;
  const configSha = fileSha256(config.file);
  const seen = new Map<string, string>();
  for (const p of partials) {
    const h = p.header;
    const where = { file: p.file };
    if (h.tool.version !== VERSION)
      throw new InputError(
        where,
        `written by ${h.tool.name} ${h.tool.version}; expected ${VERSION}, this merge's version (write and merge partials with one groundgate)`,
      );
    if (h.config.sha256 !== configSha) {
      const [theirs, ours] = digestsApart(h.config.sha256, configSha);
      throw new InputError(
        where,
        `written with another config (${h.config.file}, sha256 ${theirs}); expected this merge's ${setup.relative(config.file)} (sha256 ${ours})`,
      );
    }
    if (h.release !== first.header.release)
      throw new InputError(
        where,
        `written ${h.release ? 'with' : 'without'} --release; expected ${first.header.release ? 'with' : 'without'}, as ${displayPath(first.file)} was (release sign-off is all shards or none)`,
      );
    const theirs = Object.keys(h.suites);
    if (theirs.join('\n') !== names.join('\n'))
      throw new InputError(
        where,
        `holds suites ${theirs.join(', ') || '(none)'}; expected ${names.join(', ')}, as ${displayPath(first.file)} does`,
      );
    // Keyed by what each suite read (flat lists of names): a damaged state could be nested past any stack.
    const key = JSON.stringify(Object.values(h.suites).map((s) => s.inputs));
    const same = seen.get(key);
    if (same !== undefined)
      throw new InputError(
        where,
        `is the same shard as ${displayPath(same)}; expected each shard's partial once`,
      );
    seen.set(key, p.file);
  }
  return judgeRun(setup, options, async (suite) => {
    const split = splitOf(suite);
    const own = partials.map((p) => p.header.suites[suite.name]!);
    own.forEach((s, i) => {
      if (s.kind !== suite.kind.kind)
        throw new InputError(
          { file: partials[i]!.file },
          `suite ${suite.name} is ${s.kind}; expected ${suite.kind.kind}, as the config says`,
        );
    });
    const { inputs, order } = await mergedInputs(
      suite,
      split,
      partials,
      setup.config.dir,
      config.scope,
      (keys) => suiteInputs(suite, config, [], keys),
      setup.relative,
    );
    const gold = own[0]!.gold;
    own.forEach((s, i) => {
      if (JSON.stringify(s.gold) !== JSON.stringify(gold))
        throw new InputError(
          { file: partials[i]!.file },
          `suite ${suite.name}: ${goldDifference(s.gold, gold)}, as in ${displayPath(first.file)}`,
        );
    });
    if (options.release && gold) releaseCheck(suite, gold, first.file);
    const parts: MergePart[] = partials.map((partial, i) => ({
      partial,
      suite: own[i]!,
      order: order[i]!,
      fileAt(key, index) {
        const files = order[i]![key] ?? [];
        if (!(index < files.length))
          throw new InputError(
            { file: partial.file },
            `suite ${suite.name}: names ${key} file ${index} of the ${files.length} the partial lists; expected a consistent partial`,
          );
        return files[index]!;
      },
    }));
    const metrics = metricsToCompute(suite);
    const merged = await split.merge(suite.config, parts, scoreContext(setup, suite, inputs, metrics));
    // Each partial was validated as data; their sum must still be counts a run could give, shown exactly.
    for (const [name, n] of Object.entries(merged.result.counts))
      if (!(Number.isSafeInteger(n) && n >= 0))
        throw new InputError(
          { file: first.file },
          `suite ${suite.name}: the partials give ${name} ${n}; expected a whole count of 0 to ${Number.MAX_SAFE_INTEGER} (was a partial altered?)`,
        );
    return {
      inputs,
      metrics,
      result: merged.result,
      ...(gold ? { gold: { report: gold, ...(merged.digests ? { digest: merged.digests } : {}) } } : {}),
      // The shards' warnings about bytes that are not UTF-8, in file order, each once; the merge's own reads
      // (gold lines of offenders) are of files a shard read already.
      utf8Warnings: async () => {
        takeUtf8Notes();
        const byFile = new Map<string, string>();
        for (const s of own)
          for (const [file, text] of s.utf8_warnings) byFile.set(path.resolve(config.dir, file), text);
        return [...byFile].sort(([a], [b]) => compareCodeUnits(a, b)).map(([, text]) => text);
      },
    };
  });
}

/**
 * The suite's inputs as one run over every shard's would list them: a shard key's files are the union of
 * the shards' (sorted as a glob lists them), every other key's must be what each shard and this checkout
 * read. `order[i][key][j]` is where shard i's file j stands in the union.
 */
async function mergedInputs(
  suite: LoadedSuite,
  split: SuiteSplit<unknown>,
  partials: readonly PartialFile[],
  dir: string,
  scope: PathScope,
  resolve: (keys: readonly string[]) => Promise<Record<string, string[]>>,
  relative: (file: string) => string,
): Promise<{ inputs: Record<string, string[]>; order: Record<string, number[]>[] }> {
  const shared = suite.kind.inputKeys.filter((k) => !split.shardKeys.includes(k));
  const here = await resolve(shared);
  const inputs: Record<string, string[]> = {};
  const order: Record<string, number[]>[] = partials.map(() => ({}));
  const lists = partials.map((p) => p.header.suites[suite.name]!.inputs);
  for (const key of suite.kind.inputKeys) {
    const present = lists.map((l) => l[key]);
    if (present.every((l) => l === undefined) && here[key] === undefined) continue;
    if (!split.shardKeys.includes(key)) {
      const want = (here[key] ?? []).map(relative);
      const digests = (here[key] ?? []).map(fileSha256);
      present.forEach((l, i) => {
        if (JSON.stringify(l ?? []) !== JSON.stringify(want))
          throw new InputError(
            { file: partials[i]!.file },
            `suite ${suite.name}: ${key} ${(l ?? []).join(', ') || '(none)'}; expected ${want.join(', ') || '(none)'}, as this checkout's config lists (every shard reads the whole ${key})`,
          );
        const theirs = partials[i]!.header.suites[suite.name]!.digests[key] ?? [];
        const differs = digests.findIndex((d, j) => theirs[j] !== d);
        if (differs >= 0) {
          const [there, here] = digestsApart(theirs[differs], digests[differs]);
          throw new InputError(
            { file: partials[i]!.file },
            `suite ${suite.name}: ${want[differs]} differs from the shard's (sha256 ${there} there, ${here} here); expected the ${key} the partials were written with (the same commit)`,
          );
        }
      });
      inputs[key] = here[key] ?? [];
      continue;
    }
    const owner = new Map<string, number>();
    present.forEach((l, i) => {
      for (const file of l ?? []) {
        // As a shard's run wrote it: relative to the config's folder, `/`-separated, inside the workspace.
        const abs = path.resolve(dir, file);
        if (
          path.posix.normalize(file) !== file ||
          path.posix.isAbsolute(file) ||
          path.win32.isAbsolute(file) ||
          file.includes('\0') ||
          // The config's folder may be reached through a link: the workspace as given or as resolved.
          !writtenInside(scope, abs)
        )
          throw new InputError(
            { file: partials[i]!.file },
            `suite ${suite.name}: ${key} file ${preview(file, 80)}; expected a path relative to the config's folder, /-separated, inside the workspace, as a shard's run writes it`,
          );
        const other = owner.get(abs);
        if (other !== undefined)
          throw new InputError(
            { file: partials[i]!.file },
            `suite ${suite.name}: ${key} file ${file} is also ${displayPath(partials[other]!.file)}'s; expected each shard's ${key} in files of its own (e.g. runs/shard-N/…), so that no run counts twice`,
          );
        owner.set(abs, i);
      }
    });
    const union = [...owner.keys()].sort(compareCodeUnits);
    const at = new Map(union.map((f, j) => [f, j]));
    present.forEach((l, i) => (order[i]![key] = (l ?? []).map((f) => at.get(path.resolve(dir, f))!)));
    inputs[key] = union;
  }
  return { inputs, order };
}

/** Release sign-off over partials: the gold every shard read must match its lock, as a run would insist. */
function releaseCheck(suite: LoadedSuite, gold: NonNullable<PartialSuite['gold']>, file: string): void {
  if (!gold.lock || gold.lock.status === 'missing')
    throw new InputError(
      { file },
      `suite ${suite.name}: no lock for its gold set; expected one written by "groundgate freeze" (release mode needs a frozen gold set)`,
    );
  if (gold.lock.status === 'mismatch')
    throw new InputError(
      { file },
      `suite ${suite.name}: gold set does not match its lock ${gold.lock.file}: ${describeDiff(gold.lock)}; a changed gold set needs sign-off and a new lock (groundgate freeze)`,
    );
}

function splitOf(suite: LoadedSuite): SuiteSplit<unknown> {
  const split = suite.kind.split;
  if (!split)
    throw new UsageError(
      `suite "${suite.name}" (${suite.kind.kind}) cannot be split into partials yet; expected suites of the kinds that split (${SUITE_KINDS.filter(
        (k) => k.split,
      )
        .map((k) => k.kind)
        .join(', ')}) with --partial: leave the others out with --suite, and run them in one job`,
    );
  return split as SuiteSplit<unknown>;
}

/** The partials named, globs expanded and sorted as a shell sorts them (one named twice is refused later). */
export async function partialFiles(
  specs: readonly string[],
  cwd = process.cwd(),
  scope?: PathScope,
): Promise<string[]> {
  const out: string[] = [];
  for (const spec of specs) {
    if (!isDynamicPattern(spec)) {
      out.push(path.resolve(cwd, spec));
      continue;
    }
    const found = await glob(spec, { cwd, absolute: true, onlyFiles: true });
    if (found.length === 0) throw new UsageError(`merge: no partial matches ${JSON.stringify(spec)}`);
    out.push(...found.sort(compareCodeUnits));
  }
  // A partial may be anywhere the command line says, but not out through a link in the workspace.
  if (scope)
    for (const file of out) confineIfInside(file, scope, path.relative(cwd, file), { file: 'merge' });
  return out;
}

/**
 * How a shard's gold differs from the first shard's, in words: the digests shown until they differ, else
 * the item count or the lock that does (the digests alone printed two equal prefixes).
 */
export function goldDifference(theirs: GoldReport | undefined, first: GoldReport | undefined): string {
  if (theirs?.sha256 !== first?.sha256) {
    const [a, b] = digestsApart(theirs?.sha256, first?.sha256);
    return `gold ${a}; expected ${b}`;
  }
  if (theirs?.items !== first?.items) return `gold of ${theirs?.items} items; expected ${first?.items}`;
  const lock = (g: GoldReport | undefined) =>
    g?.lock
      ? `lock ${g.lock.file} ${g.lock.status} (${g.lock.added.length} added, ${g.lock.removed.length} removed, ${g.lock.changed.length} changed)`
      : 'no lock';
  return `gold ${lock(theirs)}; expected ${lock(first)}`;
}
