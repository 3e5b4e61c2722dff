// Loaded with `node --import` into a cold-start run: at exit, appends the main thread's CPU time (seconds)
// to the file named by GROUNDGATE_BENCH_THREAD_CPU. On a shared machine wall time includes time taken by
// the neighbours; the main thread's CPU time is the part a change to groundgate moves, and the least its
// wall time can be. process.threadCpuUsage() came with Node 23.9: older Nodes write nothing.
import { appendFileSync } from 'node:fs';

const file = process.env.GROUNDGATE_BENCH_THREAD_CPU;
if (file && typeof process.threadCpuUsage === 'function') {
  process.on('exit', () => {
    const { user, system } = process.threadCpuUsage();
    appendFileSync(file, `${(user + system) / 1e6}\n`);
  });
}
