import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import {
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
  type AsyncBuffer,
  type FileMetaData,
  type SchemaTree,
} from 'hyparquet';
import type { Worker } from 'node:worker_threads';
import { HELPER_LIMITS } from '../engine-thread.js';
import { InputError, ioError, preview, type Where } from '../errors.js';
import { helperBundle } from '../helper-bundle.js';
import { CODECS_READ, compressors } from './parquet-codecs.js';
import { decodeSeconds, notDecoded } from './parquet-limits.js';
import { noteInvalidUtf8, takeUtf8Notes } from './utf8.js';
import type { JsonlRecord } from './jsonl.js';
import { skipSpace, skipValue } from './json-scan.js';

// Parquet gold and traces (ContextBench ships its gold as Parquet; Hugging Face datasets publish it), read
// with hyparquet (pure JavaScript, no native build) a row group at a time. A row is a record as a JSON line
// is, numbered from 1 as lines are: errors name `file row N`.

async function fileBuffer(file: string): Promise<{ buffer: AsyncBuffer; close(): Promise<void> }> {
  const handle = await open(file, 'r').catch((err: unknown) => {
    throw ioError(file, err, 'a Parquet file');
  });
  const { size } = await handle.stat();
  return {
    buffer: {
      byteLength: size,
      async slice(start, end = size) {
        // A buffer of its own (not a slice of Node's pool), so its ArrayBuffer is handed over uncopied.
        const out = new Uint8Array(end - start);
        await handle.read(out, 0, out.length, start);
        return out.buffer;
      },
    },
    close: () => handle.close(),
  };
}

/** The file's metadata, refused unless it is consistent (see columnsInSchema) and its first bytes the magic. */
async function metadataOf(file: string, buffer: AsyncBuffer): Promise<FileMetaData> {
  try {
    const metadata = await parquetMetadataAsync(buffer);
    // hyparquet reads the footer only: a file's first bytes must be the magic too.
    const head = new Uint8Array(await buffer.slice(0, 4));
    if (String.fromCharCode(...head) !== 'PAR1') throw new Error('it does not begin with PAR1');
    columnsInSchema(metadata, file, buffer.byteLength);
    return metadata;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(
      { file },
      `not a Parquet file (${whyNot(err, 'its footer')}); expected a .parquet file`,
    );
  }
}

/**
 * What a reader's error says of the file. hyparquet's own errors name the fault ("footer != PAR1"); a
 * TypeError or RangeError is its code meeting a field of the wrong type or size (`e.field_4?.map is not a
 * function`, `Cannot mix BigInt and other types`), which says nothing to the file's owner.
 */
function whyNot(err: unknown, part: string): string {
  if (err instanceof TypeError || err instanceof RangeError)
    return `${part} is damaged: a field holds a value of the wrong type or size`;
  const message = (err as Error).message;
  // Thrift is the encoding of footers and page headers: its words name a byte it could not read.
  if (/^thrift /.test(message))
    return `${part} is damaged: its encoding (Thrift) cannot be read (${message})`;
  // A field the reader needed was missing: "parquet unsupported page type: undefined".
  if (/\bundefined\b/.test(message)) return `${part} is damaged: a field it needs is missing`;
  return message;
}

/**
 * Throws unless every column chunk the row groups list is a column of the schema, and the row counts agree:
 * the groups' rows sum to the file's, and a column that repeats nowhere holds one value a row of its group.
 * hyparquet starts reading a group's chunks one by one and stops at the first it cannot place: the reads it
 * had started then fail with no one to hear it, and an unheard rejection ends the thread that decodes (found by
 * fuzzing: a flipped byte in a column's name). A group claiming fewer rows than its columns hold would lose
 * the others silently.
 */
