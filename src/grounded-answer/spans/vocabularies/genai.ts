// The OpenTelemetry GenAI semantic conventions (open-telemetry/semantic-conventions v1.41.0,
// docs/gen-ai/gen-ai-spans.md; since then in open-telemetry/semantic-conventions-genai), read as the
// OpenInference facts assembling knows (see ../span-facts.ts): a span's `gen_ai.operation.name` gives its kind,
// a retrieval's `gen_ai.retrieval.documents` its documents, a model call's `gen_ai.output.messages` its
// output. The vocabulary as data; the message shape is read by ../genai-messages.ts.

/** The attributes read, and the OpenInference kind each operation is read as. */
export const GENAI = {
  operation: 'gen_ai.operation.name',
  documents: 'gen_ai.retrieval.documents',
  query: 'gen_ai.retrieval.query.text',
  input: 'gen_ai.input.messages',
  output: 'gen_ai.output.messages',
  tokensIn: 'gen_ai.usage.input_tokens',
  tokensOut: 'gen_ai.usage.output_tokens',
  /** Input tokens served from a provider-managed cache, counted within input_tokens (added in v1.40.0). */
  tokensCached: 'gen_ai.usage.cache_read.input_tokens',
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
