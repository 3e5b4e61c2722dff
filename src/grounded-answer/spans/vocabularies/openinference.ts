// The OpenInference semantic conventions (Arize-ai/openinference, spec/semantic_conventions.md), the
// attributes assembling reads: a span's kind, its input and output, its metadata, and each retrieved
// document's id or metadata under `retrieval.documents.<i>.`. Token counts and the model are read by
// src/cost/token-attributes.ts.

/** The attributes read, and the span kinds the conventions define. */
export const OPENINFERENCE = {
  kind: 'openinference.span.kind',
  input: 'input.value',
  output: 'output.value',
  metadata: 'metadata',
  /** The prefix of a retrieved document's attributes, before its index. */
  documents: 'retrieval.documents',
  documentId: 'document.id',
  documentMetadata: 'document.metadata',
  kinds: ['CHAIN', 'RETRIEVER', 'LLM', 'EMBEDDING', 'RERANKER', 'TOOL', 'AGENT', 'GUARDRAIL', 'EVALUATOR'],
} as const;
