// Times normalized containment (src/claims/match.ts) on #54's slow case: a long gold fact against a 20 kB
// claim of the same few words, at several min_token_recall. Run on the compiled sources:
//
//   npm run compile && node bench/claims-containment.mjs [LIB]
//
// LIB (default lib/) is a compiled tree to time instead, e.g. an older commit's, to compare. One JSON line per
// case: the fact's and claim's tokens, the recall, the verdict and the milliseconds of one call.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const lib = path.resolve(process.argv[2] ?? 'lib');
const { containsNormalized, normalizeClaim, normalizeFact } = await import(
  pathToFileURL(path.join(lib, 'claims', 'match.js')).href
);

const WORDS = [
  'exports',
  'are',
  'limited',
  'to',
  '2',
  'GB',
  'per',
  'export',
  'data',
  'is',
  'encrypted',
  'at',
  'rest',
];
let state = 1;
const pick = () => {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return WORDS[Math.floor((state / 2 ** 31) * WORDS.length)];
};
const claimText = Array.from({ length: 4000 }, pick).join(' ').slice(0, 20_000);

for (const [tokens, recall] of [
  [100, 0.5],
  [200, 0.5],
  [200, 0.9],
  [200, 1],
]) {
  const rule = { nfkc: false, minTokenRecall: recall };
  const claim = normalizeClaim(claimText, rule);
  const fact = normalizeFact(Array.from({ length: tokens }, pick).join(' '), rule);
  const start = performance.now();
  const contained = containsNormalized(claim, fact, rule);
  const ms = Math.round(performance.now() - start);
  console.log(JSON.stringify({ fact: fact.length, claim: claim.length, recall, contained, ms }));
}
