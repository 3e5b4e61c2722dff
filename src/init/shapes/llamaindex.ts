import { formatPointer, parsePointer } from '../../io/json-pointer.js';
import { keysMeeting } from '../../grounded-answer/id-keys.js';
import { ID, QUESTION } from '../field-proposal.js';
import { line, stringKey, type Record_, type ToolShape } from './tool-shape.js';
import { isObject } from '../../io/record-shape.js';

// LlamaIndex's query answer, one per line as a team logs it beside its own query id. Python's `Response`
// (llama-index-core llama_index/core/base/response/schema.py) is a dataclass {response, source_nodes,
// metadata}, each source a `NodeWithScore` {node: {id_, metadata, text, …}, score}; the TS package's
// `EngineResponse` (@llamaindex/core/schema) stringifies as {message: {content}, sourceNodes, metadata}.
// Neither cites: the source nodes are what the answer was synthesized from (Response.get_formatted_sources),
// so they are read as its citations too. A node's `id_` is a UUID the index made unless the team set it; the
// team's document id is then a key of `node.metadata`: the member whose values meet most gold ids is read.

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
    return {
      traces: [...head, ...ids(['id_'], "the node's id")],
      meet(goldIds) {
        // Only the nodes' members: Response.metadata repeats each node's metadata under its node id.
        const nodes = records.map((r) => ({ [s.sources]: r[s.sources] }));
        const prefix = formatPointer([s.sources, '*', 'node', '']);
        // A mapping reads one list (one `*`): a list inside a node's metadata holds no id of the node.
        const met = keysMeeting(nodes, goldIds).filter(
          (k) => k.key.startsWith(prefix) && !k.key.slice(prefix.length).split('/').includes('*'),
        );
        const own = met.find((k) => k.key === `${prefix}id_`)?.meets ?? 0;
        // The most gold ids met (ties in key order); the node's own id when no member meets any.
        const best = met[0] ?? { key: `${prefix}id_`, meets: 0 };
        const key = (parsePointer(best.key) as string[]).slice(3);
        const note = `meets ${best.meets} of ${goldIds.size} sampled gold ids${key[0] === 'id_' ? '' : `; node.id_ meets ${own}`}`;
        return [...head, ...ids(key, note)];
      },
    };
  },
};
