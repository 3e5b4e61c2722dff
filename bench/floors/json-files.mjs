// The agent-retrieval floor: read and JSON.parse every *.json file under the given folders, nothing kept.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

let files = 0;
for (const dir of process.argv.slice(2)) {
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!rel.endsWith('.json')) continue;
    JSON.parse(readFileSync(path.join(dir, rel), 'utf8'));
    files++;
  }
}
process.stdout.write(`${files}\n`);
