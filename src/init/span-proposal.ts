import { parsedOrText, spanFacts } from '../grounded-answer/spans/span-facts.js';
import { isObject } from '../io/record-shape.js';
import type { SpanFacts } from '../grounded-answer/spans/span-values.js';
import { documentKeysMeeting } from '../grounded-answer/id-keys.js';
import { assemble, traceSpans } from '../grounded-answer/spans/trace-assembly.js';
import { docRef } from '../docs.js';

// Traces as OpenTelemetry spans under the OpenInference conventions, recognised by `init`: an OTLP/JSON export
// ({"resourceSpans": …} a line, or one such `.json` document) or Phoenix's spans, read from the sample with the
// reader `check` uses (span-facts.ts, trace-assembly.ts). Which attribute holds the qid and which holds a
// document's id cannot be known from the spans alone: each is chosen by which of its candidates meets the
// gold set's ids, and the counts are said beside the proposal.

/** One sampled trace: what its root says and its RETRIEVER spans' documents, in order. */
export interface SampledTrace {
  spans: SpanFacts[];
  /** The root span's input.value. */
  input: unknown;
  /** The root span's metadata, parsed when it is JSON. */
  metadata: unknown;
  /** Each retrieved document's document.id and document.metadata (parsed), spans by start time. */
  documents: { id: unknown; metadata: unknown }[];
}

/** `format:` and the `openinference:` keys proposed, each with what it met. */
export interface SpanProposal {
  /** `otel` when a span is read by the GenAI conventions (see grounded-answer/spans/vocabularies/genai.ts), else `openinference`. */
  format: 'openinference' | 'otel';
  qid: string;
  qidNote: string;
  documentId: string;
  documentNote: string;
}

const OPENINFERENCE_KIND = 'openinference.span.kind';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A value holds spans: an OTLP request, or a Phoenix span with an OpenInference kind (nested or flat). */
function holdsSpans(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (Array.isArray(v.resourceSpans)) return true;
  const attrs = v.attributes;
  return (
    isObject(v.context) &&
    isObject(attrs) &&
    (OPENINFERENCE_KIND in attrs || isObject(attrs.openinference) || typeof v.span_kind === 'string')
  );
}

/**
 * The sampled traces of a file's sampled values (its lines, or the elements of its one JSON document), or
 * undefined when they hold no spans (or the spans do not read).
 */
export function sampledTraces(
  file: string,
  values: readonly unknown[] | undefined,
): SampledTrace[] | undefined {
  if (!values?.length || !values.some(holdsSpans)) return undefined;
  const byTrace = new Map<string, { spans: SpanFacts[]; metadata: SpanFacts[] }>();
  try {
    values.forEach((v, i) => {
      // Read twice: document.id, then document.metadata (what a metadata.<key> would read).
      const spans = spanFacts(v, file, i + 1, undefined);
      const withMetadata = spanFacts(v, file, i + 1, undefined, undefined, 'metadata.id');
      spans.forEach((s, k) => {
        const t = byTrace.get(s.traceId) ?? { spans: [], metadata: [] };
        t.spans.push(s);
        t.metadata.push(withMetadata[k]!);
        byTrace.set(s.traceId, t);
      });
    });
  } catch {
    return undefined;
  }
  const out: SampledTrace[] = [];
  for (const { spans, metadata } of byTrace.values()) {
    let picked;
    try {
      picked = traceSpans(spans);
    } catch {
      continue;
    }
    if (!picked) continue;
    const documents = picked.retrievers.flatMap((r) => {
      const m = metadata[spans.indexOf(r)]!;
      const n = Math.max(r.documents.length, m.documents.length);
      return Array.from({ length: n }, (_, i) => ({
        id: r.documents[i],
        metadata: parsedOrText(m.documents[i]),
      }));
    });
    out.push({
      spans,
      input: picked.root.input,
      metadata: parsedOrText(picked.root.metadata),
      documents,
    });
  }
  return out.length ? out : undefined;
}

/** What a file's sampled spans hold, for init's listing. */
export function describeSpans(traces: readonly SampledTrace[]): string {
  const documents = traces.reduce((n, t) => n + t.documents.length, 0);
  const genai = traces.some((t) => t.spans.some((s) => s.genai));
  return `${plural(traces.length, 'sampled trace')} of OTLP spans, ${plural(documents, 'retrieved document')}: read with format: ${genai ? 'otel (GenAI conventions)' : 'openinference'}`;
}

/** An id as `check` reads one: a string, or an integer as its decimal digits. */
const idText = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : Number.isSafeInteger(v) ? String(v) : undefined;

/** The keys of an object whose values are ids, nested keys dotted (at most two levels: metadata.source.id). */
function idKeys(v: unknown, prefix = '', depth = 0): string[] {
  if (!isObject(v) || depth > 1) return [];
  return Object.entries(v).flatMap(([k, x]) =>
    k.includes('.')
      ? []
      : idText(x) !== undefined
        ? [`${prefix}${k}`]
        : idKeys(x, `${prefix}${k}.`, depth + 1),
  );
}

