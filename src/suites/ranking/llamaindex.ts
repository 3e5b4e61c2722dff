import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { InputError } from '../../errors.js';
import { readJsonFile } from '../../io/json-document.js';

// LlamaIndex's retrieval gold set as qrels: EmbeddingQAFinetuneDataset.save_json writes one JSON document
// {"queries": {qid: text}, "corpus": {docid: text}, "relevant_docs": {qid: [docid, ...]}, "mode": "text"}
// (run-llama/llama_index, llama-index-core/llama_index/core/llama_dataset/legacy/embedding.py). Relevance is
// binary there, so each listed docid is a judgment of grade 1. Only relevant_docs is read: a qrels file has
// no query or document text either.

const EXPECTED = 'a LlamaIndex EmbeddingQAFinetuneDataset {"relevant_docs": {qid: [docid, ...]}, ...}';

/**
 * Calls `visit` for each (qid, docid) of the dataset's relevant_docs, in document order, with the line of
 * the docid. JSON is YAML, so the YAML parser gives the lines (JSON objects would also reorder numeric qids).
 */
export function forEachDatasetJudgment(
  file: string,
  visit: (judgment: { qid: string; docid: string; rel: number; line: number }) => void,
): void {
  const { text } = readJsonFile(file, EXPECTED);
  const lineCounter = new LineCounter();
  const root = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false }).contents;
  const lineOf = (node: YamlNode | null | undefined) => lineCounter.linePos(node?.range?.[0] ?? 0).line;
  const fail = (node: YamlNode | null | undefined, detail: string) =>
    new InputError({ file, line: lineOf(node) }, detail);

  if (!isMap(root)) throw fail(root, `found ${kindOf(root)}; expected ${EXPECTED}`);
  const relevant = root.items.find((p) => isScalar(p.key) && p.key.value === 'relevant_docs');
  if (!relevant) throw fail(root, `no "relevant_docs" in the document; expected ${EXPECTED}`);
  const queries = relevant.value as YamlNode | null;
  if (!isMap(queries))
    throw fail(queries, `"relevant_docs" is ${kindOf(queries)}; expected an object of qid: [docid, ...]`);
  // JSON allows a key twice and LlamaIndex's json.load keeps the last: an error here, never a silent choice.
  const seen = new Map<string, number>();
  for (const pair of queries.items) {
    const key = pair.key as YamlNode;
    const qid = String((key as { value?: unknown }).value);
    const first = seen.get(qid);
    if (first !== undefined)
      throw fail(
        key,
        `qid ${JSON.stringify(qid)} is a key of relevant_docs twice (first at line ${first}); expected each qid once`,
      );
    seen.set(qid, lineOf(key));
    const docs = pair.value as YamlNode | null;
    if (!isSeq(docs))
      throw fail(
        docs,
        `relevant_docs of qid ${JSON.stringify(qid)} is ${kindOf(docs)}; expected a list of docids`,
      );
    for (const doc of docs.items as (YamlNode | null)[]) {
      if (!isScalar(doc) || typeof doc.value !== 'string' || doc.value === '')
        throw fail(
          doc,
          `a docid of qid ${JSON.stringify(qid)} is ${kindOf(doc)}; expected a non-empty docid string`,
        );
      visit({ qid, docid: doc.value, rel: 1, line: lineOf(doc) });
    }
  }
}

/** What a JSON value is, for "found …". */
function kindOf(node: YamlNode | null | undefined): string {
  if (isMap(node)) return 'an object';
  if (isSeq(node)) return 'a list';
  const value = isScalar(node) ? node.value : null;
  if (value === null) return 'null';
  if (value === '') return 'an empty string';
  return typeof value === 'string'
    ? `the string ${JSON.stringify(value)}`
    : `${typeof value} ${String(value)}`;
}
