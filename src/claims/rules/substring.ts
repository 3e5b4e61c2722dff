import { z } from 'zod';
import { contains } from '../../grounded-answer/containment.js';
import type { ClaimRule } from './types.js';

const options = z.strictObject({});

/** The seed's C, the default: a gold substring in the claim, case aside (containment.ts states it exactly). */
export const substring: ClaimRule<typeof options, null> = {
  name: 'substring',
  options,
  create: () => null,
  match: (_claim, lower, item) => (contains(lower, item) ? 'substring' : undefined),
  advice:
    'grounded and cited, but no gold fact is in the claim word for word (case aside): make the answer quote the fact as the cited chunk words it, or let numbers, units and punctuation vary (claims: {match: normalized})',
};
