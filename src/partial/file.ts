import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { endianness } from 'node:os';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { goldReportSchema } from '../report/schema.js';
import { safeParse } from '../io/validate.js';

/**
 * A partial file: one JSON line (the header, validated by `headerSchema`) and then the sections it lists,
 * raw bytes one after another. Large columns (a gold set's qids, 200k runs' verdicts) stay bytes, so a
 * merge reads each partial's own runs straight into typed arrays, reads the gold columns that every partial
 * repeats from the first only, and reads an offender's fields only when a report shows it.
 *
 * A partial may come from a fork's job: the header line carries its own sha256 (its first field, checked on
 * its bytes before they are parsed), and every section is checked against its sha256 before it is used.
 */
export const PARTIAL_FORMAT = 'groundgate-partial';
export const PARTIAL_VERSION = 3;

/** How a header line starts: its sha256 is the 64 hex digits after this, taken with those digits all 0. */
const HEADER_DIGEST_AT = Buffer.byteLength('{"sha256":"');
const HEADER_DIGEST_END = HEADER_DIGEST_AT + 64;
const ZERO_DIGEST = '0'.repeat(64);

const sha = z.string().regex(/^[0-9a-f]{64}$/);
const sectionSchema = z.strictObject({
  offset: z.int().min(0),
  length: z.int().min(0),
  /** Of the bytes as stored. */
  sha256: sha,
  /** A section stored deflated: its length and sha256 once inflated (compressed bytes differ by zlib version). */
  inflated: z.strictObject({ length: z.int().min(0), sha256: sha }).optional(),
});

export const partialSuiteSchema = z.strictObject({
  kind: z.string(),
  /** Every input key's files, relative to the config's folder, `/`-separated, in the order the run listed them. */
  inputs: z.record(z.string(), z.array(z.string())),
  /** The sha256 of each file of the keys every shard reads whole (gold): a merge's must be the same. */
  digests: z.record(z.string(), z.array(z.string())),
  gold: goldReportSchema.optional(),
  /** The suite's warnings about input that is not UTF-8, each with its file (its other warnings, a merge makes again). */
  utf8_warnings: z.array(z.tuple([z.string(), z.string()])),
  /** The kind's own small values (counts, sizes); its split validates them. */
  state: z.unknown(),
  sections: z.record(z.string(), sectionSchema),
});
export type PartialSuite = z.infer<typeof partialSuiteSchema>;

export const headerSchema = z.strictObject({
  /** Of the header line with this value 64 zeros (see HEADER_DIGEST_AT). */
  sha256: sha,
  format: z.literal(PARTIAL_FORMAT),
  version: z.literal(PARTIAL_VERSION),
  tool: z.strictObject({ name: z.string(), version: z.string() }),
  /** The byte order of the typed columns: a merge on a machine of the other order refuses them. */
  endianness: z.enum(['LE', 'BE']),
  config: z.strictObject({ file: z.string(), sha256: z.string() }),
  release: z.boolean(),
  /** The selected suites, in the config's order. */
  suites: z.record(z.string(), partialSuiteSchema),
  /** Bytes after the header line: a shorter file was cut off. */
  bytes: z.int().min(0),
});
export type PartialHeader = z.infer<typeof headerSchema>;

/** Spans of a section closer than this are read at once (see PartialFile.ranges). */
const RANGE_GAP = 16 << 10;

/** What a deflated section may inflate to when its reader knows no tighter bound. */
const DEFAULT_INFLATE_CAP = 64 << 20;

/** A suite's sections as the partial writes them. */
export type Sections = Record<string, ArrayBufferView | { deflate: ArrayBufferView }>;

