// The parse floor of a JSON Lines input on threads: V8's own JSON.parse of every line of the given files,
// each file's bytes cut at line ends into as many stretches as groundgate uses threads (the available
// processors, at most 4), one thread a stretch, nothing kept. What reading a format's bytes as JSON costs
// before anything is done with them: the yardstick for a format whose files are larger than the canonical.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import os from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const PIECE = 8 * 1024 * 1024;

/** JSON.parse of each line that starts in [start, end) of the file. */
function parseStretch(file, start, end) {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(PIECE);
  let lines = 0;
  try {
    // A stretch begins after the line end before it (the line that spans its start is the previous one's).
    let pos = start;
    if (start > 0)
      for (let at = start - 1; ; at += PIECE) {
        const n = readSync(fd, buf, 0, PIECE, at);
        const nl = buf.subarray(0, n).indexOf(10);
        if (nl >= 0 || n === 0) {
          pos = nl >= 0 ? at + nl + 1 : end;
          break;
        }
      }
    let carry = Buffer.alloc(0);
    while (pos < end || carry.length > 0) {
      const n = readSync(fd, buf, 0, PIECE, pos);
      const data = Buffer.concat([carry, buf.subarray(0, n)]);
      const base = pos - carry.length;
      let i = 0;
      for (;;) {
        if (base + i >= end) break;
        let j = data.indexOf(10, i);
        if (j < 0 && n === 0) j = data.length;
        if (j < 0) break;
        if (j > i) {
          JSON.parse(data.toString('utf8', i, j));
          lines++;
        }
        i = j + 1;
      }
      if (base + i >= end || n === 0) break;
      carry = Buffer.from(data.subarray(i));
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

if (isMainThread) {
  const files = process.argv.slice(2);
  const threads = Math.min(os.availableParallelism(), 4);
  const stretches = files.flatMap((file) => {
    const fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    closeSync(fd);
    return Array.from({ length: threads }, (_, k) => ({
      file,
      start: Math.floor((size * k) / threads),
      end: Math.floor((size * (k + 1)) / threads),
    }));
  });
  // Each thread its share of every file's stretches.
  const counts = await Promise.all(
    Array.from(
      { length: threads },
      (_, t) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: stretches.filter((_, i) => i % threads === t),
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  process.stdout.write(`${counts.reduce((a, b) => a + b, 0)}\n`);
} else {
  let lines = 0;
  for (const { file, start, end } of workerData) lines += parseStretch(file, start, end);
  parentPort.postMessage(lines);
}
