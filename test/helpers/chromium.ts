import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian's chromium, if installed (.ci/run installs it). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Headless flags that keep a root, offline machine quiet: no sandbox, GPU or background network. */
function flags(): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${mkdtempSync(path.join(tmpdir(), 'groundgate-chromium-'))}`,
  ];
}

/** The DOM after the page loaded and rendered, as Chromium serialises it; laid out `width` pixels wide. */
export function dumpDom(file: string, width = 1280): string {
  const r = spawnSync(
    CHROMIUM!,
    [...flags(), `--window-size=${width},1000`, '--dump-dom', `file://${file}`],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export function screenshot(file: string, png: string, width = 1280, height = 1600): void {
  const r = spawnSync(
    CHROMIUM!,
    [
      ...flags(),
      '--hide-scrollbars',
      `--window-size=${width},${height}`,
      `--screenshot=${png}`,
      `file://${file}`,
    ],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr}`);
}
