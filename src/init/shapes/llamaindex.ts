import { formatPointer } from '../../io/json-pointer.js';
import { ID, QUESTION } from '../field-proposal.js';
import { isObject, line, stringKey, type Record_, type ToolShape } from './tool-shape.js';

// LlamaIndex's query answer, one per line as a team logs it beside its own query id. Python's `Response`
// (llama-index-core llama_index/core/base/response/schema.py) is a dataclass {response, source_nodes,
// metadata}, each source a `NodeWithScore` {node: {id_, metadata, text, …}, score}; the TS package's
// `EngineResponse` (@llamaindex/core/schema) stringifies as {message: {content}, sourceNodes, metadata}.
// Neither cites: the source nodes are what the answer was synthesized from (Response.get_formatted_sources),
// so they are read as its citations too. A node's `id_` is a UUID the index made unless the team set it; the
// team's document id is then a key of `node.metadata`, chosen by which of them meets the gold ids.

interface Spelling {
  what: string;
  sources: string;
  claim: string[];
}

const SPELLINGS: readonly Spelling[] = [
  { what: 'LlamaIndex Response (Python)', sources: 'source_nodes', claim: ['response'] },
  { what: 'LlamaIndex EngineResponse (TypeScript)', sources: 'sourceNodes', claim: ['message', 'content'] },
];

const spellingOf = (records: readonly Record_[]) =>
  SPELLINGS.find((s) =>
    records.every((r) => {
      const nodes = r[s.sources];
      return (
        Array.isArray(nodes) &&
        nodes.every((n) => isObject(n) && isObject(n.node)) &&
        typeof s.claim.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), r) === 'string'
      );
    }),
  );

/** The members of a node that may hold its document id: its own `id_`, then each string of its metadata. */
function idKeys(records: readonly Record_[], sources: string): string[][] {
  const keys = new Set<string>();
  for (const r of records)
    for (const n of r[sources] as Record_[]) {
      const meta = (n.node as Record_).metadata;
      if (isObject(meta)) for (const [k, v] of Object.entries(meta)) if (typeof v === 'string') keys.add(k);
    }
  return [['id_'], ...[...keys].sort().map((k) => ['metadata', k])];
}

function valuesAt(records: readonly Record_[], sources: string, key: readonly string[]): string[] {
  return records.flatMap((r) =>
    (r[sources] as Record_[]).flatMap((n) => {
      const v = key.reduce<unknown>((x, k) => (isObject(x) ? x[k] : undefined), n.node);
      return typeof v === 'string' ? [v] : [];
    }),
  );
}

export const llamaindexResponse: ToolShape = {
  what: 'LlamaIndex Response',
  source:
    'llama-index-core llama_index/core/base/response/schema.py (Python), @llamaindex/core/schema EngineResponse (TypeScript)',
  accepts: (records) => spellingOf(records) !== undefined,
  read(records) {
    const s = spellingOf(records)!;
    const qid = stringKey(records, ID);
    const question = stringKey(records, [...QUESTION, 'query_str']);
    const claim = formatPointer(s.claim);
    const head = [
      ...(qid
        ? [line('/qid', `/${qid}`, `${qid} → qid (the team's own query id beside the ${s.what})`)]
        : []),
      ...(question ? [line('/q', `/${question}`, `${question} → q`)] : []),
      line(
        '/answer_json/claim',
        claim,
        `${s.claim.join('.')} → answer_json.claim (${s.what}: the answer text)`,
      ),
    ];
    const ids = (key: readonly string[], met: string) => {
      const from = formatPointer([s.sources, '*', 'node', ...key]);
      const name = `${s.sources}[*].node.${key.join('.')}`;
      return [
        line('/retrieved_ids', from, `${name} → retrieved_ids (${met})`),
        line(
          '/answer_json/citations',
          from,
          `${name} → answer_json.citations (a ${s.what} cites nothing of its own: its source nodes are what the answer was made from)`,
        ),
      ];
    };
    if (!qid)
      return {
        choose: [
          `no query id beside the ${s.what}: log yours on each line (${ID.slice(0, 3).join(', ')}) to pair it with the gold set`,
        ],
      };
    const keys = idKeys(records, s.sources);
    return {
      traces: [...head, ...ids(['id_'], "the node's id")],
      meet(goldIds) {
        const met = keys.map((key) => ({
          key,
          count: new Set(valuesAt(records, s.sources, key).filter((v) => goldIds.has(v))).size,
        }));
        // The most gold ids met; on a tie the node's own id, then the metadata keys in name order.
        const best = met.reduce((a, b) => (b.count > a.count ? b : a));
        const others = met
          .filter((m) => m !== best)
          .map((m) => `node.${m.key.join('.')} meets ${m.count}`)
          .join(', ');
        const note = `meets ${best.count} of ${goldIds.size} sampled gold ids${others ? `; ${others}` : ''}`;
        return [...head, ...ids(best.key, note)];
      },
    };
  },
};
