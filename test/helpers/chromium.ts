import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { tmpDir } from './tmp.js';

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
    `--user-data-dir=${tmpDir('groundgate-chromium-')}`,
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

export interface PageOptions {
  width: number;
  height?: number;
  /** Lay the page out as a phone does: the viewport meta tag applies and the page may not be zoomed out. */
  mobile?: boolean;
  /** false: the page as a browser with scripts off shows it. */
  scripts?: boolean;
}

/** A page open in headless Chromium, driven over the DevTools protocol. */
export interface Page {
  /** The value of a JavaScript expression in the page (DevTools' evaluation, which the page's CSP does not bind). */
  evaluate<T>(expression: string): Promise<T>;
  /** A real mouse click (pressed and released) at the middle of the first element `selector` matches. */
  click(selector: string): Promise<void>;
  /** Types text into the focused element, as a keyboard would. */
  type(text: string): Promise<void>;
  /** The whole page, not only the viewport, as a PNG; returns its size in pixels. */
  screenshot(png: string): Promise<{ width: number; height: number }>;
  /** Console errors and warnings, uncaught exceptions and CSP violations seen so far. */
  problems: string[];
  close(): Promise<void>;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/**
 * Opens `file` in Chromium over --remote-debugging-pipe (fds 3 and 4, NUL-separated JSON): no port, no
 * WebSocket client, nothing but Node. Resolves once the page has loaded.
 */
export async function openPage(file: string, options: PageOptions): Promise<Page> {
  const child = spawn(CHROMIUM!, [...flags(), '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const pending = new Map<number, (m: Message) => void>();
  const listeners: ((m: Message) => void)[] = [];
  let buffered = '';
  fromBrowser.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\0'); end >= 0; end = buffered.indexOf('\0')) {
      const message = JSON.parse(buffered.slice(0, end)) as Message;
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) pending.get(message.id)?.(message);
      else for (const l of listeners) l(message);
    }
  });
  let lastId = 0;
  // Browser-level until the page's session is attached, then every message goes to the page.
  const session: { id?: string } = {};
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++lastId;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s; ${stderr}`)), 30_000);
      pending.set(id, (m) => {
        clearTimeout(timer);
        pending.delete(id);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result ?? {});
      });
      toBrowser.write(JSON.stringify({ id, method, params, sessionId: session.id }) + '\0');
    });

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  session.id = (await send('Target.attachToTarget', { targetId, flatten: true })).sessionId as string;
  const problems: string[] = [];
  listeners.push(({ method, params }) => {
    if (method === 'Log.entryAdded') {
      const entry = params!.entry as { level: string; text: string };
      if (entry.level === 'error' || entry.level === 'warning') problems.push(entry.text);
    } else if (method === 'Runtime.consoleAPICalled') {
      const { type, args } = params as { type: string; args: { value?: unknown }[] };
      if (type === 'error' || type === 'warning') problems.push(args.map((a) => String(a.value)).join(' '));
    } else if (method === 'Runtime.exceptionThrown') {
      problems.push(JSON.stringify(params!.exceptionDetails));
    }
  });
  for (const domain of ['Page', 'Runtime', 'Log']) await send(`${domain}.enable`);
  // Reported in the page itself too, in case the console words a violation differently.
  await send('Page.addScriptToEvaluateOnNewDocument', {
    source:
      'addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective));',
  });
  await send('Emulation.setDeviceMetricsOverride', {
    width: options.width,
    height: options.height ?? 1000,
    deviceScaleFactor: 1,
    mobile: options.mobile ?? false,
  });
  if (options.scripts === false) await send('Emulation.setScriptExecutionDisabled', { value: true });
  const loaded = new Promise<void>((resolve) =>
    listeners.push((m) => m.method === 'Page.loadEventFired' && resolve()),
  );
  await send('Page.navigate', { url: `file://${file}` });
  await loaded;

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = (await send('Runtime.evaluate', { expression, returnByValue: true })) as {
      result: { value: T };
      exceptionDetails?: unknown;
    };
    if (r.exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(r.exceptionDetails)}`);
    return r.result.value;
  };
  return {
    evaluate,
    problems,
    async click(selector) {
      const at = await evaluate<{ x: number; y: number } | null>(
        `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return null; e.scrollIntoView({ block: "center" }); const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
      );
      if (!at) throw new Error(`no element matches ${selector}`);
      for (const type of ['mousePressed', 'mouseReleased'])
        await send('Input.dispatchMouseEvent', { type, ...at, button: 'left', clickCount: 1 });
    },
    async type(text) {
      await send('Input.insertText', { text });
    },
    async screenshot(png) {
      const { cssContentSize } = (await send('Page.getLayoutMetrics')) as {
        cssContentSize: { width: number; height: number };
      };
      const height = Math.ceil(cssContentSize.height);
      const { data } = await send('Page.captureScreenshot', {
        format: 'png',
        captureBeyondViewport: true,
        clip: { x: 0, y: 0, width: options.width, height, scale: 1 },
      });
      mkdirSync(path.dirname(png), { recursive: true });
      const bytes = Buffer.from(data as string, 'base64');
      writeFileSync(png, bytes);
      return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await send('Browser.close').catch(() => child.kill());
      await exited;
    },
  };
}
