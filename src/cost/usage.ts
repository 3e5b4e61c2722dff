import { InputError, preview } from '../errors.js';
import type { SpanFacts } from '../grounded-answer/spans/span-values.js';
import { GENAI } from '../grounded-answer/spans/vocabularies/genai.js';
import { costOf, priceOf, type Pricing } from './pricing.js';
import { TOKENS } from './token-attributes.js';

// What one answer's model calls read and wrote, from its trace's spans or its record's tokens_in / tokens_out /
// model, and what that cost. A trace without a count is no count (n/a), never 0: a pipeline that stopped
// logging usage must not look free.

/** Tokens one model read and wrote for an answer. `model` is undefined where no span or record names it. */
export interface ModelTokens {
  model: string | undefined;
  tokensIn: number;
  tokensOut: number;
}

/** One answer's token counts: each undefined when nothing counted it. */
export interface Usage {
  tokensIn?: number;
  tokensOut?: number;
  /**
   * The counts by model, in the order the models were first read: undefined unless every counted call has both
   * counts (a call without its output count cannot be priced).
   */
  byModel?: ModelTokens[];
}

/** A count as the contract's `count` kind reads one: a whole number ≥ 0. */
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The usage of a trace's spans: the counts of its LLM spans (OpenInference's kind, or a GenAI chat, completion
 * or generate_content call) summed, each part over the spans that have it; undefined when none has a count.
 * Other kinds are not read: a GenAI agent span's usage is its model calls' again. A count that is no whole
 * number ≥ 0 is an error naming the span.
 */
export function spanUsage(spans: readonly SpanFacts[]): Usage | undefined {
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  let complete = true;
  const byModel = new Map<string | undefined, ModelTokens>();
  for (const s of spans) {
    if (s.kind !== 'LLM' || (s.tokensIn === undefined && s.tokensOut === undefined)) continue;
    const n = checkedCount(s, 'in');
    const m = checkedCount(s, 'out');
    if (n !== undefined) tokensIn = (tokensIn ?? 0) + n;
    if (m !== undefined) tokensOut = (tokensOut ?? 0) + m;
    if (n === undefined || m === undefined) {
      complete = false;
      continue;
    }
    const model = typeof s.model === 'string' && s.model !== '' ? s.model : undefined;
    const part = byModel.get(model);
    if (part) {
      part.tokensIn += n;
      part.tokensOut += m;
    } else byModel.set(model, { model, tokensIn: n, tokensOut: m });
  }
  if (tokensIn === undefined && tokensOut === undefined) return undefined;
  return {
    ...(tokensIn !== undefined && { tokensIn }),
    ...(tokensOut !== undefined && { tokensOut }),
    ...(complete && { byModel: [...byModel.values()] }),
  };
}

function checkedCount(s: SpanFacts, which: 'in' | 'out'): number | undefined {
  const v = which === 'in' ? s.tokensIn : s.tokensOut;
  if (v === undefined || isCount(v)) return v;
  const attribute = s.genai
    ? which === 'in'
      ? GENAI.tokensIn
      : GENAI.tokensOut
    : which === 'in'
      ? TOKENS.in
      : TOKENS.out;
  throw new InputError(
    { file: s.file, line: s.line },
    `span ${preview(s.name ?? s.spanId)}: ${attribute} is ${preview(v)}; expected a whole number of tokens, 0 or more`,
  );
}

/**
 * The model a trace record names for its usage: the one model of its counted calls, else none (the cost of
 * calls to several models is each call's at its own model's price, see costOfUsage).
 */
export function singleModel(usage: Usage): string | undefined {
  const models = usage.byModel ?? [];
  return models.length === 1 ? models[0]!.model : undefined;
}

/** The usage a record's checked tokens_in, tokens_out and model give; undefined without a count. */
export function recordUsage(record: {
  tokens_in?: number;
  tokens_out?: number;
  model?: string;
}): Usage | undefined {
  const { tokens_in: tokensIn, tokens_out: tokensOut } = record;
  if (tokensIn === undefined && tokensOut === undefined) return undefined;
  const model = record.model === '' ? undefined : record.model;
  return {
    ...(tokensIn !== undefined && { tokensIn }),
    ...(tokensOut !== undefined && { tokensOut }),
    ...(tokensIn !== undefined && tokensOut !== undefined && { byModel: [{ model, tokensIn, tokensOut }] }),
  };
}

/** An answer's cost in USD, or why it has none: counts missing, a call naming no model, or models unpriced. */
export type Cost =
  { usd: number } | { usd: null; reason: 'incomplete' | 'no model' | 'unpriced'; unpriced: string[] };

/** What `usage` cost at `pricing`: each model's tokens at its own price, summed. */
export function costOfUsage(usage: Usage | undefined, pricing: Pricing): Cost {
  if (!usage?.byModel) return { usd: null, reason: 'incomplete', unpriced: [] };
  let usd = 0;
  const unpriced: string[] = [];
  for (const part of usage.byModel) {
    if (part.model === undefined) return { usd: null, reason: 'no model', unpriced: [] };
    const price = priceOf(pricing, part.model);
    if (price) usd += costOf(part, price);
    else unpriced.push(part.model);
  }
  return unpriced.length ? { usd: null, reason: 'unpriced', unpriced } : { usd };
}
