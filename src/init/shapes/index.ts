import { mapped, type FieldLine, type FieldProposal } from '../field-proposal.js';
import { deepevalCase } from './deepeval.js';
import { llamaindexResponse } from './llamaindex.js';
import { ragasSample } from './ragas.js';
import { type ClaimsProposal, type Record_, type ShapeRead, type ToolShape } from './tool-shape.js';
import { isObject } from '../../io/record-shape.js';

/** The tools whose records init recognises by their own names, tried in this order before the name search. */
export const TOOL_SHAPES: readonly ToolShape[] = [llamaindexResponse, ragasSample, deepevalCase];

const proposal = (input: 'gold' | 'traces', lines: FieldLine[]): FieldProposal => ({
  input,
  lines,
  missing: [],
  partial: {},
});

const qidsOf = (records: readonly unknown[]) =>
  records.flatMap((r) => {
    const qid = (r as { qid?: unknown }).qid;
    return typeof qid === 'string' ? [qid] : [];
  });

/** One input a tool's file is read as, through its mapping. */
export interface ToolInput {
  input: 'gold' | 'traces';
  fields: FieldProposal;
  /** The sampled records through the mapping: contract records. */
  records: unknown[];
  qids: string[];
  meet?: (goldIds: ReadonlySet<string>) => FieldProposal;
  claims?: ClaimsProposal;
  choose?: string[];
}

/**
 * Sampled records a tool wrote: each input its mapping reads them as (a RAGAS or DeepEval file is both gold and
 * traces), and the line saying so; undefined when no tool's names fit.
 */
export function readAsTool(
  records: readonly unknown[] | undefined,
): { what: string; inputs: ToolInput[]; line: string } | undefined {
  if (!records?.length || !records.every(isObject)) return undefined;
  const objects = records as Record_[];
  const tool = TOOL_SHAPES.find((t) => t.accepts(objects));
  if (!tool) return undefined;
  const read: ShapeRead = tool.read(objects);
  const inputs: ToolInput[] = [];
  const failed: string[] = [];
  for (const input of ['gold', 'traces'] as const) {
    const lines = read[input];
    if (!lines) continue;
    const fields = proposal(input, lines);
    const contract = mapped(objects, fields);
    if (!contract) {
      failed.push(input);
      continue;
    }
    const { meet } = read;
    inputs.push({
      input,
      fields,
      records: contract,
      qids: qidsOf(contract),
      ...(input === 'traces' && meet ? { meet: (ids) => proposal('traces', meet(ids)) } : {}),
      ...(input === 'gold' && read.claims ? { claims: read.claims } : {}),
      ...(read.choose ? { choose: read.choose } : {}),
    });
  }
  const taken = inputs.map((c) => c.input).join(' and ');
  const line = inputs.length
    ? `${tool.what}: read as ${taken} through fields:${read.choose ? `; you choose: ${read.choose.join('; ')}` : ''}`
    : `${tool.what}, not taken: ${failed.length ? `its records are not contract records through the ${failed.join(' or ')} mapping` : (read.choose ?? []).join('; ')}`;
  return { what: tool.what, inputs, line };
}
