import { z } from 'zod';

/** Each ownRecord schema, and the z.record whose JSON it reads (for its JSON Schema). */
const RECORDS = new WeakMap<z.core.$ZodType, z.ZodType>();

/**
 * A JSON object of ids → values, every own key kept. `z.record` assigns keys to a plain object, where
 * `__proto__` sets the prototype and vanishes; ids are data (an item may be called `__proto__`), so this
 * reads the object's own entries into an object without a prototype, where every name is a plain key.
 * Issues are placed at the id, as z.record places them.
 */
export function ownRecord<V extends z.ZodType>(value: V) {
  const schema = z.unknown().transform((input, ctx) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      ctx.addIssue({ code: 'invalid_type', expected: 'object', input, message: 'expected an object' });
      return z.NEVER;
    }
    const out = Object.create(null) as Record<string, z.output<V>>;
    for (const [key, v] of Object.entries(input)) {
      const parsed = value.safeParse(v);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] });
        return z.NEVER;
      }
      out[key] = parsed.data;
    }
    return out;
  });
  RECORDS.set(schema, z.record(z.string(), value));
  return schema;
}

/** For z.toJSONSchema's override: an ownRecord is, in JSON, the record it reads. */
export function ownRecordAsRecord(ctx: {
  zodSchema: z.core.$ZodType;
  jsonSchema: Record<string, unknown>;
}): void {
  const record = RECORDS.get(ctx.zodSchema);
  if (!record) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  const json: Record<string, unknown> = z.toJSONSchema(record, { target: 'draft-2020-12', io: 'input' });
  delete json.$schema;
  Object.assign(ctx.jsonSchema, json);
}
