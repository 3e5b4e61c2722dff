import { isAscii } from 'node:buffer';
import { hash } from 'node:crypto';
import { statSync } from 'node:fs';
import { z } from 'zod';
import { displayPath, InputError, preview } from '../../errors.js';
import { canonicalJson } from '../../gold/canonical.js';
import type { ItemDigests } from '../../gold/digest.js';
import { compileFieldMap, recordChecker } from '../../io/field-map.js';
import type { LineRef } from '../../io/jsonl.js';
import { recordsAt } from '../../io/records.js';
import { safeParse } from '../../io/validate.js';
import { GOLD_WHAT, goldLineSchema, goldShape, goldTest } from '../../grounded-answer/contract.js';
import { GoldStore } from '../../grounded-answer/gold-item.js';
import { isVerdict, REFUSED, VIOLATION } from '../../grounded-answer/verdict-flags.js';
import { judged } from '../../grounded-answer/pipeline/judged-runs.js';
import { pickWinners, refHi, refLo, refOf } from '../../grounded-answer/pipeline/pick.js';
import { readsOf } from '../../grounded-answer/sources/index.js';
import { Scratch, type PartialFile } from '../../partial/file.js';
import { encodeVarints, VarintReader } from '../../partial/varint.js';
import { encodePlaces, Places } from './gold-places.js';
import { isOffenderFields, offenderFieldsSchema } from '../offender-fields.js';
import type { MergePart, Offender, SuiteSplit } from '../types.js';
import type { GroundedQaConfig } from './config.js';
import type { Usage } from '../../cost/usage.js';
import { usageFromWire, usageToWire, type UsageWire } from '../../cost/usage-wire.js';
import { answerUsage, asksUsage, USAGES_WHAT, usagesSchema, winnersUsage } from './usage.js';
import { refuseShards } from '../../claims/semantic.js';
import {
  describeItem,
  previewed,
  describer,
  judgeSuite,
  resultOf,
  rowFinder,
  scoreOptions,
  type GoldColumns,
} from './judged.js';

/**
 * grounded-qa over shards of its traces. Every shard reads the whole gold set and keeps, for each gold item
 * it has runs of, its winning run's `ts`, file and verdict (flags, recall and upper-bound bits, the SCU rule
 * broken), and a failing winner's offender fields. A merge picks each item's winner among the shards' as
 * one run picks among all runs (runs.ts `replaces`: shards read distinct files, so a tie in `ts` goes to
 * the later file) and makes the suite's result with the function a run makes it with (resultOf).
 */

const stateSchema = z.strictObject({
  items: z.int().min(1),
  cutoffs: z.array(z.int().min(1)).min(1),
  /** Gold items with a run in this shard: the length of the runs.* columns. */
  runs: z.int().min(0),
  lines: z.int().min(0),
  /** Runs of qids in gold, winners included. */
  known: z.int().min(0),
});
type State = z.infer<typeof stateSchema>;

/** The gold columns every shard writes alike: a merge reads the first partial's. */
const GOLD = ['gold.qids', 'gold.qid_lengths', 'gold.answerable', 'gold.digest', 'gold.source'] as const;
/** The columns of a shard's runs that every merge reads (runs.fields only for the offenders shown). */
const RUNS = ['runs.row', 'runs.ts', 'runs.file', 'runs.flags', 'runs.rule', 'runs.recall', 'runs.upper'];

const unknownSchema = z.array(z.tuple([z.string(), z.int().min(1)]));
const traceIdsSchema = z.array(z.string());

