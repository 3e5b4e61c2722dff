// Regenerates docs/report.schema.json from the zod contract (run `npm run compile` first).
import { writeFileSync } from 'node:fs';
import { reportJsonSchema } from '../lib/report/json-schema.js';

writeFileSync('docs/report.schema.json', reportJsonSchema());
