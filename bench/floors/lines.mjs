// The ranking floor: read the given text files and split every line into its whitespace-separated fields.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

let lines = 0;
let fields = 0;
for (const file of process.argv.slice(2)) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    fields += line.split(' ').length;
    lines++;
  }
}
process.stdout.write(`${lines} ${fields}\n`);