export const groundedQaSplit: SuiteSplit<GroundedQaConfig> = {
  shardKeys: ['traces'],

  async partial(config, ctx) {
    refuseShards(config.claims);
    const suite = await judgeSuite(config, ctx, true);
    const { gold, loaded, digest, options } = suite;
    const n = gold.length;
    const c = options.cutoffs.length;
    const traceFiles = new Map(ctx.inputs.traces!.map((f, i) => [f, i]));
    const goldFiles = new Map(ctx.inputs.gold!.map((f, i) => [f, i]));

    const qidLengths = gold.map((g) => Buffer.byteLength(g.qid, 'utf8'));
    const digests = new Uint8Array(8 * n);
    for (let i = 0; i < n; i++) digests.set(digest.digests.subarray(32 * i, 32 * i + 8), 8 * i);
    const places = gold.map(({ source: s }) => ({
      file: goldFiles.get(s.file)!,
      line: s.line,
      offset: s.offset,
      length: s.length,
    }));

    const t = loaded.table;
    const rows: number[] = [];
    for (let row = 0; row < n; row++) if (t.present[row]) rows.push(row);
    const m = rows.length;
    const recall = new Uint8Array(m * c);
    const upper = new Uint8Array(m * c);
    rows.forEach((r, j) => {
      recall.set(t.recall.subarray(r * c, r * c + c), j * c);
      upper.set(t.upper.subarray(r * c, r * c + c), j * c);
    });

    // A failing winner's fields as a run over this shard alone would show them, a JSON line each: a merge
    // reads the few its report shows.
    const failing = rows.filter((r) => !loaded.passed(r));
    const described = await describer(suite, ctx)(failing.map((r) => gold[r]!.qid));
    const fieldsAt = new Float64Array(2 * m).fill(-1);
    const lines: string[] = [];
    let at = 0;
    rows.forEach((r, j) => {
      const fields = described.get(gold[r]!.qid);
      if (!fields) return;
      const text = `${JSON.stringify(fields)}\n`;
      fieldsAt[2 * j] = at;
      fieldsAt[2 * j + 1] = Buffer.byteLength(text, 'utf8');
      at += fieldsAt[2 * j + 1]!;
      lines.push(text);
    });

    // Each run's usage, as the suite's own pass reads it, when the suite asks for tokens (see usage.ts).
    const usages = asksUsage(config)
      ? winnersUsage(
          options.traces,
          gold.map((g) => g.qid),
          loaded,
        )
      : undefined;

    const state: State = {
      items: n,
      cutoffs: [...options.cutoffs],
      runs: m,
      lines: loaded.lines,
      known: loaded.superseded + m,
    };
    return {
      state,
      goldDigest: digest,
      sections: {
        // The gold columns every shard repeats are stored small (3 MB at 200k items): ids and answerability
        // deflated, lengths and places as varints, and the digests, random bytes, as they are.
        'gold.qids': { deflate: Buffer.from(gold.map((g) => g.qid).join(''), 'utf8') },
        'gold.qid_lengths': encodeVarints(qidLengths),
        'gold.answerable': { deflate: Uint8Array.from(gold, (g) => (g.answerable ? 1 : 0)) },
        'gold.digest': digests,
        'gold.source': encodePlaces(places),
        'runs.row': Uint32Array.from(rows),
        'runs.ts': Float64Array.from(rows, (r) => t.ts[r]!),
        'runs.file': Uint32Array.from(rows, (r) => traceFiles.get(loaded.ref(r)!.file)!),
        'runs.flags': Uint32Array.from(rows, (r) => t.flags[r]!),
        'runs.rule': Int16Array.from(rows, (r) => t.rule[r]!),
        'runs.recall': recall,
        'runs.upper': upper,
        'runs.fields': fieldsAt,
        fields: Buffer.from(lines.join(''), 'utf8'),
        unknown: Buffer.from(JSON.stringify([...loaded.unknown]), 'utf8'),
        ...(loaded.traceIds && { 'runs.trace_ids': Buffer.from(JSON.stringify(loaded.traceIds()), 'utf8') }),
        ...(usages && {
          'runs.usage': Buffer.from(
            JSON.stringify(rows.map((r) => (usages[r] ? usageToWire(usages[r]) : null))),
            'utf8',
          ),
        }),
      },
    };
  },

  async merge(config, parts, ctx) {
    const name = ctx.suite;
    const states = parts.map(stateOf);
    const first = states[0]!;
    const n = first.items;
    const c = first.cutoffs.length;
    const options = scoreOptions(config, ctx);
    if (JSON.stringify(options.cutoffs) !== JSON.stringify(first.cutoffs))
      throw new InputError(
        { file: parts[0]!.partial.file },
        `suite ${name}: cutoffs ${first.cutoffs.join(', ')}; expected ${options.cutoffs.join(', ')}, as the config asks`,
      );
    states.forEach((s, i) => {
      const where = { file: parts[i]!.partial.file };
      if (s.items !== n || s.cutoffs.join() !== first.cutoffs.join())
        throw new InputError(
          where,
          `suite ${name}: ${s.items} gold items at cutoffs ${s.cutoffs.join(', ')}; expected ${n} at ${first.cutoffs.join(', ')}, as in ${displayPath(parts[0]!.partial.file)}`,
        );
      for (const key of GOLD)
        if (parts[i]!.partial.sha256Of(name, key) !== parts[0]!.partial.sha256Of(name, key))
          throw new InputError(
            where,
            `suite ${name}: its gold columns (${key}) differ from ${displayPath(parts[0]!.partial.file)}'s; expected partials of one gold set`,
          );
    });
    if (readsOf(options.traces).assemblesAcrossFiles) oneShardATrace(parts, name);
    const gold = readGold(parts[0]!.partial, name, n, ctx.inputs.gold!);
    const rules = options.scuRules?.length ?? 0;

    // A shard's runs are its winners already: the pick keeps one per item among them, and the counts of runs
    // read and qids not in gold are each shard's own, summed.
    let lines = 0;
    let known = 0;
    const unknown = new Map<string, number>();
    const scratch = new Scratch();
    const find = rowFinder(gold.columns.qids);
    const usages = asksUsage(config) ? new Array<Usage | undefined>(n).fill(undefined) : undefined;
    const { table } = pickWinners(gold.columns.qids, c, undefined, (offer, table) => {
      parts.forEach((part, p) => {
        const s = states[p]!;
        const shardUnknown = unknownOf(part, name);
        checkCounts(part, name, s, shardUnknown, find);
        const cols = new Columns(part.partial, name, RUNS, {}, scratch);
        const m = s.runs;
        const row = cols.get('runs.row', Uint32Array, m);
        const ts = cols.get('runs.ts', Float64Array, m);
        const file = cols.get('runs.file', Uint32Array, m);
        const flags = cols.get('runs.flags', Uint32Array, m);
        const rule = cols.get('runs.rule', Int16Array, m);
        const recall = cols.get('runs.recall', Uint8Array, m * c);
        const upper = cols.get('runs.upper', Uint8Array, m * c);
        const order = part.order.traces!;
        const partUsages = usages && usagesOf(part, name, m);
        for (let j = 0; j < m; j++) {
          const r = row[j]!;
          const f = file[j]!;
          // A shard lists its items' runs in gold order, one each.
          if (r >= n || (j > 0 && r <= row[j - 1]!))
            badRun(part, name, j, `runs.row ${r}; expected a gold row below ${n}, after the run before's`);
          if (f >= order.length)
            badRun(part, name, j, `runs.file ${f}; expected one of ${order.length} trace files`);
          if (ts[j] === Infinity || ts[j] === -Infinity)
            badRun(part, name, j, `runs.ts ${ts[j]}; expected a finite number, or none`);
          if (rule[j]! < -1 || rule[j]! >= rules)
            badRun(part, name, j, `runs.rule ${rule[j]}; expected an SCU rule of ${rules}, or -1`);
          const broken = verdictProblem(
            flags[j]!,
            rule[j]!,
            recall,
            upper,
            j * c,
            c,
            gold.columns.answerable[r] === 1,
          );
          if (broken) badRun(part, name, j, broken);
          // Shards read distinct files, so a run's file's place in the whole input orders it.
          const position = { file: order[f]!, ordinal: 0 };
          const qid = gold.columns.qids[r]!;
          if (!offer({ qid, ts: ts[j]!, position, line: 0, ref: refOf(p, j), runs: 1 })) continue;
          table.flags[r] = flags[j]!;
          table.rule[r] = rule[j]!;
          if (usages) {
            const wire = partUsages![j];
            usages[r] = wire ? usageFromWire(wire) : undefined;
          }
          for (let k = 0; k < c; k++) {
            table.recall[r * c + k] = recall[j * c + k]!;
            table.upper[r * c + k] = upper[j * c + k]!;
          }
        }
        lines += s.lines;
        known += s.known;
        for (const [qid, count] of shardUnknown) unknown.set(qid, (unknown.get(qid) ?? 0) + count);
      });
      return { lines, winners: undefined };
    });
    const runs = judged(table, lines, known, unknown, options);
    // Only failing items are described.
    const rowOf = (id: string) => {
      const r = find(id);
      return r === undefined || runs.passed(r) ? undefined : r;
    };
    const describe = async (ids: readonly string[]) => {
      const out = new Map<string, NonNullable<Offender['fields']>>();
      const missing: number[] = [];
      // The winning runs to describe, by shard: each shard's are read together (see PartialFile.ranges).
      const byShard = new Map<number, { id: string; j: number }[]>();
      for (const id of ids) {
        const r = rowOf(id);
        if (r === undefined) continue;
        if (!table.present[r]) missing.push(r);
        else {
          const p = refHi(table.ref[r]!);
          (byShard.get(p) ?? byShard.set(p, []).get(p)!).push({ id, j: refLo(table.ref[r]!) });
        }
      }
      const scratch = new Scratch();
      for (const [p, shardRuns] of byShard) {
        const part = parts[p]!;
        // Each run's two values of runs.fields, where its fields are: the whole column of 64 shards took 60 ms
        // for a report's 1000 offenders.
        const at = new Float64Array(2 * shardRuns.length);
        const positions = shardRuns.map(({ j }) => ({ offset: 16 * j, length: 16 }));
        part.partial.ranges(
          name,
          'runs.fields',
          positions,
          (i, b) => at.set(new Float64Array(Uint8Array.from(b).buffer), 2 * i),
          scratch,
        );
        const spans = shardRuns.map(({ j }, i) => {
          if (!(at[2 * i]! >= 0)) badRun(part, name, j, 'a failing run without its fields in runs.fields');
          return { offset: at[2 * i]!, length: at[2 * i + 1]! };
        });
        part.partial.ranges(
          name,
          'fields',
          spans,
          (i, b) => out.set(shardRuns[i]!.id, fieldsOf(part, name, spans[i]!.offset, b)),
          scratch,
        );
      }
      // Items without a run in any shard: their fields come from gold alone, read here.
      for (const [r, fields] of await gold.describeMissing(missing, config))
        out.set(gold.columns.qids[r]!, fields);
      return out;
    };
    const usage = usages && answerUsage(config, ctx, table.present, usages);
    return {
      result: resultOf(gold.columns, runs, options, ctx.relative, describe, usage),
      digests: gold.digests,
    };
  },
};

