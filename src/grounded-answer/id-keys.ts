import { formatPointer } from '../io/json-pointer.js';
import { MAX_JSON_DEPTH } from '../io/json-depth.js';

// Which key of a source holds ids that meet a gold set's: the search behind "ids that meet nothing"
// (docs/metrics.md, "When the data looks read wrongly") and behind what `init` proposes for the retrieved-ids
// pointer or `openinference.document_id`. Pure: the caller reads the records and the gold set.

/** Below this share of the gold set's distinct ids met by the traces' ids, the ids are taken to meet nothing. */
export const MEET_SHARE = 0.05;

/** Whether `met` of `gold` distinct gold ids is too few: gold has ids and fewer than MEET_SHARE of them met. */
export const meetsTooFew = (met: number, gold: number): boolean => gold > 0 && met < MEET_SHARE * gold;

/** A key and how many distinct gold ids its values meet. */
export interface IdKey {
  /**
   * A JSON Pointer with `*` for every element of an array (`/contexts/*\/source`), as `fields:` reads it; for
   * OpenInference documents, `document.id` or `metadata.<key>` (nested keys dotted) as
   * `openinference.document_id` reads it.
   */
  key: string;
  meets: number;
}

/**
 * Keys that hold what a trace or a dataset keeps as the expected answer (RAGAS `reference_context_ids`,
 * `gold_citations`, `relevant_docs`, `ground_truth`): they meet gold ids by copying them, and are never
 * proposed as where retrieved ids are.
 */
const REFERENCE_KEY = /^(?:reference|gold|expected|ground_?truth|relevant)|_(?:gold|reference)$/i;

/**
 * Every key of `records` whose strings meet a gold id, with how many distinct ids of `gold` its strings meet,
 * most first and then by key in code-unit order. A key is each place holding a string, through objects and
 * arrays (an array's elements are one key, `*`): `/retrieved_ids/*`, `/contexts/*\/doc_id`,
 * `/source_nodes/*\/node/metadata/doc_id`. A key under a member named like a reference (REFERENCE_KEY) is
 * left out. Numbers and booleans are not ids: the contract reads ids as strings.
 */
export function keysMeeting(records: Iterable<unknown>, gold: ReadonlySet<string>): IdKey[] {
  const met = new Map<string, Set<string>>();
  const see = (key: string, id: string) => {
    if (!gold.has(id)) return;
    let ids = met.get(key);
    if (!ids) met.set(key, (ids = new Set()));
    ids.add(id);
  };
  for (const record of records) walk(record, [], see, 0);
  return ranked(met);
}

function walk(value: unknown, tokens: string[], see: (key: string, id: string) => void, depth: number): void {
  if (typeof value === 'string') {
    if (tokens.length > 0) see(formatPointer(tokens), value);
    return;
  }
  if (depth >= MAX_JSON_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    tokens.push('*');
    for (const v of value) walk(v, tokens, see, depth + 1);
    tokens.pop();
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (REFERENCE_KEY.test(k)) continue;
    tokens.push(k);
    walk(v, tokens, see, depth + 1);
    tokens.pop();
  }
}

/** An OpenInference document as a RETRIEVER span writes it: `document.id`, and `document.metadata` parsed. */
export interface SpanDocument {
  id?: unknown;
  metadata?: unknown;
}

/**
 * The keys of OpenInference documents whose strings meet a gold id, as keysMeeting ranks them: `document.id`,
 * and `metadata.<key>` for each string in `document.metadata`, nested keys dotted (`metadata.source.doc_id`),
 * as `openinference.document_id` names them. Lists inside metadata are not ids of one document and are left
 * out.
 */
export function documentKeysMeeting(documents: Iterable<SpanDocument>, gold: ReadonlySet<string>): IdKey[] {
  const met = new Map<string, Set<string>>();
  const see = (key: string, id: unknown) => {
    if (typeof id !== 'string' || !gold.has(id)) return;
    let ids = met.get(key);
    if (!ids) met.set(key, (ids = new Set()));
    ids.add(id);
  };
  const inMetadata = (value: unknown, key: string, depth: number) => {
    if (typeof value === 'string') see(key, value);
    else if (depth < MAX_JSON_DEPTH && typeof value === 'object' && value !== null && !Array.isArray(value))
      for (const [k, v] of Object.entries(value))
        if (!REFERENCE_KEY.test(k)) inMetadata(v, `${key}.${k}`, depth + 1);
  };
  for (const d of documents) {
    see('document.id', d.id);
    inMetadata(d.metadata, 'metadata', 0);
  }
  return ranked(met);
}

function ranked(met: ReadonlyMap<string, ReadonlySet<string>>): IdKey[] {
  return [...met]
    .map(([key, ids]) => ({ key, meets: ids.size }))
    .sort((a, b) => b.meets - a.meets || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Ids as a message shows a sample of them: the first `n` distinct, one longer than 16 characters cut to 9 and `…`. */
export function idSample(ids: Iterable<string>, n = 2): string {
  const shown: string[] = [];
  for (const id of ids) {
    if (shown.length === n) return `${shown.join(', ')}, …`;
    const s = id.length > 16 ? `${id.slice(0, 9)}…` : id;
    if (!shown.includes(s)) shown.push(s);
  }
  return shown.join(', ');
}
