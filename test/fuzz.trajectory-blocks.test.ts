import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bashBlock, extractMiniSwe, tagBlocks } from '../src/suites/context/extract/miniswe.js';

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

  it('an unclosed block over a long blank run is read at once', () => {
    const messages = [
      { role: 'assistant', content: `\`\`\`bash${'\n'.repeat(1_000_000)}` },
      { role: 'user', content: `<PATCH_CONTEXT>${' '.repeat(200_000)}` },
      { role: 'user', content: `<explore_context>${' '.repeat(200_000)}` },
    ];
    expect(extractMiniSwe({ messages }).traj).toEqual({ pred_steps: [], pred_files: [], pred_spans: {} });
  });
});
