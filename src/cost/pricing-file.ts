import { InputError } from '../errors.js';
import { validateJson } from '../io/json-document.js';
import { isRegularFile } from '../io/files.js';
import { readText } from '../io/utf8.js';
import { parseYaml, yamlValue } from '../io/yaml-document.js';
import { z } from 'zod';
import { pricingSchema, type Pricing } from './pricing.js';

const WHAT = 'a price table {<model>: {input, output}} in USD per million tokens';
const EXPECT = { what: 'a price table', expected: WHAT };

/** A price table in its own YAML (or JSON) file: the same mapping `pricing:` holds in gates.yaml. */
export function readPricingFile(file: string): Pricing {
  // A FIFO or device would block the read: refused as claims.cache and claims.labels are.
  if (!isRegularFile(file, { file }, 'pricing'))
    throw new InputError({ file }, `file not found; expected ${WHAT}`);
  let text: string;
  try {
    text = readText(file).replace(/^\uFEFF/, '');
  } catch (err) {
    throw new InputError({ file }, `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const { doc, at } = parseYaml(text, file, EXPECT);
  return validateJson(pricingSchema, { file, text, value: yamlValue(doc, at, EXPECT) }, WHAT);
}

/** A suite's `pricing:`: USD per million tokens per model, or a YAML file (inside the repository) that holds the table. */
export const pricingSetting = z.union([pricingSchema, z.string().min(1)]).optional();

/** The suite's price table: its own, or the file it names (resolved like any path of gates.yaml). */
export function suitePricing(
  config: { pricing?: z.infer<typeof pricingSetting> },
  ctx: { resolvePath(key: string): string },
): Pricing | undefined {
  const { pricing } = config;
  return typeof pricing === 'string' ? readPricingFile(ctx.resolvePath('pricing')) : pricing;
}
