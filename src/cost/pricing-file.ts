import { LineCounter, parseDocument } from 'yaml';
import { InputError } from '../errors.js';
import { validateJson } from '../io/json-document.js';
import { readText } from '../io/utf8.js';
import { pricingSchema, type Pricing } from './pricing.js';

const WHAT = 'a price table {<model>: {input, output}} in USD per million tokens';

/** A price table in its own YAML (or JSON) file: the same mapping `pricing:` holds in gates.yaml. */
export function readPricingFile(file: string): Pricing {
  let text: string;
  try {
    text = readText(file).replace(/^\uFEFF/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      { file },
      code === 'ENOENT' ? `file not found; expected ${WHAT}` : `cannot read (${code ?? 'error'})`,
    );
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new InputError({ file, line, column: col }, `invalid YAML: ${message}; expected ${WHAT}`);
  }
  return validateJson(pricingSchema, { file, text, value: doc.toJS({ maxAliasCount: 100 }) }, WHAT);
}
