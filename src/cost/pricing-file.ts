import { LineCounter, parseDocument } from 'yaml';
import { InputError, type Where } from '../errors.js';
import { isRegularFile } from '../io/files.js';
import { readText } from '../io/utf8.js';
import { describeIssue, safeParse } from '../io/validate.js';
import { pricingSchema, type Pricing } from './pricing.js';

const WHAT = 'model: {input, output, cached_input?} in USD per million tokens';

/**
 * A price table kept in its own file (YAML, or JSON, which YAML reads): the mapping `pricing:` takes inline.
 * A missing file, bad YAML or a bad price is an InputError naming the file, and the line where it can.
 */
export function readPricing(file: string, key: string): Pricing {
  if (!isRegularFile(file, { file }, key))
    throw new InputError({ file }, `${key}: file not found; expected a price table (${WHAT})`);
  const lineCounter = new LineCounter();
  const doc = parseDocument(readText(file), { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined): Where => {
    if (offset === undefined) return { file };
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const error = doc.errors[0];
  if (error)
    throw new InputError(
      at(error.pos[0]),
      `invalid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    );
  // A table of a few models: no alias can make it large, but yaml's own limit still applies.
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  const parsed = safeParse(pricingSchema, data ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InputError(at(offsetOf(doc, issue.path)), describeIssue(issue, data, WHAT));
}

/** Where the value at `path` starts, else its nearest parent that is in the file (a missing key's mapping). */
function offsetOf(doc: ReturnType<typeof parseDocument>, path: readonly PropertyKey[]): number {
  for (let n = path.length; n > 0; n--) {
    const node = doc.getIn(path.slice(0, n) as (string | number)[], true) as { range?: number[] } | undefined;
    if (node?.range) return node.range[0]!;
  }
  return 0;
}
