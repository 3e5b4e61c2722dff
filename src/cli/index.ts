#!/usr/bin/env node
import { engineStart } from '../engine-thread.js';
import { main } from './main.js';

// On an engine thread (see engine-thread.ts), the main thread passes on what is written here.
const engine = engineStart();
const code = await main(engine?.argv ?? process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTty: engine?.isTty ?? Boolean(process.stdout.isTTY),
  env: process.env,
});
process.exitCode = code;
