import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiled } from '../src/config/pattern.js';
import { GREP_FILE } from '../src/suites/context/extract/openhands.js';
import { FILE } from '../src/suites/context/extract/prometheus.js';
import { BLOB_FIELD } from '../src/suites/context/gold.js';
import {
  bashBlock,
  commandParts,
  extractMiniSwe,
  tagBlocks,
  view,
  viewsOfCommand,
} from '../src/suites/context/extract/miniswe.js';

/**
 * A trajectory comes from a pull request: mini-SWE-agent's blocks are found by scans, not by the patterns
 * they replace, which backtracked for minutes. On short texts the patterns are the reference, character for
 * character; on long ones the scans return (the test's own timeout is the bound).
 */
const TAG = /<t>\s*([\s\S]*?)\s*<\/t>/g;
const BASH = /```bash\s*\r?\n([\s\S]*?)\r?\n```/;

const pieces = fc.constantFrom(
  '```bash',
  '```',
  '<t>',
  '</t>',
  '\n',
  '\r\n',
  '\r',
  ' ',
  '\t',
  'x',
  'ls a',
  '`',
);
const text = fc.array(pieces, { maxLength: 24 }).map((p) => p.join(''));
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261207) % 2 ** 31;

/** The views of a command as read before, with JavaScript's patterns: the reference on short commands. */
const JS_VIEWS = [
  /nl\s+[^|]+\s+([^\s|]+)\s*\|\s*sed\s+-n\s+['"]?(\d+),(\d+)p/,
  /sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s&|>;<]+)/,
  /\bhead\s+-n\s+(\d+)\s+([^\s&|>]+)/,
  /\bcat\s+([^\s&|>]+)/,
  /\bgrep\s+.*?\s+([^\s&|>]+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))\b/,
];
const VIEW_NAMES = ['nl', 'sed', 'head', 'cat', 'grep'] as const;
const commandPiece = fc.constantFrom(
  "nl -ba a.py | sed -n '3,9p'",
  'nl\u00a0x.go\u00a0|\u2028sed -n 1,2p',
  'nl -ba ',
  'sed -n ',
  "'3,9p' ",
  '| ',
  'head -n 5 ',
  'cat ',
  'grep -rn foo ',
  'a.py',
  'b.ts ',
  '/testbed/x.go',
  ' ',
  '\u00a0',
  '\u2028',
  '\r',
  '\n',
  '&& ',
  '||',
  ';',
  '>',
  '<',
  '&',
  '"',
  'x',
  '12',
  ',',
  'p',
);
const command = fc.array(commandPiece, { maxLength: 16 }).map((p) => p.join(''));

describe('mini-SWE-agent blocks, read by scans', () => {
  it('tagBlocks finds what <tag>\\s*([\\s\\S]*?)\\s*</tag> does', () => {
    expect(tagBlocks('<t> a <t> b </t> c </t><t>\n</t>', 't')).toEqual(['a <t> b', '']);
    fc.assert(
      fc.property(text, (s) => {
        expect(tagBlocks(s, 't')).toEqual([...s.matchAll(TAG)].map((m) => m[1]));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('bashBlock finds what ```bash\\s*\\r?\\n([\\s\\S]*?)\\r?\\n``` does', () => {
    expect(bashBlock('```bash\n  ls a\r\n```')).toBe('  ls a');
    expect(bashBlock('```bash\n\n```')).toBe('');
    expect(bashBlock('```bash x\n```bash\nls\n```')).toBe('ls');
    expect(bashBlock('```bash\n```\nls\n```')).toBe('```\nls');
    expect(bashBlock('```bash\nls')).toBeUndefined();
    fc.assert(
      fc.property(text, (s) => {
        expect(bashBlock(s)).toBe(BASH.exec(s)?.[1]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('a command is split and read as the JavaScript patterns did, on RE2', () => {
    expect(viewsOfCommand("nl -ba /testbed/a.py | sed -n '3,9p' && grep -rn x b.ts")).toEqual([
      { file: 'a.py', lines: [3, 9] },
      { file: 'b.ts' },
    ]);
    fc.assert(
      fc.property(command, (c) => {
        const parts = commandParts(c).map((p) => p.trim());
        expect(parts).toEqual(c.split(/\s*(?:&&|\|\||;)\s*/).map((p) => p.trim()));
        for (const part of parts) {
          const mine = VIEW_NAMES.map((n) => (view(n).exec(part) as string[] | null)?.slice(1) ?? null);
          expect(mine).toEqual(JS_VIEWS.map((re) => re.exec(part)?.slice(1) ?? null));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("OpenHands' grep, Prometheus' File: line and a gold blob's field read as their JavaScript patterns did", () => {
    const pairs: [RegExp, { exec(s: string): unknown }][] = [
      [
        /\bgrep\s+.*\s+([^\s&|>;<'"]+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))(?:\s*(?:\||&|;|$))/,
        compiled(GREP_FILE),
      ],
      [/^\s*File:\s*(.+?)\s*$/, compiled(FILE)],
      [/^file:[ \t]*(.*?)[ \t]*\r?$/, BLOB_FIELD('file')],
    ];
    const piece = fc.constantFrom(
      'grep -rn x ',
      'File:',
      'file:',
      ' ',
      '\t',
      '\u00a0',
      '\u2028',
      '\r',
      '\n',
      'a.py',
      'b.c',
      '|',
      ';',
      'x',
      "'",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }).map((p) => p.join('')),
        (s) => {
          for (const [js, re2] of pairs) expect((re2.exec(s) as string[] | null)?.[1]).toBe(js.exec(s)?.[1]);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    const blank = ' '.repeat(200_000);
    for (const [, re2] of pairs) expect(re2.exec(`grep${blank}File:${blank}x${blank}y`)).toBeNull();
  });

  it('an unclosed block over a long blank run is read at once', () => {
    const messages = [
      { role: 'assistant', content: `\`\`\`bash${'\n'.repeat(1_000_000)}` },
      { role: 'user', content: `<PATCH_CONTEXT>${' '.repeat(200_000)}` },
      { role: 'user', content: `<explore_context>${' '.repeat(200_000)}` },
    ];
    expect(extractMiniSwe({ messages }).traj).toEqual({ pred_steps: [], pred_files: [], pred_spans: {} });
    for (const head of ['nl', 'grep', 'sed -n', 'head -n 1', 'cat'])
      expect(viewsOfCommand(`${head}${' '.repeat(200_000)}x`)).toEqual([]);
  });
});
