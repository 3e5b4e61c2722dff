// npm run fixtures:openinference [-- <out dir>]: writes test/fixtures/openinference/ (see test/fixtures/README.md).
//
// The example's 50 runs (runs/qa.trace.jsonl) exported as real pipelines export them, so that the
// `format: openinference` reader is tested on what the libraries write rather than on what we think they write:
//
//   langchain.otlp.jsonl  an LCEL RAG chain (retriever → prompt → chat model → JSON parser) traced by
//                         @arizeai/openinference-instrumentation-langchain: chunk ids only in document.metadata
//   core.otlp.jsonl       the same pipeline traced by hand with @arizeai/openinference-core's wrappers, as its
//                         users do: chunk ids in retrieval.documents.N.document.id
//   llama-index.otlp.jsonl  the same pipeline as the Python LlamaIndex instrumentation writes it (a query
//                         engine: its retriever's nodes, its synthesizer's chat): retrieval.documents.N.document.id
//                         is the node's UUID, the chunk id is in the node's metadata (`doc_id`), written by the
//                         same wrappers with that instrumentation's span names and attributes
//
// Nothing is called but fakes: the retriever returns each run's retrieved_ids (their text from corpus/), the
// chat model answers with the run's answer_json. Each run is one OTLP/HTTP JSON export (the SDK's own
// JsonTraceSerializer) a line. The output is the same bytes on every run: ids come from a seeded generator and
// the clock is stubbed, so that each root span starts at the run's ts and lasts its latency_ms (the latest run
// of a question must stay the latest).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import {
  getInputAttributes,
  getLLMAttributes,
  getOutputAttributes,
  getRetrieverAttributes,
  setMetadata,
  traceChain,
  withSpan,
} from '@arizeai/openinference-core';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { JsonOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnableSequence } from '@langchain/core/runnables';

// LangChain hands runs to its tracers in the background by default: a span would then start whenever the
// queue got to it, not at the stubbed time. No LangSmith either: nothing leaves the process.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';
process.env.LANGSMITH_TRACING = 'false';

const REPO = path.resolve(import.meta.dirname, '..');
const OUT = path.resolve(process.argv[2] ?? path.join(REPO, 'test', 'fixtures', 'openinference'));
const RUNS = readFileSync(path.join(REPO, 'runs', 'qa.trace.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));

/**
 * Run i's token usage, as a provider reports it: 1000 + i prompt tokens and 100 + i completion tokens, so that
 * the means over the 50 runs are 1024.5 and 124.5 (test/cost.fixtures.test.ts); an even run's first 512 prompt
 * tokens were served from the provider's prompt cache (an odd run's none, which LangChain's instrumentation
 * leaves unwritten).
 */
function usageOf(run) {
  const i = RUNS.indexOf(run);
  return {
    prompt: 1000 + i,
    completion: 100 + i,
    total: 1100 + 2 * i,
    ...(i % 2 === 0 && { promptDetails: { cacheRead: 512 } }),
  };
}

/** corpus/*.md cut at its `<!-- keys#1 -->` markers: chunk id → {text, file}. */
function corpusChunks() {
  const chunks = new Map();
  const dir = path.join(REPO, 'corpus');
  for (const file of readdirSync(dir).sort()) {
    const parts = readFileSync(path.join(dir, file), 'utf8').split(/^<!-- (\S+) -->\n/m);
    for (let i = 1; i < parts.length; i += 2) chunks.set(parts[i], { text: parts[i + 1].trim(), file });
  }
  return chunks;
}
const CORPUS = corpusChunks();

/**
 * The clock spans read: Date.now for a span's start, performance.now for how long it lasted (see the SDK's
 * Span). Set by the pipeline's steps, never by the machine.
 */
const clock = {
  ms: 0,
  install() {
    Date.now = () => this.ms;
    // Below Date.now, so that the SDK reads Date.now as a wall time and not as a performance timestamp.
    performance.now = () => this.ms - 1e12;
  },
};

/** Ids from a fixed seed (splitmix64), in the order spans ask for them. */
function seededIds(seed) {
  let state = BigInt(seed);
  const next = () => {
    state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return (z ^ (z >> 31n)).toString(16).padStart(16, '0');
  };
  return { generateTraceId: () => next() + next(), generateSpanId: next };
}

/** A tracer provider whose finished spans stay in memory, to be serialized one run at a time. */
function memoryProvider(seed, serviceName) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: seededIds(seed),
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  /** The spans finished since the last call, as one OTLP/HTTP JSON request body. */
  const drain = async () => {
    await provider.forceFlush();
    const body = Buffer.from(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())).toString(
      'utf8',
    );
    exporter.reset();
    return body;
  };
  return { provider, drain };
}

