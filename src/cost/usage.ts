import { InputError, preview, type Where } from '../errors.js';
import type { SpanFacts } from '../grounded-answer/spans/span-values.js';
import { GENAI } from '../grounded-answer/spans/vocabularies/genai.js';
import { costOf, priceOf, type Pricing } from './pricing.js';
import { TOKENS } from './token-attributes.js';

// What one answer's model calls read and wrote, from its trace's spans or its record's tokens_in / tokens_out
// / tokens_cached / model, and what that cost. A trace without a count is no count (n/a), never 0: a pipeline
// that stopped logging usage must not look free.

/**
 * Tokens one model read and wrote for an answer. `model` is undefined where no span or record names it;
 * `cachedIn`, the part of `tokensIn` served from the provider's prompt cache, is undefined where none counts it.
 */
export interface ModelTokens {
  model: string | undefined;
  tokensIn: number;
  tokensOut: number;
  cachedIn?: number;
}

/** One answer's token counts: each undefined when nothing counted it. */
export interface Usage {
  tokensIn?: number;
  tokensOut?: number;
  /** The part of tokensIn served from cache, summed over the calls that count it. */
  cachedIn?: number;
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
 * number ≥ 0, or a cached count above the span's input count (both conventions count cached tokens inside
 * it), is an error naming the span.
 */
export function spanUsage(spans: readonly SpanFacts[]): Usage | undefined {
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  let cachedIn: number | undefined;
  let complete = true;
  const byModel = new Map<string | undefined, ModelTokens>();
  for (const s of spans) {
    if (s.kind !== 'LLM') continue;
    if (s.tokensIn === undefined && s.tokensOut === undefined && s.tokensCached === undefined) continue;
    const n = checkedCount(s, 'in');
    const m = checkedCount(s, 'out');
    const c = checkedCount(s, 'cached');
    const over =
      c === undefined ? undefined : cachedProblem(c, n, attributeOf(s, 'cached'), attributeOf(s, 'in'));
    if (over)
      throw new InputError({ file: s.file, line: s.line }, `span ${preview(s.name ?? s.spanId)}: ${over}`);
    if (n !== undefined) tokensIn = (tokensIn ?? 0) + n;
    if (m !== undefined) tokensOut = (tokensOut ?? 0) + m;
    if (c !== undefined) cachedIn = (cachedIn ?? 0) + c;
    if (n === undefined || m === undefined) {
      complete = false;
      continue;
    }
    const model = typeof s.model === 'string' && s.model !== '' ? s.model : undefined;
    const part = byModel.get(model);
    if (part) {
      part.tokensIn += n;
      part.tokensOut += m;
      if (c !== undefined) part.cachedIn = (part.cachedIn ?? 0) + c;
    } else byModel.set(model, { model, tokensIn: n, tokensOut: m, ...(c !== undefined && { cachedIn: c }) });
  }
  if (tokensIn === undefined && tokensOut === undefined) return undefined;
  return {
    ...(tokensIn !== undefined && { tokensIn }),
    ...(tokensOut !== undefined && { tokensOut }),
    ...(cachedIn !== undefined && { cachedIn }),
    ...(complete && { byModel: [...byModel.values()] }),
  };
}

type Count = 'in' | 'out' | 'cached';

/** The attribute a span's count was read from, in its convention. */
function attributeOf(s: SpanFacts, which: Count): string {
  if (which === 'cached') return s.genai ? GENAI.tokensCached : TOKENS.cached;
  if (which === 'in') return s.genai ? GENAI.tokensIn : TOKENS.in;
  return s.genai ? GENAI.tokensOut : TOKENS.out;
}

function checkedCount(s: SpanFacts, which: Count): number | undefined {
  const v = which === 'in' ? s.tokensIn : which === 'out' ? s.tokensOut : s.tokensCached;
  if (v === undefined || isCount(v)) return v;
  throw new InputError(
    { file: s.file, line: s.line },
    `span ${preview(s.name ?? s.spanId)}: ${attributeOf(s, which)} is ${preview(v)}; expected a whole number of tokens, 0 or more`,
  );
}

/**
 * A cached count is part of the input count (OpenAI's cached_tokens of prompt_tokens, OpenInference's
 * cache_read of llm.token_count.prompt, GenAI's cache_read.input_tokens of input_tokens): one without it, or
 * above it, is a count read from the wrong place, and would price input tokens below zero.
 */
function cachedProblem(
  cached: number,
  tokensIn: number | undefined,
  cachedName: string,
  inName: string,
): string | undefined {
  if (tokensIn === undefined)
    return `${cachedName} is ${cached} without ${inName}; expected the cached part of the input tokens beside their count`;
  if (cached > tokensIn)
    return `${cachedName} is ${cached}, more than ${inName} ${tokensIn}; expected the cached part of the input tokens, at most their count`;
  return undefined;
}

/**
 * The model a trace record names for its usage: the one model of its counted calls, else none (the cost of
 * calls to several models is each call's at its own model's price, see costOfUsage).
 */
export function singleModel(usage: Usage): string | undefined {
  const models = usage.byModel ?? [];
  return models.length === 1 ? models[0]!.model : undefined;
}

/**
 * The usage a record's checked tokens_in, tokens_out, tokens_cached and model give; undefined without a count.
 * A tokens_cached above tokens_in, or without it, is an error at `where` (the record's file and line).
 */
export function recordUsage(
  record: { tokens_in?: number; tokens_out?: number; tokens_cached?: number; model?: string },
  where?: Where,
): Usage | undefined {
  const { tokens_in: tokensIn, tokens_out: tokensOut, tokens_cached: cachedIn } = record;
  const over =
    cachedIn === undefined ? undefined : cachedProblem(cachedIn, tokensIn, 'tokens_cached', 'tokens_in');
  if (over) throw new InputError(where, over);
  if (tokensIn === undefined && tokensOut === undefined) return undefined;
  const model = record.model === '' ? undefined : record.model;
  const cached = cachedIn !== undefined && { cachedIn };
  return {
    ...(tokensIn !== undefined && { tokensIn }),
    ...(tokensOut !== undefined && { tokensOut }),
    ...cached,
    ...(tokensIn !== undefined &&
      tokensOut !== undefined && { byModel: [{ model, tokensIn, tokensOut, ...cached }] }),
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