/**
 * Some of a partial's typed columns of one suite, read at once (and checked against their sha256); each is
 * checked to hold as many values as the state says.
 */
class Columns {
  private readonly read: ReturnType<PartialFile['sections']>;

  constructor(
    private readonly partial: PartialFile,
    private readonly suite: string,
    keys: readonly string[],
    caps: Readonly<Record<string, number>> = {},
    scratch?: Scratch,
  ) {
    const stored = partial.header.suites[suite]?.sections ?? {};
    // Deflated sections are inflated one by one; the others are read at once.
    this.read = partial.sections(
      suite,
      keys.filter((k) => !stored[k]?.inflated),
      scratch,
    );
    for (const key of keys.filter((k) => stored[k]?.inflated)) {
      const buffer = partial.section(suite, key, caps[key]);
      this.read.set(key, { buffer, offset: 0, length: buffer.byteLength });
    }
  }

  /** A section's bytes, as many as it holds. */
  bytes(key: string): Uint8Array {
    const { length } = this.read.get(key)!;
    return this.get(key, Uint8Array, length);
  }

  get<T extends { length: number }>(
    key: string,
    Kind: { new (b: ArrayBuffer, offset: number, length: number): T; BYTES_PER_ELEMENT: number },
    want: number,
  ): T {
    const { buffer, offset, length } = this.read.get(key)!;
    if (length !== want * Kind.BYTES_PER_ELEMENT || offset % Kind.BYTES_PER_ELEMENT !== 0)
      throw new InputError(
        { file: this.partial.file },
        `section ${this.suite}.${key} holds ${length} bytes at byte ${offset}; expected ${want} values of ${Kind.BYTES_PER_ELEMENT}, aligned`,
      );
    return new Kind(buffer, offset, want);
  }
}