const answerText = (run) => JSON.stringify(run.answer_json);
const documentsOf = (run) =>
  run.retrieved_ids.map((id) => ({ id, text: CORPUS.get(id).text, source: CORPUS.get(id).file }));
const SYSTEM =
  'Answer the question from the context only, as JSON: the claim and the ids of the chunks it cites. ' +
  'If the context does not hold the answer, reply "not in context".\n\nContext:\n{context}';

/** Each run's times: the retriever is done a quarter of the way in, the model at the end. */
const timesOf = (run) => ({
  start: run.ts * 1000,
  retrieved: run.ts * 1000 + Math.floor(run.latency_ms / 4),
  end: run.ts * 1000 + run.latency_ms,
});

/** A retriever over corpus/ that returns what the run retrieved, in its order. */
class RunRetriever extends BaseRetriever {
  lc_namespace = ['groundgate', 'fixtures'];
  constructor(run) {
    super({});
    this.run = run;
  }
  async _getRelevantDocuments() {
    clock.ms = timesOf(this.run).retrieved;
    return documentsOf(this.run).map(
      (d) => new Document({ pageContent: d.text, metadata: { id: d.id, source: d.source } }),
    );
  }
}

/** A chat model that answers with the run's answer. */
class RunChatModel extends BaseChatModel {
  constructor(run) {
    super({});
    this.run = run;
  }
  _llmType() {
    return 'fake';
  }
  async _generate() {
    clock.ms = timesOf(this.run).end;
    const text = answerText(this.run);
    // A provider's response id, as real models give one: else LangChain names the message after its run, a uuid.
    const id = `fake-${this.run.qid}-${this.run.ts}`;
    // Token usage as LangChain's chat models report it (AIMessage.usage_metadata, its cached prompt tokens in
    // input_token_details.cache_read), read by the instrumentation.
    const { prompt, completion, total, promptDetails } = usageOf(this.run);
    const usage_metadata = {
      input_tokens: prompt,
      output_tokens: completion,
      total_tokens: total,
      ...(promptDetails && { input_token_details: { cache_read: promptDetails.cacheRead } }),
    };
    return { generations: [{ text, message: new AIMessage({ content: text, id, usage_metadata }) }] };
  }
}

async function langchainExport() {
  const { provider, drain } = memoryProvider(0x4c43, 'groundgate-fixtures-langchain');
  new LangChainInstrumentation({ tracerProvider: provider }).manuallyInstrument(CallbackManagerModule);
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', SYSTEM],
    ['human', '{question}'],
  ]);
  const formatDocs = (docs) => docs.map((d) => `[${d.metadata.id}] ${d.pageContent}`).join('\n\n');
  const lines = [];
  for (const run of RUNS) {
    const chain = RunnableSequence.from([
      {
        context: RunnableSequence.from([(input) => input.question, new RunRetriever(run), formatDocs]),
        question: (input) => input.question,
      },
      prompt,
      new RunChatModel(run),
      new JsonOutputParser(),
    ]);
    clock.ms = timesOf(run).start;
    await chain.invoke({ question: run.q }, { runName: 'qa', metadata: { qid: run.qid } });
    lines.push(await drain());
  }
  return lines;
}

async function coreExport() {
  const { provider, drain } = memoryProvider(0x4f49, 'groundgate-fixtures-openinference-core');
  const tracer = provider.getTracer('groundgate-fixtures');
  const retrieve = withSpan(
    async (run) => {
      clock.ms = timesOf(run).retrieved;
      return documentsOf(run);
    },
    {
      name: 'retrieve',
      kind: 'RETRIEVER',
      tracer,
      processInput: (run) => getInputAttributes(run.q),
      processOutput: (docs) =>
        getRetrieverAttributes({
          documents: docs.map((d) => ({ id: d.id, content: d.text, metadata: { source: d.source } })),
        }),
    },
  );
  const generate = withSpan(
    async (run) => {
      clock.ms = timesOf(run).end;
      return answerText(run);
    },
    {
      name: 'chat',
      kind: 'LLM',
      tracer,
      processInput: (run, messages) =>
        getLLMAttributes({ modelName: 'fake', inputMessages: messages, tokenCount: usageOf(run) }),
      processOutput: (text) =>
        getLLMAttributes({ modelName: 'fake', outputMessages: [{ role: 'assistant', content: text }] }),
    },
  );
  const qa = traceChain(
    async (run) => {
      const docs = await retrieve(run);
      const contextText = docs.map((d) => `[${d.id}] ${d.text}`).join('\n\n');
      const text = await generate(run, [
        { role: 'system', content: SYSTEM.replace('{context}', contextText) },
        { role: 'user', content: run.q },
      ]);
      return JSON.parse(text);
    },
    {
      name: 'qa',
      tracer,
      processInput: (run) => getInputAttributes(run.q),
      processOutput: (answer) =>
        getOutputAttributes({ value: JSON.stringify(answer), mimeType: 'application/json' }),
    },
  );
  const lines = [];
  for (const run of RUNS) {
    clock.ms = timesOf(run).start;
    await context.with(setMetadata(context.active(), { qid: run.qid }), () => qa(run));
    lines.push(await drain());
  }
  return lines;
}

