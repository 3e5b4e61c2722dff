import type { z } from 'zod';
import { recordChecker } from '../io/field-map.js';
import { lineScanner, type LineScanner } from '../io/record-shape.js';
import {
  MARKED_TRACE_WHAT,
  markedTraceLineSchema,
  markedTraceShape,
  markedTraceTest,
  TRACE_WHAT,
  traceLineSchema,
  traceShape,
  traceTest,
  type TraceLine,
} from './contract.js';
import type { TraceInput } from './trace-input.js';
import { mappedTraceScanner } from './trace-scan.js';

// The contract a trace line is checked against, as its input reads traces: the canonical one, mapped by
// `fields:` or not, or the one under `citation_markers` (contract.ts, markedTraceShape).

type Reading = Pick<TraceInput, 'fields' | 'markers'>;

/**
 * Checks a parsed trace (mapped first when the input maps it), or throws the error at its line; `what`
 * names a canonical trace in it.
 */
export const traceChecker = (input: Reading, what = TRACE_WHAT) =>
  input.markers
    ? recordChecker(
        // A trace line to the code that reads it: under citation_markers none reads its citations.
        markedTraceLineSchema as unknown as z.ZodType<TraceLine>,
        markedTraceTest,
        input.fields,
        MARKED_TRACE_WHAT,
        markedTraceShape,
      )
    : recordChecker(traceLineSchema, traceTest, input.fields, what, traceShape);

/**
 * The byte scanner of trace lines as the input reads them; undefined for the canonical one (scanTraceLine's
 * default). Under citation_markers, a line that lists citations is left to JSON.parse and the schema, which
 * word the error; its slots are the canonical scanner's, so judgedTrace reads what it finds. `every`: lines
 * read through `*` are checked on their bytes too, for a caller that reads only qid and ts (see lineScanner).
 */
export function traceScanner(input: Reading, options?: { every?: boolean }): LineScanner | undefined {
  if (!input.markers) return input.fields ? mappedTraceScanner(input.fields, options) : undefined;
  const s = lineScanner(markedTraceShape, input.fields, options);
  const citations = s.slot('/answer_json/citations');
  return { ...s, scan: (b, start, end, f) => s.scan(b, start, end, f) && f.at[citations]! < 0 };
}
