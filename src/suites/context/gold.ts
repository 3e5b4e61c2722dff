import { z } from 'zod';
import { compiled, JS_DOT } from '../../config/pattern.js';
import { InputError, preview } from '../../errors.js';
import { readRecordsOf } from '../../io/records.js';
import { describeIssue, safeParse, validateLine } from '../../io/validate.js';
import { goldItemSchema, goldRowSchema, type GoldItem, type Source } from './contract.js';
import { normalizeGoldPath } from './paths.js';

/** A gold region with its path made repository-relative. */
export interface GoldRegion {
  file: string;
  start: number;
  end: number;
}

export interface GoldInstance {
  /** The ids the row answers to (inst_id, instance_id, original_inst_id), in that order. */
  ids: string[];
  /** Regions the fix edits (`init_ctx`, or all of `gold_ctx` / `gold_context`): EditLoc and line gold. */
  init: GoldRegion[];
  /** Regions the fix also needs (`add_ctx`). */
  add: GoldRegion[];
  commit?: string;
  /** The reference patch (used for EditLoc only with `patch_fallback: true`). */
  patch: string;
  source: Source;
}

const WHAT =
  'a ContextBench gold row {inst_id or original_inst_id, gold_context | gold_ctx | init_ctx + add_ctx}';

/** Reads every gold row; each id may belong to one row only. */
export async function loadGold(files: readonly string[]): Promise<GoldInstance[]> {
  const out: GoldInstance[] = [];
  const seen = new Map<string, Source>();
  for (const file of files) {
    for await (const { line, value } of readRecordsOf(file)) {
      const source = { file, line };
      const instance = parseGoldRow(value, source);
      for (const id of instance.ids) {
        const first = seen.get(id);
        if (first) {
          const at = first.file === file ? `line ${first.line}` : `${first.file}:${first.line}`;
          throw new InputError(
            source,
            `duplicate instance id ${JSON.stringify(id)} (first defined at ${at}); expected one gold row per instance`,
          );
        }
        seen.set(id, source);
      }
      out.push(instance);
    }
  }
  if (out.length === 0) {
    throw new InputError({ file: files[0] ?? 'gold' }, 'gold set is empty; expected at least one row');
  }
  return out;
}

/**
 * One row → an instance. Like the evaluator, `init_ctx`/`add_ctx` win when either is non-empty, else
 * `gold_ctx`, else `gold_context`; a row with none of them is an error rather than an empty gold set.
 */
export function parseGoldRow(value: unknown, source: Source): GoldInstance {
  const row = validateLine(goldRowSchema, value, source.file, source.line, WHAT);
  const ids = [...new Set([row.inst_id, row.instance_id, row.original_inst_id].filter(isString))];
  if (ids.length === 0) {
    throw new InputError(source, `missing field "inst_id" (${WHAT}); expected an instance id`);
  }
  let init: GoldRegion[];
  let add: GoldRegion[] = [];
  if ((row.init_ctx?.length ?? 0) > 0 || (row.add_ctx?.length ?? 0) > 0) {
    init = regions(row.init_ctx ?? [], 'init_ctx', source);
    add = regions(row.add_ctx ?? [], 'add_ctx', source);
  } else if (row.gold_ctx !== undefined && row.gold_ctx !== null) {
    init = regions(listOf(row.gold_ctx, 'gold_ctx', source), 'gold_ctx', source);
  } else if (row.gold_context !== undefined && row.gold_context !== null) {
    init = regions(listOf(row.gold_context, 'gold_context', source), 'gold_context', source);
  } else if (row.init_ctx || row.add_ctx) {
    init = [];
  } else {
    throw new InputError(
      source,
      `no gold context (${WHAT}); expected "gold_context", "gold_ctx" or "init_ctx"/"add_ctx"`,
    );
  }
  return {
    ids,
    init,
    add,
    commit: row.commit || row.base_commit || undefined,
    patch: row.patch ?? '',
    source,
  };
}

function isString(x: string | undefined): x is string {
  return x !== undefined;
}

/** A list of regions as stored: a JSON array, a JSON string holding one, or the `context0：` text blob. */
function listOf(value: string | unknown[], field: string, source: Source): unknown[] {
  if (Array.isArray(value)) return value;
  const text = value.trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new InputError(
        source,
        `field "${field}": ${(err as Error).message.split('\n')[0]}; expected a JSON array of {file, start_line, end_line}`,
      );
    }
    if (!Array.isArray(parsed)) {
      throw new InputError(source, `field "${field}": found ${preview(parsed)}; expected a JSON array`);
    }
    return parsed;
  }
  if (text === '') return [];
  return parseTextBlob(text, field, source);
}

const BLOB_HEADER = /^context(\d+)[：:][ \t]*\r?\n/gmu;
/** On RE2, linear in a gold line from a pull request (`[ \t]*(.*?)[ \t]*` backtracks over a long blank run). */
export const BLOB_FIELD = (name: string) => compiled(String.raw`^${name}:[ \t]*(${JS_DOT}*?)[ \t]*\r?$`);

/**
 * The text form of `gold_context`: blocks `context<i>：` (a full-width or ASCII colon), then `file: …`,
 * `start_line: N`, `end_line: N` lines, then the region's content up to the next header.
 */
function parseTextBlob(text: string, field: string, source: Source): unknown[] {
  const headers = [...text.matchAll(BLOB_HEADER)];
  if (headers.length === 0 || headers[0]!.index !== 0) {
    throw new InputError(
      source,
      `field "${field}": found ${preview(text)}; expected a JSON array or "context0：" blocks of file/start_line/end_line`,
    );
  }
  return headers.map((h, i) => {
    const lines = text.slice(h.index + h[0].length).split('\n', 3);
    const [file, start, end] = ['file', 'start_line', 'end_line'].map((name, k) => {
      const m = BLOB_FIELD(name).exec(lines[k] ?? '');
      if (!m) {
        throw new InputError(
          source,
          `field "${field}": block context${h[1]} line ${k + 2} is ${preview(lines[k] ?? '')}; expected "${name}: …"`,
        );
      }
      return m[1]!;
    });
    if (Number(h[1]) !== i) {
      throw new InputError(
        source,
        `field "${field}": block context${h[1]} found where context${i} was expected`,
      );
    }
    return { file, start_line: Number(start), end_line: Number(end) };
  });
}

const goldRegions = z.array(goldItemSchema);

function regions(items: readonly unknown[], field: string, source: Source): GoldRegion[] {
  const list = safeParse(goldRegions, items);
  if (!list.success) {
    const issue = list.error.issues[0]!;
    const message = describeIssue(
      { ...issue, path: [field, ...issue.path] },
      items,
      'a gold region {file, start_line, end_line}',
    );
    throw new InputError(source, message);
  }
  return list.data.map((item: GoldItem) => ({
    file: normalizeGoldPath(item.file),
    start: item.start_line,
    end: item.end_line,
  }));
}
