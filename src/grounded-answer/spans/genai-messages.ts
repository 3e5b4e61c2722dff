import { InputError, preview } from '../../errors.js';
import { isObject } from '../../io/record-shape.js';
import { GENAI } from './vocabularies/genai.js';

// The shapes of the GenAI conventions' structured attributes (vocabularies/genai.ts names them): retrieved
// documents and messages.

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