function columnsInSchema(metadata: FileMetaData, file: string, bytes: number): void {
  if (Number(metadata.num_rows) > MAX_ROWS_PER_BYTE * bytes)
    throw new InputError(
      { file },
      `declares ${metadata.num_rows} rows in ${bytes} bytes; expected at most ${MAX_ROWS_PER_BYTE} rows a byte (a file of this many rows would be larger)`,
    );
  const disagree = (what: string) =>
    new InputError({ file }, `${what}; expected row counts that agree (is the file damaged?)`);
  // Leaves by path, whether any of their ancestors repeats: found in one walk, not a search a chunk (a file of
  // 40,000 columns took 20 s).
  const leaves = new Map<string, boolean>();
  const walk = (node: SchemaTree, path: string, repeats: boolean) => {
    const names = new Set<string>();
    for (const child of node.children) {
      const { name } = child.element;
      const at = path === '' ? name : `${path}\u0000${name}`;
      // A row is an object: of two members of one name, it would keep one and lose the other silently.
      if (names.has(name))
        throw new InputError(
          { file },
          `the schema has two columns named ${preview(at.replaceAll('\u0000', '.'), 80)}; expected each name once`,
        );
      names.add(name);
      const r = repeats || child.element.repetition_type === 'REPEATED';
      if (child.children.length === 0) leaves.set(at, r);
      else walk(child, at, r);
    }
  };
  walk(parquetSchema(metadata), '', false);
  // `what` is made only for the error: a file of 40,000 columns checks as many counts.
  const counted = (v: unknown, what: () => string) => {
    if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return;
    throw new InputError(
      { file },
      `${what()} gives no count; expected a footer that counts every row group's rows and every column chunk's values (is the file damaged?)`,
    );
  };
  counted(metadata.num_rows, () => 'the footer');
  if (!Array.isArray(metadata.row_groups)) throw new Error('its footer lists no row groups');
  let rows = 0;
  metadata.row_groups.forEach((group, g) => {
    counted(group.num_rows, () => `row group ${g + 1}`);
    rows += Number(group.num_rows);
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema;
      if (!path) throw new Error("a column chunk names no column in the file's schema");
      // For errors alone: a damaged footer's names can be any bytes, of any length.
      const name = () => preview(path.join('.'), 80);
      const repeats = leaves.get(path.join('\u0000'));
      if (repeats === undefined) throw new Error(`column ${name()} is not in the file's schema`);
      counted(chunk.meta_data!.num_values, () => `row group ${g + 1}'s column ${name()}`);
      const values = Number(chunk.meta_data!.num_values);
      // As rows are (below): a list column's values, too, come from bytes.
      if (values > MAX_ROWS_PER_BYTE * bytes)
        throw new InputError(
          { file },
          `column ${name()} declares ${values} values in ${bytes} bytes; expected at most ${MAX_ROWS_PER_BYTE} values a byte (a file of this many values would be larger)`,
        );
      if (!repeats && values !== Number(group.num_rows))
        throw disagree(
          `row group ${g + 1} says ${group.num_rows} rows, but its column ${name()} holds ${chunk.meta_data!.num_values} values`,
        );
    }
  });
  if (rows !== Number(metadata.num_rows))
    throw disagree(`the file says ${metadata.num_rows} rows, but its row groups hold ${rows}`);
}

/**
 * A row group is decoded in the fewest windows of at most this many rows: pyarrow's default groups (up to
 * 1,048,576 rows) in one. Each window decodes the group's pages from its start again (the dictionary, converted
 * anew, and every page of a nested column, since only flat columns skip pages), so windows cost time that
 * grows with their square: a 500,000-row group read 100,000 rows at a time took 39 s, in one window 19 s, its
 * peak 37 MiB higher (1.0 GB); a million-row group 117 s against 31 s, its peak 1.3 GB against 1.6 GB.
 */
const WINDOW_ROWS = 1_048_576;

/** Rows [from, to) of one group as the fewest windows of at most `most` rows, of sizes that differ by one at most. */
export function rowWindows(from: number, to: number, most = WINDOW_ROWS): [number, number][] {
  const count = Math.ceil((to - from) / most);
  const out: [number, number][] = [];
  for (let k = 0; k < count; k++)
    out.push([
      from + Math.floor(((to - from) * k) / count),
      from + Math.floor(((to - from) * (k + 1)) / count),
    ]);
  return out;
}

/**
 * A file claiming more rows per byte is refused before decoding: repeated values compress to almost
 * nothing, and a few kilobytes could otherwise decode into gigabytes. A gold set's unique qids alone take
 * more than a byte a row.
 */
const MAX_ROWS_PER_BYTE = 64;

/** How many rows each row group of the file has (its metadata says), checked as readParquet checks it. */
export async function parquetRowGroups(file: string): Promise<number[]> {
  const { buffer, close } = await fileBuffer(file);
  try {
    return (await metadataOf(file, buffer)).row_groups.map((g) => Number(g.num_rows));
  } finally {
    await close();
  }
}

