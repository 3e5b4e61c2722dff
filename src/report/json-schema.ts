import { z } from 'zod';
import { ownRecordAsRecord } from '../io/own-record.js';
import { reportSchema } from './schema.js';

/**
 * The JSON Schema of report.json, derived from the zod contract (committed as docs/report.schema.json): its
 * input side, the JSON, not the objects parsing makes of it.
 */
export function reportJsonSchema(): string {
  const schema = z.toJSONSchema(reportSchema, {
    target: 'draft-2020-12',
    io: 'input',
    override: ownRecordAsRecord,
  });
  return `${JSON.stringify({ ...schema, title: 'groundgate report.json, schema_version 1' }, null, 2)}\n`;
}
