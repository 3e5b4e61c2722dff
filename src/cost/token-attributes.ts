// OpenInference's attributes of a model call's usage (Arize-ai/openinference, spec/semantic_conventions.md);
// GenAI's are in grounded-answer/spans/vocabularies/genai.ts with the rest of that vocabulary. llm.token_count.total is not read:
// a total cannot be split into the input and output tokens that are priced apart.

export const TOKENS = {
  in: 'llm.token_count.prompt',
  out: 'llm.token_count.completion',
  model: 'llm.model_name',
} as const;
