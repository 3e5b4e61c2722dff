import { z } from 'zod';
import { InputError } from '../errors.js';
import { isRegularFile } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { validateLine } from '../io/validate.js';

/**
 * A human's verdict on an item's claim (`claims.labels`, docs/metrics.md "Semantic matching"): does the claim
 * state the item's gold fact. `claim`, when given, pins the verdict to that claim: a run whose claim differs
 * leaves the label out (the answer it judged has changed).
 */
const labelLineSchema = z.strictObject({
  qid: z.string().min(1),
  verdict: z.enum(['SUPPORTED', 'NOT_SUPPORTED']),
  claim: z.string().optional(),
});
export type HumanLabel = z.infer<typeof labelLineSchema>;

const WHAT = 'a label {qid, verdict: SUPPORTED or NOT_SUPPORTED, claim?}';

/**
 * Every label by qid; a qid labelled twice is an input error naming both lines. A missing file, or anything
 * but a regular file (a FIFO would block the run), is an input error.
 */
export async function readLabels(file: string): Promise<Map<string, HumanLabel>> {
  if (!isRegularFile(file, { file }, 'claims.labels'))
    throw new InputError({ file }, 'claims.labels: file not found; expected JSON Lines of human labels');
  const labels = new Map<string, HumanLabel>();
  const lines = new Map<string, number>();
  for await (const { line, value } of readJsonl(file)) {
    const label = validateLine(labelLineSchema, value, file, line, WHAT);
    const first = lines.get(label.qid);
    if (first !== undefined)
      throw new InputError(
        { file, line },
        `qid ${JSON.stringify(label.qid)} is labelled again (first at line ${first}); expected one label per qid`,
      );
    lines.set(label.qid, line);
    labels.set(label.qid, label);
  }
  return labels;
}
