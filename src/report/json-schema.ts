import { z } from 'zod';
import { reportSchema } from './schema.js';

/** The JSON Schema of report.json, derived from the zod contract (committed as docs/report.schema.json). */
export function reportJsonSchema(): string {
  const schema = z.toJSONSchema(reportSchema, { target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'groundgate report.json, schema_version 1' }, null, 2)}\n`;
}
