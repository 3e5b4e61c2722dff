// Runs a command as a child process and measures its wall time and peak resident set size.
//
// Wall time: process.hrtime around spawn → exit, in this process. Peak RSS: GNU time's %M (the child's
// ru_maxrss, in KB) when /usr/bin/time is there; otherwise the last VmHWM read from /proc/PID/status,
// polled every 10 ms (a high-water mark, so only growth in the last few milliseconds can be missed).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GNU_TIME = '/usr/bin/time';

/** Whether /usr/bin/time understands -f and -o (GNU time), checked once. */
let gnuTime;
export function rssMethod() {
  if (gnuTime === undefined) {
    const probe = path.join(tmpdir(), `groundgate-bench-time-${process.pid}`);
    gnuTime =
      existsSync(GNU_TIME) &&
      spawnSync(GNU_TIME, ['-f', '%M', '-o', probe, process.execPath, '-e', '0']).status === 0 &&
      /^\d+\s*$/.test(readFileSync(probe, 'utf8'));
    rmSync(probe, { force: true });
  }
  return gnuTime ? 'GNU time %M (ru_maxrss)' : '/proc/PID/status VmHWM, polled every 10 ms';
}

/** Runs `command args` once. Returns { wall_s, rss_mb, code, stdout, stderr }. */
export function measure(command, args, { cwd, env } = {}) {
  rssMethod();
  const rssFile = path.join(tmpdir(), `groundgate-bench-rss-${process.pid}-${Date.now()}`);
  const [cmd, argv] = gnuTime ? [GNU_TIME, ['-f', '%M', '-o', rssFile, command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd, argv, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    let hwm = 0;
    const poll = gnuTime
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwm = Math.max(hwm, Number(m[1]));
          } catch {
            // exited between two polls
          }
        }, 10);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      if (poll) clearInterval(poll);
      let kb = hwm;
      if (gnuTime) {
        // GNU time writes "Command exited with non-zero status N" before the figure: take the last line.
        const text = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
        kb = Number(text[text.length - 1]) || 0;
        rmSync(rssFile, { force: true });
      }
      resolve({
        wall_s: wall,
        rss_mb: kb / 1024,
        code: signal ? 128 : code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

export function median(values) {
  const xs = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}