/** The gold set as the partials saw it: ids, answerability, digests, and where each item is. */
function readGold(partial: PartialFile, suite: string, n: number, files: readonly string[]) {
  // What a gold column may inflate to, from this checkout's gold files: an item takes a byte of them at least.
  const sizes = files.map((f) => statSync(f).size);
  const goldBytes = sizes.reduce((sum, size) => sum + size, 0);
  if (n > goldBytes)
    throw new InputError(
      { file: partial.file },
      `suite ${suite}: ${n} gold items; expected at most ${goldBytes}, the bytes of this checkout's gold files`,
    );
  // Caps on what each column may inflate to: those written as they are (varints, digests) are bounded too,
  // should a forged header call them deflated.
  const cols = new Columns(partial, suite, GOLD, {
    'gold.qids': goldBytes,
    'gold.qid_lengths': 8 * n,
    'gold.answerable': n,
    'gold.digest': 8 * n,
    'gold.source': 32 * n,
  });
  const qids = cols.bytes('gold.qids');
  const bytes = Buffer.from(qids.buffer, qids.byteOffset, qids.byteLength);
  const answerable = cols.get('gold.answerable', Uint8Array, n);
  // A view, not a copy: these columns are read into buffers of their own (no Scratch), which Places keeps too.
  const d = cols.get('gold.digest', Uint8Array, 8 * n);
  const digest = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  const broken = (what: string) =>
    new InputError({ file: partial.file }, `suite ${suite}: ${what}; expected a consistent partial`);
  const lengths = new VarintReader(cols.bytes('gold.qid_lengths'));
  // ASCII ids (the usual) are sliced from one string: 200k toString calls took 40 ms.
  const ascii = isAscii(bytes) ? bytes.toString('latin1') : undefined;
  const ids: string[] = new Array(n);
  let start = 0;
  // Each item's place is checked as it is read: the merge reads an offender's line from this checkout's gold.
  const places = Places.read(cols.bytes('gold.source'), n, (i, { file, line, offset, length }) => {
    const qidLength = lengths.next();
    const end = start + qidLength;
    if (qidLength < 0 || end > bytes.length) throw broken(`gold item ${i} has a broken qid`);
    if (answerable[i]! > 1) throw broken(`gold item ${i} has answerability ${answerable[i]}, not 0 or 1`);
    if (!Number.isSafeInteger(file) || files[file] === undefined)
      throw broken(`gold item ${i} names gold file ${file} of ${files.length}`);
    if (
      !Number.isSafeInteger(line) ||
      line < 1 ||
      !Number.isSafeInteger(offset) ||
      offset < -1 ||
      !Number.isSafeInteger(length) ||
      length < 0 ||
      offset + length > sizes[file]!
    )
      throw broken(
        `gold item ${i} is at line ${line}, bytes ${offset}+${length}, not a place in ${files[file]}`,
      );
    ids[i] = ascii !== undefined ? ascii.slice(start, end) : bytes.toString('utf8', start, end);
    start = end;
  });
  if (!places || !lengths.done)
    throw broken(`gold.${places ? 'qid_lengths' : 'source'} does not hold ${n} items' values as varints`);
  const digests: ItemDigests = { ids, size: n, raw: digest, stride: 8 };
  const columns: GoldColumns = {
    qids: ids,
    answerable,
    source: (i) => {
      const { file, line } = places.at(i);
      return { file: files[file]!, line };
    },
  };
  return {
    columns,
    digests,
    /** Offender fields of items without a run, from their gold lines, each checked against its digest. */
    async describeMissing(rows: readonly number[], config: GroundedQaConfig) {
      const refs: LineRef[] = rows.map((r) => {
        const { file, line, offset, length } = places.at(r);
        return { file: files[file]!, line, offset, length };
      });
      const records = await recordsAt(refs);
      const goldMap = compileFieldMap(config.fields?.gold, goldShape);
      const checker = recordChecker(goldLineSchema, goldTest, config.fields?.gold, GOLD_WHAT, goldShape);
      const store = new GoldStore();
      const out = new Map<number, NonNullable<Offender['fields']>>();
      rows.forEach((r, i) => {
        const ref = refs[i]!;
        const value = records.get(ref);
        const sha = hash('sha256', canonicalJson(value), 'hex').slice(0, 16);
        if (sha !== digest.toString('hex', 8 * r, 8 * r + 8))
          throw new InputError(
            ref,
            `gold item ${JSON.stringify(ids[r])} differs from the gold set the partials were written with; expected the same gold files in the merge's checkout`,
          );
        const g = checker.check(value, ref.file, ref.line);
        const item = store.add(
          g.qid,
          g.answerable,
          [g.gold_claim_substr, g.gold_citations, g.constraints ?? []],
          ref,
        );
        const question = ((goldMap ? goldMap.apply(value) : value) as { question?: unknown }).question;
        const previews = new Map<string, string>();
        goldMap?.previews(value, previews);
        out.set(
          r,
          previewed(
            describeItem(item, question, undefined, {
              labels: ['missing_trace'],
              trace: undefined,
              contradiction: undefined,
            }),
            previews,
          ),
        );
      });
      store.seal();
      return out;
    },
  };
}