/** Which rows to read: `[start, end)` (0-based; undefined `end` reads to the last row), or only `rows` (from 1). */
export interface RowRange {
  start?: number;
  end?: number;
  rows?: ReadonlySet<number>;
  /**
   * Top-level JSON columns whose values are given as JsonText, not parsed: a reader that checks them on
   * their bytes parses only the values it keeps (JSON.parse of two such columns was half of decoding 500k
   * trace rows). Only on the thread that decodes them: a JsonText does not cross threads.
   */
  rawJson?: ReadonlySet<string>;
  /**
   * With rawJson: tells bytes of a shape the reader expects (a non-zero tag, kept as the JsonText's `shape`),
   * strictly enough that bytes it tags are JSON: they are not scanned a second time to check that.
   */
  shapeOf?: (bytes: Uint8Array) => number;
  /**
   * Ask the decoding thread for each row's digest as well (see decodeOnThread), made there while this thread
   * reads the rows before: a record then has its `digest`. Rows decoded here (no helpers' bundle) have none.
   */
  digests?: boolean;
}

/** A row, and its digest when readParquet was asked for digests and a decoding thread made them. */
export interface ParquetRecord extends JsonlRecord {
  digest?: Uint8Array;
}

// hyparquet's own decoding of JSON columns (convert.js: TextDecoder, then JSON.parse), so that a value read
// later parses to what hyparquet would have given.
const utf8 = new TextDecoder();

/** The value of a JSON column, undecoded: its bytes are JSON (checked when decoded), and UTF-8. */
export class JsonText {
  constructor(
    readonly bytes: Uint8Array,
    readonly shape = 0,
    /** Its bytes were not UTF-8, and are read with U+FFFD (see jsonLater). */
    readonly replaced = false,
  ) {}
  /**
   * The value as JSON.parse gives it, as a JSON line's member is: a null inside it stays null (the schema
   * then refuses it where a JSON line's would be), unlike a Parquet null, which is an absent member.
   */
  value(): unknown {
    return JSON.parse(utf8.decode(this.bytes));
  }
}

/** A JSON column's value, parsed: plain() keeps its nulls, which are JSON's, not Parquet's. */
class ParsedJson {
  constructor(
    readonly value: unknown,
    readonly replaced: boolean,
  ) {}
}

/** A JSON column's text that is not JSON: refused at its own row, when plain() reaches it. */
class InvalidJson {
  constructor(readonly message: string) {}
}

/** plain()'s error for an InvalidJson, naming its column. */
class InvalidJsonError extends Error {
  constructor(
    readonly column: string | undefined,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Text in a buffer of its own: a row's JSON bytes may be handed to another thread, and Node's pool may not. */
const encoder = new TextEncoder();

/**
 * hyparquet's jsonFromBytes (TextDecoder, then JSON.parse), but the value is wrapped, so that plain() tells
 * its nulls from Parquet's. A JSON value that is null as a whole is a Parquet null (the member left out), as
 * hyparquet gives it: writers put `null` for a missing value. With `shapeOf`, a value is left as JsonText, to
 * be parsed when read: tagged when its shape is one the reader checks on bytes. Text that is not JSON is
 * parsed here all the same, so that it fails the same page with the same error; bytes the check is unsure
 * of (a byte-order mark, very deep nesting) are parsed too. Bytes that are not UTF-8 are read with U+FFFD,
 * as strings are (see checkedStrings), and the value says so: its row is the one a warning names.
 */
function jsonLater(
  strings: { bad: boolean },
  shapeOf: RowRange['shapeOf'],
): (bytes: Uint8Array | undefined) => unknown {
  const parsed = (bytes: Uint8Array, replaced: boolean) => {
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(bytes));
    } catch (err) {
      // Thrown here, the error stopped the whole window's decoding, and was reported at its first row.
      return new InvalidJson((err as Error).message);
    }
    return value === null ? null : new ParsedJson(value, replaced);
  };
  return (bytes) => {
    if (!bytes) return bytes;
    const replaced = !isUtf8(bytes);
    if (replaced) {
      strings.bad = true;
      bytes = encoder.encode(utf8.decode(bytes));
    }
    if (!shapeOf) return parsed(bytes, replaced);
    const shape = shapeOf(bytes);
    if (shape) return new JsonText(bytes, shape, replaced);
    const i = skipSpace(bytes, 0, bytes.length);
    const end = skipValue(bytes, i, bytes.length);
    if (end > 0 && skipSpace(bytes, end, bytes.length) === bytes.length)
      return bytes[i] === 0x6e ? null : new JsonText(bytes, 0, replaced);
    return parsed(bytes, replaced);
  };
}

