import { InputError, preview } from '../../errors.js';
import { isObject } from '../../io/record-shape.js';

// The OpenTelemetry GenAI semantic conventions (open-telemetry/semantic-conventions v1.41.0,
// docs/gen-ai/gen-ai-spans.md; since then in open-telemetry/semantic-conventions-genai), read as the
// OpenInference facts assembling knows (see span-facts.ts): a span's `gen_ai.operation.name` gives its kind,
// a retrieval's `gen_ai.retrieval.documents` its documents, a model call's `gen_ai.output.messages` its
// output. The vocabulary is data: the one table below and the message shape.

/** The attributes read, and the OpenInference kind each operation is read as. */
export const GENAI = {
  operation: 'gen_ai.operation.name',
  documents: 'gen_ai.retrieval.documents',
  query: 'gen_ai.retrieval.query.text',
  input: 'gen_ai.input.messages',
  output: 'gen_ai.output.messages',
  tokensIn: 'gen_ai.usage.input_tokens',
  tokensOut: 'gen_ai.usage.output_tokens',
  responseModel: 'gen_ai.response.model',
  requestModel: 'gen_ai.request.model',
  kinds: {
    retrieval: 'RETRIEVER',
    chat: 'LLM',
    text_completion: 'LLM',
    generate_content: 'LLM',
    embeddings: 'EMBEDDING',
    invoke_agent: 'AGENT',
    create_agent: 'AGENT',
    execute_tool: 'TOOL',
  } as Readonly<Record<string, string>>,
} as const;

/** Attributes whose value is one JSON value (a list of objects), kept whole when a Phoenix span nests them. */
export const GENAI_VALUES: ReadonlySet<string> = new Set([GENAI.documents, GENAI.input, GENAI.output]);

/** A structured attribute, or the JSON string the conventions allow in its place on a span. */
function structured(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/**
 * The documents of `gen_ai.retrieval.documents` (`[{id, score}]`, structured or a JSON string), in order. Not a
 * list of objects is an error: a retrieval read as retrieving nothing would score recall 0 without a word.
 */
export function genaiDocuments(
  value: unknown,
  where: { file: string; line: number },
  span: string,
): Record<string, unknown>[] {
  const docs = structured(value);
  if (!Array.isArray(docs) || !docs.every(isObject))
    throw new InputError(
      where,
      `span ${span}: ${GENAI.documents} is ${preview(value)}; expected a list of {"id", "score"} objects (structured, or as a JSON string)`,
    );
  return docs;
}

/**
 * The text of a messages attribute (`[{role, parts: [{type: "text", content}]}]`, structured or a JSON
 * string): of `gen_ai.output.messages` the first message (the first choice), of `gen_ai.input.messages` the
 * last message whose role is `user`; its text parts joined. Undefined without such a message or text part (a
 * model call that answered with a tool call only).
 */
export function messagesText(value: unknown, which: 'input' | 'output'): string | undefined {
  const messages = structured(value);
  if (!Array.isArray(messages)) return undefined;
  const message =
    which === 'output' ? messages[0] : messages.findLast((m) => isObject(m) && m.role === 'user');
  if (!isObject(message) || !Array.isArray(message.parts)) return undefined;
  const texts = message.parts.flatMap((p) =>
    isObject(p) && p.type === 'text' && typeof p.content === 'string' ? [p.content] : [],
  );
  return texts.length ? texts.join('') : undefined;
}