function stateOf(part: MergePart): State {
  const parsed = safeParse(stateSchema, part.suite.state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(
      { file: part.partial.file, line: 1 },
      `header state${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}; expected a grounded-qa partial of this version`,
    );
  }
  return parsed.data;
}

/**
 * A shard's counts against what its sections hold: its runs are runs of gold items, each read from a line
 * (known), and every line read was a run of a gold item or of a qid not in gold (unknown).
 */
function checkCounts(
  part: MergePart,
  suite: string,
  s: State,
  unknown: readonly [string, number][],
  find: (id: string) => number | undefined,
): void {
  let unknownLines = 0;
  for (const [qid, count] of unknown) {
    if (find(qid) !== undefined)
      throw new InputError(
        { file: part.partial.file },
        `suite ${suite}: section unknown lists qid ${preview(qid)}, which is in gold; expected qids not in gold`,
      );
    unknownLines += count;
  }
  const broken =
    s.runs > s.items
      ? `runs ${s.runs}; expected at most items, ${s.items}`
      : s.known < s.runs
        ? `known ${s.known}; expected at least runs, ${s.runs}`
        : s.lines !== s.known + unknownLines
          ? `lines ${s.lines}; expected known plus the lines of section unknown, ${s.known + unknownLines}`
          : undefined;
  if (broken)
    throw new InputError({ file: part.partial.file, line: 1 }, `header state of suite ${suite}: ${broken}`);
}

