import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleOf } from '../src/init/detect.js';
import { readAsTool } from '../src/init/shapes/index.js';
import { expectSameAsCanonical, SHAPES } from './helpers/shapes.js';

// `init` on data as the tools write it (#55, docs/init.md): each shape's project/ read by `init --yes` scores
// as its hand-converted canonical/ (test/fixtures/shapes/*/README.md says how each was made).

const sample = (shape: string, file: string) => sampleOf(path.join(SHAPES, shape, 'project', file))!;

/** The `fields:` lines init wrote for an input, as they stand in gates.yaml (without their comments). */
function writtenFields(dir: string, input: string): string[] {
  const yaml = readFileSync(path.join(dir, 'gates.yaml'), 'utf8').split('\n');
  const start = yaml.indexOf(`      ${input}:`);
  const out: string[] = [];
  for (const l of yaml.slice(start + 1)) {
    if (!l.startsWith('        ')) break;
    out.push(l.trim().replace(/ # .*$/, ''));
  }
  return out;
}

describe('LlamaIndex Response lines', () => {
  it.each(['llamaindex-ts', 'llamaindex-py'])(
    '%s: init --yes reads the node metadata key that meets the gold ids, and scores as canonical',
    (shape) => {
      const { dir, init } = expectSameAsCanonical(shape);
      const sources = shape === 'llamaindex-ts' ? 'sourceNodes' : 'source_nodes';
      const claim = shape === 'llamaindex-ts' ? '/message/content' : '/response';
      expect(writtenFields(dir, 'traces')).toEqual([
        '/qid: /query_id',
        ...(shape === 'llamaindex-ts' ? ['/q: /query'] : []),
        `/answer_json/claim: ${claim}`,
        `/retrieved_ids: /${sources}/*/node/metadata/doc_id`,
        `/answer_json/citations: /${sources}/*/node/metadata/doc_id`,
      ]);
      // 8 distinct documents are cited by the 8 answerable items; the node UUIDs and file names meet none.
      expect(init.stdout).toContain(
        `${sources}[*].node.metadata.doc_id → retrieved_ids (meets 8 of 8 sampled gold ids; node.id_ meets 0)`,
      );
      expect(init.stdout).toContain(
        `eval/responses.jsonl: LlamaIndex Response: read as traces through fields:\n`,
      );
    },
  );

  it('says which spelling it read, and keeps the node id when that is what the gold set cites', () => {
    const read = readAsTool(sample('llamaindex-py', 'eval/responses.jsonl').records)!;
    expect(read.line).toBe('LlamaIndex Response: read as traces through fields:');
    const [traces] = read.inputs;
    expect(traces!.fields!.lines.map((l) => l.note)).toContain(
      'response → answer_json.claim (LlamaIndex Response (Python): the answer text)',
    );
    // The first record's first node is doc-retention's chunk: a gold set citing node ids keeps id_.
    const first = (
      sample('llamaindex-py', 'eval/responses.jsonl').records![0] as {
        source_nodes: { node: { id_: string } }[];
      }
    ).source_nodes[0]!.node.id_;
    const byNodeId = traces!.meet!(new Set([first, 'elsewhere']));
    expect(byNodeId.lines.find((l) => l.canonical === '/retrieved_ids')).toEqual({
      canonical: '/retrieved_ids',
      source: '/source_nodes/*/node/id_',
      note: 'source_nodes[*].node.id_ → retrieved_ids (meets 1 of 2 sampled gold ids)',
    });
  });

  it('without a query id beside the response, says what to add and takes nothing', () => {
    const s = sample('llamaindex-py', 'eval/responses.jsonl');
    const records = s.records!.map((r) => {
      const rest = { ...(r as Record<string, unknown>) };
      delete rest.query_id;
      return rest;
    });
    const read = readAsTool(records)!;
    expect(read.inputs).toEqual([]);
    expect(read.line).toBe(
      'LlamaIndex Response, not taken: no query id beside the LlamaIndex Response (Python): log yours on each line (id, question_id, query_id) to pair it with the gold set',
    );
  });
});