/** Writes a partial: the header, with each section's place filled in, then the sections. */
export function writePartial(
  file: string,
  header: Omit<PartialHeader, 'sha256' | 'format' | 'version' | 'bytes' | 'suites' | 'endianness'>,
  suites: Record<string, Omit<PartialSuite, 'sections'> & { sections: Sections }>,
): void {
  const body: Uint8Array[] = [];
  let offset = 0;
  const described: Record<string, PartialSuite> = {};
  for (const [name, suite] of Object.entries(suites)) {
    const sections: PartialSuite['sections'] = {};
    for (const [key, view] of Object.entries(suite.sections)) {
      // Every section starts at a multiple of 8: several read at once are typed arrays of any width in place.
      const pad = -offset & 7;
      if (pad) body.push(new Uint8Array(pad));
      offset += pad;
      const raw = 'deflate' in view ? view.deflate : view;
      const plain = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
      const bytes = 'deflate' in view ? deflateRawSync(plain, { level: 1 }) : plain;
      sections[key] = {
        offset,
        length: bytes.length,
        sha256: sha256(bytes),
        ...('deflate' in view ? { inflated: { length: plain.length, sha256: sha256(plain) } } : {}),
      };
      body.push(bytes);
      offset += bytes.length;
    }
    described[name] = { ...suite, sections };
  }
  const head: PartialHeader = {
    sha256: ZERO_DIGEST,
    format: PARTIAL_FORMAT,
    version: PARTIAL_VERSION,
    ...header,
    endianness: endianness(),
    suites: described,
    bytes: offset,
  };
  let fd: number;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(file, 'w');
  } catch (err) {
    throw new InputError(
      { file },
      `cannot write the partial (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    writeSync(fd, withDigest(Buffer.from(`${JSON.stringify(head)}\n`, 'utf8')));
    for (const bytes of body) writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * A partial opened for a merge: its validated header, and its sections read on demand, each checked against
 * its sha256 the first time it is read (inflated ones each time, on their inflated bytes).
 */
export class PartialFile {
  /** Sections whose stored bytes matched their sha256, by `suite\0key`. */
  private readonly verified = new Set<string>();

  private constructor(
    readonly file: string,
    readonly header: PartialHeader,
    private readonly fd: number,
    private readonly bodyStart: number,
  ) {}

  static open(file: string): PartialFile {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (err) {
      throw new InputError(
        { file },
        `cannot read the partial (${(err as NodeJS.ErrnoException).code ?? 'error'}); expected a file written by "groundgate check --partial"`,
      );
    }
    try {
      if (!fstatSync(fd).isFile())
        throw new InputError({ file }, 'not a file; expected a file written by "groundgate check --partial"');
      const { header, bodyStart } = readHeader(fd, file);
      const size = fstatSync(fd).size;
      if (size !== bodyStart + header.bytes) {
        throw new InputError(
          { file },
          `the partial holds ${size - bodyStart} bytes after its header, not the ${header.bytes} it lists; expected a whole file (was it cut off in an upload?)`,
        );
      }
      for (const [name, suite] of Object.entries(header.suites)) {
        for (const [key, s] of Object.entries(suite.sections)) {
          if (s.offset + s.length > header.bytes)
            throw new InputError(
              { file },
              `section ${name}.${key} ends at byte ${s.offset + s.length} of ${header.bytes}; expected sections inside the file`,
            );
        }
      }
      return new PartialFile(file, header, fd, bodyStart);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * A section's bytes (inflated, if stored deflated), in an ArrayBuffer of their own (so typed arrays of any
   * width can view them), checked against their sha256.
   */
  section(suite: string, key: string, cap = DEFAULT_INFLATE_CAP): ArrayBuffer {
    const s = this.place(suite, key);
    // The header's length is the partial's word: what a section may inflate to is bounded by the caller.
    if (s.inflated && s.inflated.length > cap)
      throw new InputError(
        { file: this.file },
        `section ${suite}.${key} would inflate to ${s.inflated.length} bytes; expected at most ${cap} (for the inputs of this merge)`,
      );
    const stored = new Uint8Array(s.length);
    this.read(stored, s.offset);
    this.checkStored(suite, key, stored);
    if (!s.inflated) return stored.buffer;
    const bytes = this.inflate(stored, `${suite}.${key}`, s.inflated.length);
    if (sha256(bytes) !== s.inflated.sha256) throw this.mismatch(suite, key);
    // inflateRawSync's bytes may be a slice of a larger buffer: then they are copied into one of their own.
    if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
      return bytes.buffer as ArrayBuffer;
    const own = new ArrayBuffer(bytes.length);
    new Uint8Array(own).set(bytes);
    return own;
  }

  /** A deflated section's bytes: exactly `length` of them, or an input error (a deflated bomb stops there). */
  private inflate(stored: Uint8Array, name: string, length: number): Uint8Array {
    let bytes: Uint8Array;
    try {
      // One chunk of the known length: zlib's default 16 KB chunks were concatenated, a copy of every column.
      bytes = inflateRawSync(stored, {
        maxOutputLength: Math.max(1, length),
        chunkSize: Math.max(64, length),
      });
    } catch {
      throw new InputError(
        { file: this.file },
        `section ${name} does not inflate to its ${length} bytes; expected the bytes the partial was written with`,
      );
    }
    if (bytes.length !== length)
      throw new InputError(
        { file: this.file },
        `section ${name} inflates to ${bytes.length} bytes; expected ${length}`,
      );
    return bytes;
  }

  /**
   * Sections stored as they are (not deflated), read at once (one read for the span they cover) and checked
   * against their sha256: each a place in one shared ArrayBuffer, keyed by name; in `scratch`'s, when given,
   * valid until its next use.
   */
  sections(
    suite: string,
    keys: readonly string[],
    scratch?: Scratch,
  ): Map<string, { buffer: ArrayBuffer; offset: number; length: number }> {
    const places = keys.map((key) => [key, this.place(suite, key)] as const);
    if (places.length === 0) return new Map();
    const start = Math.min(...places.map(([, s]) => s.offset));
    const end = Math.max(...places.map(([, s]) => s.offset + s.length));
    const buffer = scratch ? scratch.take(end - start) : new ArrayBuffer(end - start);
    this.read(new Uint8Array(buffer, 0, end - start), start);
    for (const [key, s] of places)
      this.checkStored(suite, key, new Uint8Array(buffer, s.offset - start, s.length));
    return new Map(places.map(([key, s]) => [key, { buffer, offset: s.offset - start, length: s.length }]));
  }

  /**
   * A section holding one JSON value, validated by `schema`; `what` says what it should hold. `holds`, a
   * quicker test of the same contract, lets a value it accepts skip the schema.
   */
  json<T>(
    suite: string,
    key: string,
    schema: z.ZodType<T>,
    what: string,
    holds?: (value: unknown) => value is T,
  ): T {
    return this.parsed(suite, key, Buffer.from(this.section(suite, key)), schema, what, holds);
  }

  /** Bytes of section `key` (or of part of it) as one JSON value, validated as json() does. */
  parsed<T>(
    suite: string,
    key: string,
    bytes: Buffer,
    schema: z.ZodType<T>,
    what: string,
    holds?: (value: unknown) => value is T,
  ): T {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      value = undefined;
    }
    if (holds?.(value)) return value;
    const parsed = safeParse(schema, value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new InputError(
      { file: this.file },
      `section ${suite}.${key}${issue?.path.length ? ` ${issue.path.join('.')}` : ''}: expected ${what}${issue ? ` (${issue.message})` : ''}`,
    );
  }

  /**
   * Calls `each(i, bytes)` with the `length` bytes at `offset` within a section for each of `spans`, in the
   * order of their offsets; `bytes` are valid during the call only. Spans less than RANGE_GAP apart are read
   * at once, into `scratch`'s buffer: a read costs this machine about as much as copying 100 KB, and fresh
   * memory for each read more than either.
   */
  ranges(
    suite: string,
    key: string,
    spans: readonly { offset: number; length: number }[],
    each: (index: number, bytes: Buffer) => void,
    scratch = new Scratch(),
  ): void {
    const s = this.place(suite, key);
    this.checkWhole(suite, key, s, scratch);
    for (const { offset, length } of spans)
      if (
        !Number.isSafeInteger(offset) ||
        !Number.isSafeInteger(length) ||
        offset < 0 ||
        length < 0 ||
        offset + length > s.length
      )
        throw new InputError(
          { file: this.file },
          `bytes ${offset}–${offset + length} are outside section ${suite}.${key} (${s.length} bytes); expected a consistent partial`,
        );
    const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.offset - spans[b]!.offset);
    for (let k = 0; k < order.length;) {
      const start = spans[order[k]!]!.offset;
      let end = start;
      let m = k;
      for (; m < order.length && spans[order[m]!]!.offset <= end + RANGE_GAP; m++)
        end = Math.max(end, spans[order[m]!]!.offset + spans[order[m]!]!.length);
      const bytes = Buffer.from(scratch.take(end - start), 0, end - start);
      this.read(bytes, s.offset + start);
      for (; k < m; k++) {
        const { offset, length } = spans[order[k]!]!;
        each(order[k]!, bytes.subarray(offset - start, offset - start + length));
      }
    }
  }

  /** What a section holds, whether stored deflated or not: its content's sha256. */
  sha256Of(suite: string, key: string): string {
    const s = this.place(suite, key);
    return (s.inflated ?? s).sha256;
  }

  /** Refuses a stored section's bytes that do not match their sha256 (each section is hashed once). */
  private checkStored(suite: string, key: string, bytes: Uint8Array): void {
    const name = `${suite}\0${key}`;
    if (this.verified.has(name)) return;
    if (sha256(bytes) !== this.place(suite, key).sha256) throw this.mismatch(suite, key);
    this.verified.add(name);
  }

  /** Checks a stored section read in parts (see ranges) once, whole, in pieces of `scratch`'s buffer. */
  private checkWhole(suite: string, key: string, s: z.infer<typeof sectionSchema>, scratch: Scratch): void {
    const name = `${suite}\0${key}`;
    if (this.verified.has(name)) return;
    const h = createHash('sha256');
    for (let at = 0; at < s.length;) {
      const n = Math.min(s.length - at, 1 << 20);
      const piece = new Uint8Array(scratch.take(n), 0, n);
      this.read(piece, s.offset + at);
      h.update(piece);
      at += n;
    }
    if (h.digest('hex') !== s.sha256) throw this.mismatch(suite, key);
    this.verified.add(name);
  }

  private mismatch(suite: string, key: string): InputError {
    return new InputError(
      { file: this.file },
      `section ${suite}.${key} does not match its sha256; expected the bytes the partial was written with (was it altered, or damaged in an upload?)`,
    );
  }

  private place(suite: string, key: string): z.infer<typeof sectionSchema> {
    const s = this.header.suites[suite]?.sections[key];
    if (!s)
      throw new InputError(
        { file: this.file },
        `no section ${suite}.${key}; expected a partial written by this version`,
      );
    return s;
  }

  private read(into: Uint8Array, at: number): void {
    let done = 0;
    while (done < into.length) {
      const n = readSync(this.fd, into, done, into.length - done, this.bodyStart + at + done);
      if (n === 0) throw new InputError({ file: this.file }, 'the partial ends early; expected a whole file');
      done += n;
    }
  }
}

/**
 * One ArrayBuffer lent to reads in turn, grown as needed: the run columns of 64 partials read into fresh
 * buffers touched 22 MB of new memory, whose page faults cost this machine 50 ms.
 */
export class Scratch {
  private buffer = new ArrayBuffer(0);

  take(length: number): ArrayBuffer {
    if (this.buffer.byteLength < length)
      this.buffer = new ArrayBuffer(Math.max(length, 2 * this.buffer.byteLength));
    return this.buffer;
  }
}

/** The header line: JSON, at most 64 MB (a partial's header holds counts and file names, not data). */
function readHeader(fd: number, file: string): { header: PartialHeader; bodyStart: number } {
  const chunks: Buffer[] = [];
  let read = 0;
  for (;;) {
    // A header takes a few kilobytes: 64 KB buffers for a merge's 64 headers cost more (fresh memory, and
    // collections) than parsing them. Only the bytes read are used.
    const chunk = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(8192, 2 * read)));
    const n = readSync(fd, chunk, 0, chunk.length, read);
    const nl = chunk.subarray(0, n).indexOf(10);
    if (nl >= 0) {
      chunks.push(chunk.subarray(0, nl));
      read += nl + 1;
      break;
    }
    if (n === 0 || read + n > 64 << 20)
      throw new InputError(
        { file },
        read + n === 0
          ? 'the partial is empty; expected a file written by "groundgate check --partial"'
          : 'no header line; expected a file written by "groundgate check --partial"',
      );
    chunks.push(chunk.subarray(0, n));
    read += n;
  }
  const line = Buffer.concat(chunks);
  // Checked on the bytes before they are parsed: a flipped bit in a count, a name or the state is refused
  // here, not read as another value.
  const digest = digestOf(line);
  if (digest !== undefined && digest !== line.toString('latin1', HEADER_DIGEST_AT, HEADER_DIGEST_END))
    throw new InputError(
      { file, line: 1 },
      'the header does not match its sha256; expected the bytes the partial was written with (was it altered, or damaged in an upload?)',
    );
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    throw new InputError(
      { file, line: 1 },
      'the header is not JSON; expected a file written by "groundgate check --partial"',
    );
  }
  const format = (value as { format?: unknown } | null)?.format;
  const version = (value as { version?: unknown } | null)?.version;
  if (format !== PARTIAL_FORMAT)
    throw new InputError(
      { file, line: 1 },
      `not a groundgate partial; expected "format": "${PARTIAL_FORMAT}"`,
    );
  if (version !== PARTIAL_VERSION)
    throw new InputError(
      { file, line: 1 },
      `partial format version ${JSON.stringify(version)}; expected ${PARTIAL_VERSION} (write the partials and merge them with one groundgate version)`,
    );
  if (digest === undefined)
    throw new InputError(
      { file, line: 1 },
      'the header does not start with its sha256; expected {"sha256":"<64 hex digits>", as "groundgate check --partial" writes it',
    );
  const parsed = safeParse(headerSchema, value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError({ file, line: 1 }, `header ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (parsed.data.endianness !== endianness())
    throw new InputError(
      { file },
      `written on a ${parsed.data.endianness} machine; expected this machine's byte order (${endianness()})`,
    );
  return { header: parsed.data, bodyStart: read };
}

/** A header line (its newline included) with its sha256 written in, in place of its first field's 64 zeros. */
function withDigest(line: Buffer): Buffer {
  line.write(digestOf(line.subarray(0, line.length - 1))!, HEADER_DIGEST_AT, 'latin1');
  return line;
}

/** The sha256 a header line should carry, from its bytes; undefined if it does not start with one's place. */
function digestOf(line: Buffer): string | undefined {
  if (
    line.length <= HEADER_DIGEST_END ||
    line.toString('latin1', 0, HEADER_DIGEST_AT) !== '{"sha256":"' ||
    line[HEADER_DIGEST_END] !== 0x22
  )
    return undefined;
  return createHash('sha256')
    .update(line.subarray(0, HEADER_DIGEST_AT))
    .update(ZERO_DIGEST)
    .update(line.subarray(HEADER_DIGEST_END))
    .digest('hex');
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A file's sha256, read in 1 MB pieces. */
export function fileSha256(file: string): string {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}