const valueAt = (v: unknown, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((x, k) => (isObject(x) && Object.hasOwn(x, k) ? x[k] : undefined), v);

/** The qid source whose values meet the most gold qids (or, for input.value, gold questions); ties to metadata. */
function chooseQid(gold: readonly unknown[], traces: readonly SampledTrace[]) {
  const qids = new Set(gold.flatMap((g) => idText((g as { qid?: unknown }).qid) ?? []));
  const questions = new Set(gold.map((g) => (g as { question?: unknown }).question));
  const keys = [...new Set(traces.flatMap((t) => idKeys(t.metadata)))].sort();
  const tried = [
    ...keys.map((k) => ({
      qid: `metadata.${k}`,
      met: traces.filter((t) => qids.has(idText(valueAt(t.metadata, k)) ?? '')).length,
    })),
    { qid: 'input.value', met: traces.filter((t) => questions.has(t.input)).length },
  ];
  const best = tried.reduce((a, b) => (b.met > a.met ? b : a));
  const others = tried.filter((t) => t !== best).map((t) => `${t.qid} ${t.met}`);
  const what = best.qid === 'input.value' ? 'a gold question' : 'a gold qid';
  const note = `the root span's ${best.qid} is ${what} in ${best.met} of ${plural(traces.length, 'sampled trace')}${others.length ? ` (${others.join(', ')})` : ''}`;
  return { ...best, note };
}

/**
 * The document id key whose values meet the most gold citations (the search check's mis-read finding makes,
 * id-keys.ts); document.id when none meets one and the spans carry it, else the first key a document has.
 */
function chooseDocumentId(gold: readonly unknown[], traces: readonly SampledTrace[]) {
  const ids = new Set(
    gold.flatMap((g) => {
      const cited = (g as { gold_citations?: unknown }).gold_citations;
      return Array.isArray(cited) ? cited.flatMap((c) => idText(c) ?? []) : [];
    }),
  );
  const documents = traces.flatMap((t) => t.documents);
  const ranked = documentKeysMeeting(documents, ids);
  const sampled = plural(documents.length, 'sampled document');
  const best = ranked[0];
  if (best) {
    const others = ranked.slice(1).map((k) => `${k.key} ${k.meets}`);
    if (best.key !== 'document.id' && !ranked.some((k) => k.key === 'document.id'))
      others.unshift(documents.some((d) => d.id !== undefined) ? 'document.id 0' : 'no document.id');
    return {
      documentId: best.key,
      note: `${best.key} meets ${best.meets} of the gold set's ${plural(ids.size, 'cited id')} in ${sampled}${others.length ? ` (${others.join(', ')})` : ''}`,
    };
  }
  const keys = [...new Set(documents.flatMap((d) => idKeys(d.metadata)))].sort();
  const documentId =
    documents.some((d) => d.id !== undefined) || keys.length === 0 ? 'document.id' : `metadata.${keys[0]}`;
  return {
    documentId,
    note: `no key of the ${sampled} meets a gold citation (${['document.id', ...keys.map((k) => `metadata.${k}`)].join(', ')}): check which key holds your ids`,
  };
}

/** How many sampled traces name a gold item, under the qid source that names the most. */
export const tracesMeeting = (gold: readonly unknown[], traces: readonly SampledTrace[]): number =>
  chooseQid(gold, traces).met;

/** The `openinference:` keys for a gold set's spans, and the sampled traces as records read through them. */
export function proposeSpans(
  gold: readonly unknown[],
  traces: readonly SampledTrace[],
): { proposal: SpanProposal; records: unknown[] } {
  const qid = chooseQid(gold, traces);
  const doc = chooseDocumentId(gold, traces);
  const byQuestion = new Map(
    gold.map((g) => [(g as { question?: unknown }).question, (g as { qid?: unknown }).qid]),
  );
  const records = traces.flatMap((t) => {
    try {
      const value = assemble(t.spans, { qid: qid.qid, documentId: doc.documentId }).value as {
        qid: string;
      };
      if (qid.qid === 'input.value') value.qid = String(byQuestion.get(value.qid) ?? value.qid);
      return [value];
    } catch {
      return [];
    }
  });
  return {
    proposal: {
      format: traces.some((t) => t.spans.some((s) => s.genai)) ? 'otel' : 'openinference',
      qid: qid.qid,
      qidNote: qid.note,
      documentId: doc.documentId,
      documentNote: doc.note,
    },
    records,
  };
}

/** The suite block's `format:` and `openinference:` lines, a comment beside each. */
export function spanProposalLines(p: SpanProposal): string[] {
  return [
    p.format === 'otel'
      ? `format: otel # proposed by groundgate init: OTLP spans under the OpenTelemetry GenAI conventions (${docRef('docs/formats.md')})`
      : `format: openinference # proposed by groundgate init: OTLP spans under the OpenInference conventions (${docRef('docs/formats.md')})`,
    'openinference:',
    `  qid: ${JSON.stringify(p.qid)} # ${p.qidNote.replace(/[\r\n]/g, ' ')}`,
    `  document_id: ${JSON.stringify(p.documentId)} # ${p.documentNote.replace(/[\r\n]/g, ' ')}`,
  ];
}