/**
 * What is wrong with a run's verdict, if anything: its flags must be a word judging gives a run of an item
 * of its answerability (code reading them relies on it), an SCU rule comes with a violation, recall is of
 * answerable items only, and a refusal has no upper-bound bits.
 */
function verdictProblem(
  flags: number,
  rule: number,
  recall: Uint8Array,
  upper: Uint8Array,
  /** Where the run's bits are in recall and upper, and how many (one a cutoff). */
  at: number,
  cutoffs: number,
  answerable: boolean,
): string | undefined {
  let recalled = 0;
  let bounded = 0;
  for (let k = at; k < at + cutoffs; k++) {
    if (recall[k]! > 1 || upper[k]! > 1)
      return `runs.recall bit ${recall[k]}, runs.upper bit ${upper[k]}; expected 0 or 1`;
    recalled |= recall[k]!;
    bounded |= upper[k]!;
  }
  if (!isVerdict(flags, answerable))
    return `runs.flags ${flags}; expected flags judging gives a run of an ${answerable ? 'answerable' : 'unanswerable'} item`;
  if (rule >= 0 && !(flags & VIOLATION))
    return `runs.rule ${rule} without a violation in runs.flags ${flags}`;
  if (!answerable && recalled) return 'a runs.recall bit of an unanswerable item; expected none';
  if (flags & REFUSED && bounded) return 'a runs.upper bit of a refused answer; expected none';
  return undefined;
}

