// The context floor: a readline + JSON.parse pass over the gold and prediction files, then one read of
// every file of the repository (argv: gold predictions repo). What any scorer has to read, once.
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const [gold, predictions, repo] = process.argv.slice(2);
let lines = 0;
for (const file of [gold, predictions]) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length === 0) continue;
    JSON.parse(line);
    lines++;
  }
}
let bytes = 0;
for (const rel of readdirSync(repo, { recursive: true, encoding: 'utf8' })) {
  const file = path.join(repo, rel);
  if (statSync(file).isFile()) bytes += readFileSync(file).length;
}
process.stdout.write(`${lines} ${bytes}\n`);
