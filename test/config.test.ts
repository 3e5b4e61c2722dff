import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load.js';
import { patternProblem } from '../src/config/pattern.js';
import { DEFAULT_SCU_RULES } from '../src/grounded-answer/scu.js';
import { SUITE_KINDS } from '../src/suites/registry.js';
import { configError } from './helpers/config-error.js';

const base = (gates = '      precision: ">= 0.8"\n', extra = '') =>
  `version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    gold: gold/qa.jsonl\n    traces: runs/*.jsonl\n${extra}    gates:\n${gates}`;

const error = configError;

describe('gates.yaml loader', () => {
  it('loads a valid config with both gate forms and defaults', () => {
    const cfg = parseConfig(
      base(
        '      precision: ">= 0.80"\n      chr: {min: 0.7, max: 1, max_drop: 0.02}\n      scu_violations: "== 0"\n      recall@10: { min: 0.5, allow_missing: true }\n',
        '    scu: true\n',
      ),
      '/repo/gates.yaml',
    );
    expect(cfg.dir).toBe('/repo');
    expect(cfg.offenders).toBe(10);
    const qa = cfg.suites[0]!;
    expect(qa.name).toBe('qa');
    expect(qa.config).toMatchObject({
      kind: 'grounded-qa',
      k: 5,
      refusal_token: 'not in context',
      scu: true,
    });
    expect(qa.config.gates).toEqual({
      precision: { checks: [{ op: '>=', threshold: 0.8 }], allowMissing: false },
      chr: {
        checks: [
          { op: '>=', threshold: 0.7 },
          { op: '<=', threshold: 1 },
        ],
        maxDrop: 0.02,
        allowMissing: false,
      },
      scu_violations: { checks: [{ op: '==', threshold: 0 }], allowMissing: false },
      'recall@10': { checks: [{ op: '>=', threshold: 0.5 }], maxDrop: undefined, allowMissing: true },
    });
    expect(qa.gateWhere.chr).toMatchObject({ line: 10, column: 7 });
  });

  it('rejects a misspelt metric with its position and a suggestion', () => {
    expect(error(base('      precison: ">= 0.8"\n'))).toMatch(
      /^gates\.yaml:8:7: suite "qa": unknown metric "precison" for kind grounded-qa; did you mean "precision"\?; expected one of precision, chr, under_refusal, over_refusal, recall@5, chr@5_upper_bound, scu_violations, constraint_integrity, coverage, tokens_in, tokens_in\.p50, tokens_out, tokens_out\.p50, tokens, tokens\.p50, cost, cost\.p50, cost\.total$/,
    );
    expect(error(base('      recal@5: ">= 0.8"\n'))).toMatch(
      /unknown metric "recal@5" .*did you mean "recall@5"\?/,
    );
  });

  it('rejects an unknown key in a suite with a suggestion', () => {
    expect(error(base(undefined, '    refusal_tokn: "n/a"\n'))).toBe(
      'gates.yaml:7:5: suite "qa": unknown key "refusal_tokn"; did you mean "refusal_token"?; expected one of kind, gold, traces, lock, refusal_token, refusal, citation_markers, k, scu, claims, format, openinference, fields, pricing, gates',
    );
  });

  it('rejects an unknown top-level key and an unknown kind', () => {
    expect(error(`version: 1\noffender: 3\nsuites: {}\n`)).toBe(
      'gates.yaml:2:1: unknown key "offender"; did you mean "offenders"?; expected one of version, offenders, report_offenders, suites',
    );
    expect(error(`version: 1\nsuites:\n  qa:\n    kind: grounded_qa\n`)).toBe(
      `gates.yaml:4:11: suite "qa": unknown kind "grounded_qa"; did you mean "grounded-qa"?; expected one of ${SUITE_KINDS.map((k) => k.kind).join(', ')}`,
    );
  });

  it('rejects significance without max_drop, or outside (0, 1), at its position', () => {
    expect(error(base('      precision: {min: 0.8, significance: 0.05}\n'))).toBe(
      'gates.yaml:8:7: suite "qa": gates.precision: significance applies to a max_drop gate; expected max_drop beside it',
    );
    expect(error(base('      precision: {max_drop: 0.02, significance: 1.5}\n'))).toBe(
      'gates.yaml:8:49: suite "qa": gates.precision.significance: expected a significance level between 0 and 1, such as 0.05',
    );
  });

  it('rejects bad gate expressions, versions and types at their position', () => {
    expect(error(base('      precision: "at least 0.8"\n'))).toMatch(
      /^gates\.yaml:8:18: suite "qa": gates\.precision: expected a comparison such as ">= 0\.80"/,
    );
    expect(error(base('      precision: {minimum: 0.8}\n'))).toBe(
      'gates.yaml:8:19: suite "qa": gates.precision: unknown key "minimum"; expected one of min, max, max_drop, max_increase, max_new_failures, allow_missing, confidence, significance',
    );
    expect(error(base('      precision: {min: 0.8, max_dorp: 1}\n'))).toMatch(
      /unknown key "max_dorp"; did you mean "max_drop"\?/,
    );
    expect(error(base('      precision: 0.8\n'))).toBe(
      'gates.yaml:8:18: suite "qa": gates.precision: expected a comparison such as ">= 0.80" or an object {min, max, max_drop, max_increase, max_new_failures, allow_missing, confidence, significance}',
    );
    expect(error(`version: 2\nsuites: {}\n`)).toBe('gates.yaml:1:10: version: expected version: 1');
    expect(error(base(undefined, '    k: five\n'))).toBe(
      'gates.yaml:7:8: suite "qa": k: expected number, received string',
    );
    expect(error(`version: 1\nsuites:\n  qa:\n    kind: grounded-qa\n    traces: t.jsonl\n`)).toBe(
      'gates.yaml:3:3: suite "qa": gold: missing required key; expected string',
    );
  });

  it('rejects invalid YAML, duplicate keys and invalid regexes', () => {
    expect(error('version: 1\nsuites:\n  qa: [unclosed\n')).toMatch(/^gates\.yaml:4:1: invalid YAML: /);
    expect(error(base('      chr: ">= 0.7"\n      chr: ">= 0.8"\n'))).toMatch(
      /^gates\.yaml:9:7: invalid YAML: Map keys must be unique/,
    );
    expect(
      error(base(undefined, '    scu:\n      rules:\n        - { lock: "(", contradiction: "x" }\n')),
    ).toMatch(
      /^gates\.yaml:9:\d+: suite "qa": scu\.rules\.0\.lock: regular expression "\(": missing closing \)/,
    );
  });

  it('refuses a fields: pointer deeper than a record can be, and a document nested past the parser, at file:line', () => {
    // 2,000 segments overflowed the stack compiling the line scanner (an internal error, ten stack lines).
    const pointer = (n: number) => '/a'.repeat(n);
    const mapped = (n: number) =>
      base(undefined, `    fields:\n      traces:\n        /retrieved_ids: ${pointer(n)}\n`);
    expect(error(mapped(2000))).toBe(
      `gates.yaml:9:25: suite "qa": fields.traces./retrieved_ids: "${'/a'.repeat(18)}/a… has 2000 reference tokens; expected at most 511`,
    );
    expect(() => parseConfig(mapped(511), path.join(process.cwd(), 'gates.yaml'))).not.toThrow();
    expect(error(`version: 1\nsuites:\n  qa: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`)).toMatch(
      /^gates\.yaml:3:\d+: invalid YAML: nested too deep to read; expected a config a few levels deep$/,
    );
  });

  it('refuses an alias bomb at the first alias, with file:line, as an input error', () => {
    const levels = ['version: 1', 'a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 9; i++)
      levels.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    expect(error([...levels, 'suites: {}'].join('\n'))).toBe(
      'gates.yaml:3:10: invalid YAML: aliases expand to too many nodes (more than 50 aliased nodes); expected a config without such repetition',
    );
    // An anchor shared by eight suites stays fine.
    const suites = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map(
      (n, i) =>
        `  ${n}:\n    kind: grounded-qa\n    gold: g.jsonl\n    traces: t.jsonl\n    gates: ${i === 0 ? '&g\n      precision: ">= 0.5"\n      chr: ">= 0.5"' : '*g'}\n`,
    );
    const shared = parseConfig(
      `version: 1\nsuites:\n${suites.join('')}`,
      path.join(process.cwd(), 'gates.yaml'),
    );
    expect(shared.suites.map((s) => Object.keys(s.config.gates))).toEqual(
      Array(8).fill(['precision', 'chr']),
    );
  });

  it('refuses names that are properties of every object (__proto__, constructor) wherever they are keys', () => {
    expect(error(base('      precision: ">= 0.8"\n').replace('  qa:', '  __proto__:'))).toBe(
      'gates.yaml:3:3: reserved name "__proto__"; expected a name that is not a property of every JavaScript object',
    );
    expect(error(base('      __proto__: ">= 0.8"\n'))).toBe(
      'gates.yaml:8:7: reserved name "__proto__"; expected a name that is not a property of every JavaScript object',
    );
    expect(error(base().replace('  qa:', '  constructor:'))).toMatch(
      /^gates\.yaml:3:3: reserved name "constructor"/,
    );
    expect(error(base('      precision: ">= 0.8"\n', '    toString: 1\n'))).toMatch(
      /^gates\.yaml:7:5: reserved name "toString"/,
    );
  });

  it('refuses thresholds that are not finite, in either form', () => {
    expect(error(base('      precision: "<= 1e400"\n'))).toBe(
      'gates.yaml:8:18: suite "qa": gates.precision: expected a finite threshold, found "<= 1e400"',
    );
    expect(error(base('      precision: { min: 1e400 }\n'))).toMatch(
      /^gates\.yaml:8:\d+: suite "qa": gates\.precision\.min: expected a finite number/,
    );
    expect(error(base('      precision: { max: .inf }\n'))).toMatch(/expected a finite number/);
  });

  it('reads SCU patterns as RE2 syntax, and refuses what RE2 lacks or a program too large, at line:column', () => {
    const rule = (contradiction: string) =>
      base(
        '      precision: ">= 0.8"\n',
        `    scu:\n      rules:\n        - lock: "x"\n          contradiction: '${contradiction}'\n`,
      );
    const where = 'gates.yaml:10:26: suite "qa": scu.rules.0.contradiction: ';
    const noRe2 = '; expected RE2 syntax (no lookahead, lookbehind or backreferences)';
    expect(error(rule('(?<!not )allowed'))).toBe(
      `${where}regular expression "(?<!not )allowed": invalid named capture: \`(?<!not )allowed\`${noRe2}`,
    );
    expect(error(rule('(?=may)m'))).toBe(
      `${where}regular expression "(?=may)m": invalid or unsupported Perl syntax: \`(?=\`${noRe2}`,
    );
    expect(error(rule('(may)\\1'))).toBe(
      `${where}regular expression "(may)\\\\1": invalid escape sequence: \`\\1\`${noRe2}`,
    );
    // Two runs of 1,000 any-characters: 2,000 instructions, and the two every program has (fail, match).
    expect(error(rule('.{1000}.{1000}'))).toBe(
      `${where}regular expression ".{1000}.{1000}" compiles to 2002 instructions; expected at most 1000 (a counted repetition such as {100} repeats its part)`,
    );
    expect(error(rule('x'.repeat(501)))).toBe(
      `${where}found a regular expression of 501 characters; expected one of at most 500`,
    );
    // Nested and repeated quantifiers run in linear time on RE2: nothing to refuse.
    for (const linear of ['(a+)+$', '(.|\\s)*x', 'a*a*a*b', '\\ballow(ed)?\\b|\\bcan\\b'])
      expect(() => parseConfig(rule(linear), path.join(process.cwd(), 'gates.yaml'))).not.toThrow();
    // The seed's own rules pass the same test.
    for (const r of DEFAULT_SCU_RULES)
      expect([patternProblem(r.lock), patternProblem(r.contradiction)]).toEqual([undefined, undefined]);
  });

  it('requires at least one suite and a mapping', () => {
    expect(error('version: 1\nsuites: {}\n')).toBe(
      'gates.yaml:2:1: expected at least one suite under suites:',
    );
    expect(error('- a\n- b\n')).toBe('gates.yaml:1:1: expected a mapping with version: 1 and suites:');
  });
});
