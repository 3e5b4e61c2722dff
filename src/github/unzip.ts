import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';

/** Why a zip could not give the file asked for; the caller says which artifact it was. */
export class ZipError extends Error {
  /** Bytes inflated when it stopped (a zip bomb stops soon after the cap, not at the bomb's end). */
  inflated?: number;
}

/**
 * The zip is fed to the inflater this much at a time: fflate inflates all it is given before it reports,
 * so a whole bomb pushed at once would inflate to gigabytes before the cap is checked. Deflate expands at
 * most 1032:1, so a slice inflates to 16 MiB at most past the cap.
 */
const SLICE = 16 * 1024;

/**
 * The text of one entry of a zip held in memory, inflated as a stream that stops as soon as it passes
 * `maxBytes`: an entry's declared size can lie, and a kilobyte of deflate can claim a gigabyte (a zip bomb).
 * `choose` picks the entry from all the names (a first pass reads the headers only).
 */
export function unzipText(
  zip: Uint8Array,
  choose: (names: readonly string[]) => string | undefined,
  maxBytes: number,
): { name: string; text: string } {
  const names: string[] = [];
  walk(zip, (file) => void names.push(file.name));
  const name = choose(names);
  if (name === undefined) {
    const found = names.length
      ? `found ${names
          .slice(0, 5)
          .map((n) => JSON.stringify(n))
          .join(', ')}${names.length > 5 ? ', …' : ''}`
      : 'found no entries';
    throw new ZipError(`holds no report (${found})`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  let failure: ZipError | undefined;
  let started = false;
  walk(
    zip,
    (file) => {
      if (started || file.name !== name) return;
      started = true;
      file.ondata = (err, chunk, final) => {
        if (failure) return;
        if (err) {
          failure = new ZipError(`entry ${JSON.stringify(name)} is corrupt (${err.message})`);
          return;
        }
        size += chunk.length;
        if (size > maxBytes) {
          failure = new ZipError(
            `entry ${JSON.stringify(name)} inflates past ${megabytes(maxBytes)}; expected a report.json under that size`,
          );
          return;
        }
        chunks.push(chunk);
        done = final;
      };
      file.start();
    },
    () => failure !== undefined || done,
  );
  if (failure) {
    failure.inflated = size;
    throw failure;
  }
  if (!done) throw new ZipError(`entry ${JSON.stringify(name)} is truncated`);
  try {
    return { name, text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    throw new ZipError(`entry ${JSON.stringify(name)} is not UTF-8 text`);
  }
}

/** Feeds the zip slice by slice until it ends or `stop()` says enough. */
function walk(zip: Uint8Array, onFile: (file: UnzipFile) => void, stop: () => boolean = () => false): void {
  const unzip = new Unzip(onFile);
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < zip.length && !stop(); at += SLICE)
      unzip.push(zip.subarray(at, at + SLICE), at + SLICE >= zip.length);
    if (zip.length === 0) unzip.push(zip, true);
  } catch (err) {
    throw new ZipError(`not a readable zip (${(err as Error).message})`);
  }
}

export function megabytes(bytes: number): string {
  return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
}
