import type { FieldSource } from '../../io/field-map.js';
import type { FieldLine } from '../field-proposal.js';

// What a tool writes, recognised by the names its own code gives its fields (docs/init.md, "Data as tools
// write it"). A shape proposes whole mappings: the generic name search (field-proposal.ts) would read a
// RAGAS context text as an id, or a LlamaIndex node's UUID where the team's doc id sits in its metadata.

export type Record_ = Readonly<Record<string, unknown>>;

/** The claim rule a gold set of whole reference answers needs, and why. */
export interface ClaimsProposal {
  match: 'normalized';
  min_token_recall: number;
  /** Where the facts are read from, as the user named it: `reference`. */
  facts: string;
  /** What each rule's precision measured on today's data, once init has run the suite. */
  measured?: string;
}

export interface ToolShape {
  /** The tool and the object it wrote, for the listing: `RAGAS EvaluationDataset (to_jsonl)`. */
  what: string;
  /** Where the names are defined (the library's code or docs). */
  source: string;
  /** Every sampled record is this tool's. */
  accepts(records: readonly Record_[]): boolean;
  /** The mappings that make its records contract records: traces, gold, or both (one file holds both). */
  read(records: readonly Record_[]): ShapeRead;
}

export interface ShapeRead {
  traces?: FieldLine[];
  gold?: FieldLine[];
  /** Traces whose ids may be elsewhere: the mapping whose ids meet `goldIds` best, with its note. */
  meet?: (goldIds: ReadonlySet<string>) => FieldLine[];
  /** Gold facts that are whole answers: the claim rule that can hold. */
  claims?: ClaimsProposal;
  /** What init cannot know and the user must choose, said in the listing and in gates.yaml. */
  choose?: string[];
}

/** A proposed line: the member, where it is read from, and what the tool calls it. */
export function line(canonical: string, source: FieldSource, note: string): FieldLine {
  return { canonical, source, note };
}

/** The first name of `names` every record holds a non-empty string under, or undefined. */
export function stringKey(records: readonly Record_[], names: readonly string[]): string | undefined {
  return names.find((n) => records.every((r) => typeof r[n] === 'string' && r[n] !== ''));
}