/** A LlamaIndex node id: a UUID (version 4 in form), the same for a chunk in every run, as a stored index gives. */
function nodeId(chunk) {
  const h = createHash('sha256').update(`node:${chunk}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Metadata as the Python instrumentation writes it: json.dumps, with its ", " and ": " separators. */
const pythonJson = (o) =>
  `{${Object.entries(o)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}`;

/**
 * As openinference-instrumentation-llama-index writes a query engine's spans (Arize-ai/openinference,
 * python/instrumentation/openinference-instrumentation-llama-index, _handler.py): span names are the method
 * (`RetrieverQueryEngine.query`); RetrievalEndEvent sets retrieval.documents.N.document.id to `node.node_id`,
 * .content, .score and .metadata to `json.dumps(node.metadata)`; a Response sets output.value to `str(response)`,
 * its text (here the run's claim: no citations); `using_metadata` puts the qid in `metadata`.
 */
async function llamaIndexExport() {
  const { provider, drain } = memoryProvider(0x4c49, 'groundgate-fixtures-llama-index');
  const tracer = provider.getTracer('openinference.instrumentation.llama_index');
  const retrieve = withSpan(
    async (run) => {
      clock.ms = timesOf(run).retrieved;
      return documentsOf(run);
    },
    {
      name: 'VectorIndexRetriever.retrieve',
      kind: 'RETRIEVER',
      tracer,
      processInput: (run) => getInputAttributes(run.q),
      processOutput: (docs) =>
        getRetrieverAttributes({
          documents: docs.map((d, i) => ({
            id: nodeId(d.id),
            content: d.text,
            score: Number((0.9 - i * 0.05).toFixed(2)),
            metadata: pythonJson({ doc_id: d.id, file_name: d.source }),
          })),
        }),
    },
  );
  const chat = withSpan(
    async (run) => {
      clock.ms = timesOf(run).end;
      return run.answer_json.claim;
    },
    {
      name: 'OpenAI.chat',
      kind: 'LLM',
      tracer,
      processInput: (run, messages) =>
        getLLMAttributes({ modelName: 'fake', inputMessages: messages, tokenCount: usageOf(run) }),
      processOutput: (text) =>
        getLLMAttributes({ modelName: 'fake', outputMessages: [{ role: 'assistant', content: text }] }),
    },
  );
  const synthesize = withSpan(
    async (run, docs) => {
      const contextText = docs.map((d) => d.text).join('\n\n');
      return chat(run, [
        { role: 'system', content: SYSTEM.replace('{context}', contextText) },
        { role: 'user', content: run.q },
      ]);
    },
    {
      name: 'CompactAndRefine.synthesize',
      kind: 'CHAIN',
      tracer,
      processInput: (run) => getInputAttributes(run.q),
      processOutput: (text) => getOutputAttributes(text),
    },
  );
  const query = withSpan(async (run) => synthesize(run, await retrieve(run)), {
    name: 'RetrieverQueryEngine.query',
    kind: 'CHAIN',
    tracer,
    processInput: (run) => getInputAttributes(run.q),
    processOutput: (text) => getOutputAttributes(text),
  });
  const lines = [];
  for (const run of RUNS) {
    clock.ms = timesOf(run).start;
    await context.with(setMetadata(context.active(), { qid: run.qid }), () => query(run));
    lines.push(await drain());
  }
  return lines;
}

// openinference-core nests its spans through the active context, as a Node app's SDK would set it up.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
clock.install();
const files = {
  'langchain.otlp.jsonl': await langchainExport(),
  'core.otlp.jsonl': await coreExport(),
  'llama-index.otlp.jsonl': await llamaIndexExport(),
};
mkdirSync(OUT, { recursive: true });
for (const [name, lines] of Object.entries(files))
  writeFileSync(path.join(OUT, name), lines.join('\n') + '\n');
