// The grounded-qa floor: a bare readline + JSON.parse pass over the given JSON Lines files, nothing kept.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

let lines = 0;
for (const file of process.argv.slice(2)) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length === 0) continue;
    JSON.parse(line);
    lines++;
  }
}
process.stdout.write(`${lines}\n`);
