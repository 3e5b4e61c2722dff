import { z } from 'zod';

/** Each ownRecord schema, and the z.record whose JSON it reads (for its JSON Schema). */
const RECORDS = new WeakMap<z.core.$ZodType, z.ZodType>();

/**
 * A JSON object of ids → values, every own key kept. `z.record` assigns keys to a plain object, where
 * `__proto__` sets the prototype and vanishes; ids are data (an item may be called `__proto__`), so this
 * reads the object's own entries into an object without a prototype, where every name is a plain key.
 */
export function ownRecord<V extends z.ZodType>(value: V) {
  const schema = z.preprocess(
    (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : v),
    z.array(z.tuple([z.string(), value]), { error: 'expected an object' }).transform((entries) => {
      const out = Object.create(null) as Record<string, z.output<V>>;
      for (const [k, v] of entries as [string, z.output<V>][]) out[k] = v;
      return out;
    }),
  );
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
