import { readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ioError } from '../errors.js';
import { OpenFiles } from './open-files.js';

/** Bytes [start, end) of one file, beginning and ending on line starts. */
export interface Segment {
  file: string;
  /** The file's position in the list that was split: file order decides ties between runs. */
  fileIndex: number;
  start: number;
  end: number;
}

const NEWLINE = 0x0a;
const PROBE = 64 * 1024;

/**
 * Cuts files, read as one stream of lines, into at most `parts` runs of whole lines of about equal size and
 * no smaller than `minPartBytes`, in order, so that each can be read by its own thread; or, given
 * `maxPartBytes`, into `parts` or more, as many as runs of that size take (up to `maxParts`). A part is a
 * list of segments, one per file it touches.
 */
export async function splitLines(
  files: readonly string[],
  parts: number,
  minPartBytes = 0,
  maxPartBytes = Infinity,
  maxParts = Infinity,
): Promise<Segment[][]> {
  const sizes = await Promise.all(
    files.map((file) =>
      stat(file).then(
        (s) => s.size,
        (err: unknown) => {
          throw ioError(file, err);
        },
      ),
    ),
  );
  const total = sizes.reduce((a, b) => a + b, 0);
  if (minPartBytes > 0) parts = Math.max(1, Math.min(parts, Math.floor(total / minPartBytes)));
  parts = Math.min(Math.max(parts, Math.ceil(total / maxPartBytes)), Math.max(parts, maxParts));
  const firstByte: number[] = [];
  sizes.reduce((at, size, i) => ((firstByte[i] = at), at + size), 0);

  const cuts = new Set<number>([0, total]);
  const probes = new LineStarts(files);
  try {
    for (let p = 1; p < parts; p++) {
      const target = Math.floor((total * p) / parts);
      const i = fileAt(firstByte, sizes, target);
      if (i === -1) continue;
      cuts.add(firstByte[i]! + probes.from(i, target - firstByte[i]!, sizes[i]!));
    }
  } finally {
    probes.close();
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[][] = [];
  for (let p = 0; p + 1 < points.length; p++) {
    const [from, to] = [points[p]!, points[p + 1]!];
    const part: Segment[] = [];
    files.forEach((file, i) => {
      const start = Math.max(from, firstByte[i]!) - firstByte[i]!;
      const end = Math.min(to, firstByte[i]! + sizes[i]!) - firstByte[i]!;
      if (end > start) part.push({ file, fileIndex: i, start, end });
    });
    if (part.length) out.push(part);
  }
  return out;
}

function fileAt(firstByte: readonly number[], sizes: readonly number[], at: number): number {
  for (let i = 0; i < sizes.length; i++) if (at >= firstByte[i]! && at < firstByte[i]! + sizes[i]!) return i;
  return -1;
}

/**
 * Finds line starts in the files, each opened once. Read synchronously: a few kilobytes a cut, and a cut
 * awaited between the batches of a gold set loading on the same thread took 2 s for the 873 cuts of an
 * OpenInference export, which the helpers waited for.
 */
class LineStarts {
  private readonly open = new OpenFiles();
  private readonly buf = Buffer.allocUnsafe(PROBE);

  constructor(private readonly files: readonly string[]) {}

  /** The first line start at or after `at` in file `i`: `at` itself when a line begins there, else after the next newline. */
  from(i: number, at: number, size: number): number {
    if (at === 0) return 0;
    const fd = this.open.fd(this.files[i]!);
    for (let pos = at - 1; pos < size; pos += PROBE) {
      const bytesRead = readSync(fd, this.buf, 0, PROBE, pos);
      const nl = this.buf.subarray(0, bytesRead).indexOf(NEWLINE);
      if (nl !== -1) return pos + nl + 1;
      if (bytesRead === 0) break;
    }
    return size;
  }

  close(): void {
    this.open.close();
  }
}
