import { readFile } from 'node:fs/promises';
import { parseJsonLine, readLineBatches } from '../../io/jsonl.js';
import { documentKeysMeeting, type SpanDocument } from '../id-keys.js';
import type { TraceReads } from '../trace-reads.js';
import { isSpanDocument, parsedOrText, spanFacts } from './span-facts.js';
import { OPENINFERENCE } from './vocabularies/openinference.js';

// Traces assembled from spans (OpenInference's attributes or the GenAI conventions'): the qid and the
// retrieved ids are read where `openinference:` says, and one trace's spans may be in any of the files.

export const SPAN_READS: TraceReads = {
  readers: (input) => ({
    qid: `openinference.qid: ${input.qid}`,
    retrieved: "the RETRIEVER spans' documents, openinference.document_id",
    citations: "the answer's citations in output.value, or citation_markers",
  }),
  idReader: (input) => `openinference.document_id: ${input.documentId ?? OPENINFERENCE.documentId}`,
  async idKeys(input, { files, size }, goldIds) {
    const sample = await spanDocumentsOf(files, size);
    const read = input.documentId ?? OPENINFERENCE.documentId;
    const keys = documentKeysMeeting(sample.values, goldIds).filter((k) => k.key !== read);
    return { keys, runs: sample.runs };
  },
  idFix: (key) => ({
    key: key === OPENINFERENCE.documentId ? key : `document.${key}`,
    setting: `openinference.document_id: ${key}`,
  }),
  assemblesAcrossFiles: true,
};

/**
 * The documents of the RETRIEVER spans of the first `size` lines (a `.json` document whole) of the trace
 * files, with their ids and metadata, and how many traces they are of.
 */
async function spanDocumentsOf(
  files: readonly string[],
  size: number,
): Promise<{ values: SpanDocument[]; runs: number }> {
  const values: SpanDocument[] = [];
  const traces = new Set<string>();
  const add = (value: unknown, file: string, line: number) => {
    const ids = spanFacts(value, file, line, undefined);
    const metadata = spanFacts(value, file, line, undefined, undefined, 'metadata.*');
    ids.forEach((s, k) => {
      if (s.kind !== 'RETRIEVER') return;
      traces.add(s.traceId);
      const meta = metadata[k]!.documents;
      const n = Math.max(s.documents.length, meta.length);
      for (let i = 0; i < n; i++) values.push({ id: s.documents[i], metadata: parsedOrText(meta[i]) });
    });
  };
  let lines = 0;
  for (const file of files) {
    if (lines >= size) break;
    if (isSpanDocument(file)) {
      const text = (await readFile(file, 'utf8')).replace(/^\ufeff/, '');
      const doc: unknown = JSON.parse(text);
      for (const v of Array.isArray(doc) ? doc : [doc]) add(v, file, 1);
      lines++;
      continue;
    }
    for await (const batch of readLineBatches(file)) {
      for (let i = 0; i < batch.length && lines < size; i++) {
        if (batch.blank(i)) continue;
        add(parseJsonLine(file, batch.line(i), batch.text(i)), file, batch.line(i));
        lines++;
      }
      if (lines >= size) break;
    }
  }
  return { values, runs: traces.size };
}