/**
 * hyparquet's string decoding (TextDecoder's defaults), noting a string that is not UTF-8: it is read with
 * U+FFFD as JSON Lines are, and said in a warning naming the row (see utf8.ts). A fatal decoder costs no more
 * on valid text.
 */
function checkedStrings() {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  const out = {
    bad: false,
    /** The strings read with U+FFFD since `bad` was last cleared: a row holding one is the warning's. */
    replaced: new Set<string>(),
    decode: (bytes: Uint8Array | undefined): string | undefined => {
      if (!bytes) return bytes;
      try {
        return fatal.decode(bytes);
      } catch {
        out.bad = true;
        const text = utf8.decode(bytes);
        out.replaced.add(text);
        return text;
      }
    },
  };
  return out;
}

/**
 * Whether a decoded row holds a string read with U+FFFD (one of `replaced`): a U+FFFD of the text's own,
 * in valid bytes, is not one, unless the very same string was also read from bad bytes.
 */
function holdsReplacement(v: unknown, replaced: ReadonlySet<string>, depth = 0): boolean {
  if (typeof v === 'string') return replaced.has(v);
  // A JSON value says whether its bytes were replaced: U+FFFD in it may be the text's own (an escape).
  if (v instanceof JsonText || v instanceof ParsedJson) return v.replaced;
  if (typeof v !== 'object' || v === null || depth > 64) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v))
    if (holdsReplacement(x, replaced, depth + 1)) return true;
  return false;
}

/**
 * Rows `[start, end)` (0-based), or only `rows` (numbered from 1), as records numbered from 1; undefined
 * `end` reads to the last row. Decoded on this thread: see readParquet for the guarded read.
 */
export async function* readParquetHere(file: string, range: RowRange = {}): AsyncGenerator<JsonlRecord> {
  const { buffer, close } = await fileBuffer(file);
  const strings = checkedStrings();
  try {
    const metadata = await metadataOf(file, buffer);
    const rows = Number(metadata.num_rows);
    const last = Math.min(range.end ?? rows, rows);
    let groupStart = 0;
    for (const group of metadata.row_groups) {
      const groupEnd = groupStart + Number(group.num_rows);
      let from = Math.max(groupStart, range.start ?? 0);
      let to = Math.min(groupEnd, last);
      if (range.rows) {
        // Only the rows asked for (numbered from 1): the group's span that holds them, if any.
        const wanted = [...range.rows].filter((r) => r > from && r <= to);
        if (wanted.length === 0) to = from;
        else [from, to] = [Math.min(...wanted) - 1, Math.max(...wanted)];
      }
      for (const [at, end] of rowWindows(from, to)) {
        let objects: Record<string, unknown>[];
        strings.bad = false;
        strings.replaced.clear();
        try {
          objects = await parquetReadObjects({
            file: buffer,
            metadata,
            rowStart: at,
            rowEnd: end,
            compressors,
            parsers: {
              stringFromBytes: strings.decode,
              jsonFromBytes: jsonLater(strings, range.rawJson ? range.shapeOf : undefined),
            },
          });
        } catch (err) {
          const message = (err as Error).message;
          // patches/: a page of more values than its group's rows, in a column that repeats nowhere.
          const tooMany =
            /^parquet page of \d+ values (in a row group of \d+ rows|beyond the \d+ its column chunk holds)$/.test(
              message,
            );
          throw new InputError(
            { file, line: at + 1 },
            tooMany
              ? `cannot decode rows ${at + 1}–${end}: a ${message.slice('parquet '.length)}; expected pages that hold what their row group and column chunk say (is the file damaged?)`
              : `cannot decode rows ${at + 1}–${end} (${whyNot(err, 'a page')}); expected a Parquet file compressed with ${CODECS_READ}`,
          );
        }
        if (strings.bad) {
          // hyparquet decodes whole pages and dictionaries: a bad string may lie outside the rows read.
          const i = objects.findIndex(
            (o, k) => (!range.rows || range.rows.has(at + k + 1)) && holdsReplacement(o, strings.replaced),
          );
          if (i >= 0) noteInvalidUtf8(file, at + i + 1);
        }
        for (let i = 0; i < objects.length; i++) {
          const line = at + i + 1;
          if (range.rows && !range.rows.has(line)) continue;
          let value: unknown;
          try {
            value = plain(objects[i], range.rawJson);
          } catch (err) {
            throw new InputError(
              { file, line },
              err instanceof InvalidJsonError
                ? `${err.column === undefined ? 'a column' : `column ${JSON.stringify(err.column)}`} of the JSON type holds invalid JSON (${err.reason}); expected JSON text`
                : `cannot read a value (${(err as Error).message}); expected values JavaScript can hold (dates in its range, JSON nested less deep)`,
            );
          }
          objects[i] = undefined!;
          yield { line, value };
        }
      }
      groupStart = groupEnd;
    }
  } finally {
    await close();
  }
}

