import type { FieldSource } from '../io/field-map.js';
import type { Proposal } from './plan.js';
import { docRef } from '../docs.js';
import { spanProposalLines } from './span-proposal.js';

// The `fields:` and `refusal:` init proposes, as lines of a suite's block in gates.yaml: a comment beside each
// saying what matched, and a line it is unsure of commented out with the alternatives.

/** A pointer as a YAML scalar: plain when YAML reads it back as the same string, else double-quoted. */
const pointer = (p: string) => (/^\/[A-Za-z0-9_./*~-]*$/.test(p) ? p : JSON.stringify(p));

function source(s: FieldSource): string {
  if (typeof s === 'string') return pointer(s);
  const transform = Object.entries(s)
    .filter(([k]) => k !== 'from')
    // JSON is YAML's flow style: a string quoted, a list (a default of []) as written.
    .map(
      ([k, v]) => `${k}: ${typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)}`,
    );
  return `{ from: ${pointer(s.from)}, ${transform.join(', ')} }`;
}

/** Comment text on one line: what the user's data named must not end the comment. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const flat = (text: string) => text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, ' ');

/** Why a claim rule other than substring is proposed, and what each measured when init has run it. */
export function claimsNote(c: NonNullable<Proposal['claims']>): string {
  return `the gold facts are whole reference answers (${c.facts}), which an answer rarely holds word for word, so substring matching cannot hold; the normalized rule finds at least ${c.min_token_recall} of a fact's tokens in order, none negated (${docRef('docs/metrics.md')}, Claims); match: semantic with a judge also weighs paraphrase${c.measured ? `; ${c.measured}` : ''}`;
}

/** The suite block's `format:`, `fields:`, `refusal:` and `claims:` lines (indented from the block's own level), or none. */
export function proposalLines(
  p: Pick<Proposal, 'fields' | 'refusal' | 'claims' | 'openinference'>,
): string[] {
  const out: string[] = p.openinference ? spanProposalLines(p.openinference) : [];
  const inputs = Object.entries(p.fields ?? {}).filter(([, f]) => f.lines.length > 0);
  if (inputs.length) {
    out.push(
      `fields: # proposed by groundgate init: your records mapped to the contract (${docRef('docs/formats.md')})`,
    );
    for (const [key, f] of inputs) {
      out.push(`  ${key}:`);
      for (const l of f.lines) {
        const line = `${l.canonical}: ${source(l.source)}`;
        out.push(
          l.unsure
            ? `    # ${line} # unsure: ${flat(l.unsure)}; ${flat(l.note)}`
            : `    ${line} # ${flat(l.note)}`,
        );
      }
      // Every line unsure: the input's key must still hold a mapping, or YAML reads it as null.
      if (f.lines.every((l) => l.unsure)) out.push('    {}');
    }
  }
  if (p.refusal)
    out.push(
      `refusal: # proposed by groundgate init: ${flat(p.refusal.note)}`,
      `  phrases: [${p.refusal.phrases.map((x) => JSON.stringify(x)).join(', ')}]`,
    );
  if (p.claims)
    out.push(
      `claims: # proposed by groundgate init: ${flat(claimsNote(p.claims))}`,
      `  match: ${p.claims.match}`,
      `  min_token_recall: ${p.claims.min_token_recall}`,
    );
  return out;
}
