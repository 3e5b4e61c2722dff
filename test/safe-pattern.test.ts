import { describe, expect, it } from 'vitest';
import { whyUnsafe } from '../src/config/safe-pattern.js';
import { configError } from './helpers/config-error.js';

// Patterns of gates.yaml may come from a fork: the ones that backtrack exponentially are refused, the rest
// (lookbehind included, which the first check refused) are not. Timings from the review of #44: `(a|a)*b` on
// 30 "a"s ran past a minute, `^(.|\s)*not in context` on 26 words took 10.7 s.
describe('whyUnsafe', () => {
  it.each([
    ['(a+)+$', 'a quantifier inside a quantified group'],
    [
      '^(.|\\s)*not in context',
      'alternatives inside a group quantified more than 16 times, which may match the same text',
    ],
    ['(a|a)*b', 'alternatives inside a group quantified more than 16 times, which may match the same text'],
    [
      '\\[((?:.|\\s)+)\\]',
      'alternatives inside a group quantified more than 16 times, which may match the same text',
    ],
    [
      '(?:x(?:ab|cd))+',
      'alternatives inside a group quantified more than 16 times, which may match the same text',
    ],
  ])('refuses %j', (source, why) => expect(whyUnsafe(source)).toBe(why));

  it.each([
    '(?<=I )know',
    '(?<!x)b+',
    '(?<=\\[)(\\d+)\\]',
    '(?<name>a)b',
    "^I (do not|don't) know",
    '\\[(\\d+)\\]',
    '(?:ab|cd){2,16}',
    // The seed's SCU rules.
    '(allow|accept|support)s?\\s+null\\s+keys',
    '\\b(gmail|yahoo|outlook)\\.com\\b|allow\\b.*\\bany\\b\\s+domain',
    '\\ballow(ed)?\\b|\\bcan\\b|\\bmay\\b',
  ])('accepts %j', (source) => expect(whyUnsafe(source)).toBeUndefined());

  it('in gates.yaml: a repeated alternation is refused at its line:column, a lookbehind is not', () => {
    const config = (pattern: string) =>
      `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    refusal:\n      patterns: ['${pattern}']\n    gates:\n      precision: ">= 0.8"\n`;
    expect(configError(config('^(.|\\s)*not in context'))).toBe(
      'gates.yaml:8:18: suite "qa": refusal.patterns.0: regular expression "^(.|\\\\s)*not in context" may take exponential time (alternatives inside a group quantified more than 16 times, which may match the same text); expected one without nested repetition or repeated alternatives',
    );
    expect(() => configError(config('(?<=I )know'))).toThrow('expected an InputError');
  });

  it('in gates.yaml: a pattern that matches without reading any text is refused (the review: "" made all 47 traces refusals)', () => {
    const refusal = (pattern: string) =>
      `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    refusal:\n      patterns: ['${pattern}']\n    gates:\n      precision: ">= 0.8"\n`;
    expect(configError(refusal(''))).toBe(
      'gates.yaml:8:18: suite "qa": refusal.patterns.0: regular expression "" matches without reading any text, so every claim would be a refusal; expected one that matches some text',
    );
    expect(configError(refusal('^'))).toMatch(/regular expression "\^" matches without reading any text/);
    expect(configError(refusal('(sorry)?'))).toMatch(/matches without reading any text/);
    expect(() => configError(refusal('^$'))).toThrow('expected an InputError');
    const markers = `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    citation_markers:\n      pattern: '\\[?(\\d*)\\]?'\n      refers_to: rank\n    gates:\n      precision: ">= 0.8"\n`;
    expect(configError(markers)).toBe(
      'gates.yaml:8:16: suite "qa": citation_markers.pattern: regular expression "\\\\[?(\\\\d*)\\\\]?" matches without reading any text, so it would cite "" between any two characters; expected one that matches some text',
    );
  });
});
