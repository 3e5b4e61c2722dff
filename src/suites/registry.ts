import { agentRetrieval } from './agent-retrieval/index.js';
import { consistency } from './consistency/index.js';
import { context } from './context/index.js';
import { groundedQa } from './grounded-qa/index.js';
import { latency } from './latency/index.js';
import { ranking } from './ranking/index.js';
import { stability } from './stability/index.js';
import type { SuiteKind } from './types.js';

/** Every suite kind groundgate knows. Adding a kind = a folder under suites/ and a line here. */
export const SUITE_KINDS: readonly SuiteKind[] = [
  groundedQa as unknown as SuiteKind,
  ranking as unknown as SuiteKind,
  latency as unknown as SuiteKind,
  consistency as unknown as SuiteKind,
  stability as unknown as SuiteKind,
  context as unknown as SuiteKind,
  agentRetrieval as unknown as SuiteKind,
];

export function suiteKind(name: string): SuiteKind | undefined {
  return SUITE_KINDS.find((k) => k.kind === name);
}
