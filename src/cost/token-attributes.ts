// OpenInference's attributes of a model call's usage (Arize-ai/openinference, spec/semantic_conventions.md);
// GenAI's are in grounded-answer/spans/vocabularies/genai.ts with the rest of that vocabulary.
// llm.token_count.total is not read: a total cannot be split into the input and output tokens that are priced
// apart. Of the prompt's details only cache_read is read: the tokens served from the cache, which a price's
// cached_input bills; tokens written to it are billed as input.

export const TOKENS = {
  in: 'llm.token_count.prompt',
  out: 'llm.token_count.completion',
  model: 'llm.model_name',
  /** The part of the prompt's tokens read from the provider's cache, counted within llm.token_count.prompt. */
  cached: 'llm.token_count.prompt_details.cache_read',
} as const;