function badRun(part: MergePart, suite: string, j: number, what: string): never {
  throw new InputError(
    { file: part.partial.file },
    `suite ${suite}: run ${j} names ${what} (a consistent partial)`,
  );
}

/**
 * Refuses a trace whose spans are in two shards (traces of a format that assembles them across files, as
 * OpenInference's are): one run assembles them into one trace, each shard into one of its own, and no merge
 * of the two is that trace.
 */
function oneShardATrace(parts: readonly MergePart[], suite: string): void {
  const shardOf = new Map<string, number>();
  parts.forEach((part, p) => {
    const ids = part.partial.json(suite, 'runs.trace_ids', traceIdsSchema, 'the ids of its traces (strings)');
    for (const id of ids) {
      const q = shardOf.get(id);
      if (q !== undefined && q !== p)
        throw new InputError(
          { file: part.partial.file },
          `suite ${suite}: trace ${preview(id)} has spans in this shard and in ${displayPath(parts[q]!.partial.file)}; expected each trace's spans in one shard's files (one run assembles them into one trace, the shards into two)`,
        );
      shardOf.set(id, p);
    }
  });
}

/** A shard's usages of its `m` runs (section runs.usage, written when its suite asks for tokens). */
function usagesOf(part: MergePart, suite: string, m: number): (UsageWire | null)[] {
  const usages = part.partial.json(suite, 'runs.usage', usagesSchema, USAGES_WHAT);
  if (usages.length !== m)
    throw new InputError(
      { file: part.partial.file },
      `suite ${suite}: section runs.usage holds ${usages.length} runs' token counts; expected ${m}, one per run`,
    );
  return usages;
}

function unknownOf(part: MergePart, suite: string): [string, number][] {
  return part.partial.json(suite, 'unknown', unknownSchema, '[qid, lines] pairs', isUnknownPairs);
}

/** unknownSchema's test, quicker: zod took 80 ms over 64 shards' 18k pairs. */
function isUnknownPairs(value: unknown): value is [string, number][] {
  return (
    Array.isArray(value) &&
    value.every(
      (p) =>
        Array.isArray(p) &&
        p.length === 2 &&
        typeof p[0] === 'string' &&
        Number.isSafeInteger(p[1]) &&
        (p[1] as number) >= 1,
    )
  );
}

function fieldsOf(
  part: MergePart,
  suite: string,
  offset: number,
  bytes: Buffer,
): NonNullable<Offender['fields']> {
  return part.partial.parsed(
    suite,
    'fields',
    bytes,
    offenderFieldsSchema,
    `an offender's fields at byte ${offset} (a JSON object of strings, numbers, booleans, string lists and nulls)`,
    isOffenderFields,
  );
}