/**
 * A row's values as JSON.parse would give them, so a row checks and digests as the same JSON line would
 * (null members left out): 64-bit integers (BigInt) become numbers, timestamps ISO-8601 strings, byte arrays
 * that are not text base64 strings; the JSON values of the `raw` columns of a row stay JsonText. The row is
 * hyparquet's, made for this call: it is changed in place.
 */
function plain(v: unknown, raw?: ReadonlySet<string>): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof JsonText) return v.value();
  if (v instanceof ParsedJson) return v.value;
  if (v instanceof InvalidJson) throw new InvalidJsonError(undefined, v.message);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = plain(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    // Parquet has no absent value, only null: a null column or struct field is an absent member.
    if (x === null || x === undefined) delete o[k];
    else if (x instanceof InvalidJson) throw new InvalidJsonError(k, x.message);
    else if (raw?.has(k) && x instanceof JsonText) continue;
    else if (typeof x === 'object' || typeof x === 'bigint') o[k] = plain(x);
  }
  return o;
}

/** What a decoder thread sends: rows as [number, value], the input error that stopped it, or that it is done. */
export type DecodeMessage =
  | { rows: [number, unknown][]; rowDigests?: Uint8Array; done?: true; utf8: [string, number][] }
  | { error: { where: Where | undefined; detail: string } };

/**
 * readParquetHere on a thread of its own, watched: a corrupt page can send the decoder into a loop that
 * never ends (hyparquet 1.33 loops on a run-length header of zero width), and gold or traces may come from a
 * fork's pull request. When the next rows take longer than DECODE_SECONDS (GROUNDGATE_DECODE_SECONDS sets
 * it), the thread is stopped and the rows are an input error (parquet-limits.ts). Without the helpers' bundle (run from
 * sources) rows are decoded here.
 */
export async function* readParquet(file: string, range: RowRange = {}): AsyncGenerator<ParquetRecord> {
  const entry = helperBundle();
  if (!entry) {
    yield* readParquetHere(file, range);
    return;
  }
  const seconds = decodeSeconds();
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker = new Worker(entry, {
    workerData: {
      chunks: [],
      shared: new SharedArrayBuffer(8),
      decode: {
        file,
        start: range.start,
        end: range.end,
        rows: range.rows && [...range.rows],
        digests: range.digests,
      } satisfies DecodeJob,
    },
    resourceLimits: HELPER_LIMITS,
  });
  let next = (range.start ?? 0) + 1;
  try {
    for (;;) {
      const m = await nextMessage(worker, seconds * 1000).catch((err: unknown) => {
        if (!(err instanceof DecoderExit)) throw err;
        // A value too deep to be posted (or read back) ends the exchange so.
        throw new InputError(
          { file, line: next },
          notDecodable(
            err.code === undefined
              ? 'their values could not be passed between threads'
              : `the decoding thread stopped (exit code ${err.code})`,
          ),
        );
      });
      if (m === undefined) throw notDecoded(file, next, seconds);
      if ('internal' in m) throw new Error(`Parquet decoder failed: ${m.internal}`);
      if ('error' in m) throw new InputError(m.error.where, m.error.detail);
      for (const [noted, row] of m.utf8) noteInvalidUtf8(noted, row);
      const digests = m.rowDigests;
      for (let i = 0; i < m.rows.length; i++) {
        const [line, value] = m.rows[i]!;
        next = line + 1;
        yield digests ? { line, value, digest: digests.subarray(32 * i, 32 * i + 32) } : { line, value };
      }
      if (m.done) return;
      worker.postMessage('next');
    }
  } finally {
    await worker.terminate();
  }
}

/** Why the rows from a decoding thread stopped coming, as an error's detail. */
const notDecodable = (why: string) =>
  `the rows from here do not decode: ${why}; expected values it can read (JSON nested thousands deep is not)`;

/** The decoding thread ended without a word (`code`), or sent rows this thread could not read (no code). */
class DecoderExit extends Error {
  constructor(readonly code: number | undefined) {
    super(code === undefined ? 'Parquet rows not readable' : `Parquet decoder exited with code ${code}`);
  }
}

