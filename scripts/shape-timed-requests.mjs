// Writes test/fixtures/shapes/timed-requests/: a service's log of timed requests as teams keep one
// ({request_id, duration_s, route, status} per line, seconds to the millisecond), and the same requests in
// the latency suite's canonical shape ({qid, latency_ms}). No library writes this shape: it is what a
// request logger prints. Deterministic: run it again and the files are byte-identical.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'shapes', 'timed-requests');
const project = [];
const canonical = [];
for (let i = 1; i <= 150; i++) {
  const id = `req-${String(i).padStart(4, '0')}`;
  // Request 77 failed before it was timed: counted as an untimed line, left out of the percentiles.
  if (i === 77) {
    project.push({ request_id: id, route: '/ask', status: 504 });
    canonical.push({ qid: id });
    continue;
  }
  // 180 … 1299 ms, with a slow tail every 25th request.
  const ms = 180 + ((i * 389) % 1120) + (i % 25 === 0 ? 2400 : 0);
  project.push({ request_id: id, duration_s: ms / 1000, route: i % 3 ? '/ask' : '/search', status: 200 });
  canonical.push({ qid: id, latency_ms: ms });
}
const lines = (rows) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
for (const [part, rows] of [
  ['project', project],
  ['canonical', canonical],
]) {
  mkdirSync(path.join(root, part, 'logs'), { recursive: true });
  writeFileSync(path.join(root, part, 'logs', 'requests.jsonl'), lines(rows));
}