/** The worker's next message, or undefined when none came within `ms`. */
function nextMessage(worker: Worker, ms: number): Promise<DecodeMessage | { internal: string } | undefined> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('messageerror', onUnread);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (m: DecodeMessage | { internal: string }) => (done(), resolve(m));
    const onError = (err: Error) => (done(), reject(err));
    const onExit = (code: number) => (done(), reject(new DecoderExit(code)));
    // Rows this thread cannot take in (a value nested too deep to deserialize).
    const onUnread = () => (done(), reject(new DecoderExit(undefined)));
    const timer = setTimeout(() => (done(), resolve(undefined)), ms);
    worker.on('message', onMessage);
    worker.once('messageerror', onUnread);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
}

/** What a decoding thread is asked for (see readParquet): RowRange's rows as a list, which crosses threads. */
export interface DecodeJob {
  file: string;
  start?: number;
  end?: number;
  rows?: number[];
  digests?: boolean;
}

/**
 * A decoder thread's work (see readParquet): rows sent a batch at a time, the next batch when asked, and
 * made meanwhile. With `digests` asked for and `digestOf` given, each batch comes with its rows' digests: a
 * gold set's canonical JSON and sha256 are made here, on a thread that would otherwise wait, rather than on
 * the one checking the rows (the values are cloned whole, so a digest is the same on either thread).
 */
export async function decodeOnThread(
  job: DecodeJob,
  post: (m: DecodeMessage) => void,
  asked: () => Promise<unknown>,
  digestOf?: (value: unknown) => Uint8Array,
): Promise<void> {
  // Rows too deep to be passed on (V8's serializer recurses: JSON nested some 15,000 deep runs out of stack)
  // are an error at the first such row, after the rows before it: one of them may hold the input's first error.
  const send = async (m: Extract<DecodeMessage, { rows: unknown }>) => {
    try {
      post(m);
      return;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
    const { serialize } = process.getBuiltinModule('node:v8');
    const k = m.rows.findIndex(([, value]) => {
      try {
        serialize(value);
        return false;
      } catch {
        return true;
      }
    });
    if (k > 0) {
      post({ rows: m.rows.slice(0, k), rowDigests: m.rowDigests?.subarray(0, 32 * k), utf8: m.utf8 });
      await asked();
    }
    throw new InputError(
      { file: job.file, line: m.rows[Math.max(k, 0)]?.[0] },
      notDecodable('their values could not be passed between threads'),
    );
  };
  const records = readParquetHere(job.file, { ...job, rows: job.rows && new Set(job.rows) });
  /** The next batch of rows, and the input error that ended them, if one did. */
  const batch = async () => {
    const rows: [number, unknown][] = [];
    let done = false;
    let error: InputError | undefined;
    try {
      while (rows.length < DECODE_BATCH) {
        const r = await records.next();
        if (r.done) {
          done = true;
          break;
        }
        rows.push([r.value.line, r.value.value]);
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      error = err;
    }
    const rowDigests = job.digests && digestOf ? digestsOf(rows, digestOf) : undefined;
    const utf8 = takeUtf8Notes();
    return {
      message: { rows, ...(rowDigests && { rowDigests }), ...(done && { done: true as const }), utf8 },
      error,
    };
  };
  try {
    for (let current = await batch(); ;) {
      const { message, error } = current;
      if (error) {
        // The rows before the error first: one of them may hold the input's first error.
        if (message.rows.length > 0) {
          await send(message);
          await asked();
        }
        throw error;
      }
      await send(message);
      if (message.done) return;
      // The next batch is made while the receiver reads this one; its word to send it is listened for first.
      const go = asked();
      current = await batch();
      await go;
    }
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    post({ error: { where: err.where, detail: err.detail } });
  } finally {
    // A batch that could not be passed on leaves the rows unread: their file is closed all the same.
    await records.return(undefined);
  }
}

/**
 * The rows' digests, 32 bytes a row; undefined when a value is nested too deep to digest here (the receiving
 * thread then tries, and fails as it would have).
 */
function digestsOf(rows: readonly [number, unknown][], digestOf: (value: unknown) => Uint8Array) {
  const out = new Uint8Array(32 * rows.length);
  try {
    rows.forEach(([, value], i) => out.set(digestOf(value), 32 * i));
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return undefined;
  }
  return out;
}

const DECODE_BATCH = 8192;
