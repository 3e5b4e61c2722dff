import { describe, expect, it } from 'vitest';
import { escapeList, escapeMarkdown, escapeTerminal, escapeXml, markdownCode } from '../src/report/escape.js';

// What each escaped string renders to was checked with cmark-gfm 0.29 (GitHub's parser, tables, autolinks
// and strike-through on): the source below renders as the text it came from, with no tag, link or emphasis.

describe('escapeMarkdown (text from gold and traces)', () => {
  it('shows mentions, team pings, references and addresses as code, which GitHub never links', () => {
    expect(escapeMarkdown('ping @octocat and @org/team')).toBe('ping `@octocat` and `@org/team`');
    expect(escapeMarkdown('fixes #12, GH-7, owner/repo#3')).toBe('fixes `#12`, `GH-7`, `owner/repo#3`');
    expect(escapeMarkdown('mail a@b.com')).toBe('mail `a@b.com`');
    expect(escapeMarkdown('see https://evil.example/x and www.evil.example, (#2).')).toBe(
      'see `https://evil.example/x` and `www.evil.example`, (`#2`).',
    );
    // $ opens math on GitHub; a backslash does not stop it there, code does.
    expect(escapeMarkdown('costs $5 or $x$')).toBe('costs `$5` or `$x$`');
  });

  it('backslash-escapes the syntax that would change the rendering, and only that', () => {
    expect(escapeMarkdown('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert(1)>');
    expect(escapeMarkdown('</details><script>')).toBe('\\</details>\\<script>');
    expect(escapeMarkdown('a | b')).toBe('a \\| b');
    expect(escapeMarkdown('`code` *b* _i_ [l](u) ~s~ ![i](x) \\')).toBe(
      '\\`code\\` \\*b\\* \\_i\\_ \\[l\\](u) \\~s\\~ !\\[i\\](x) \\\\',
    );
    // Plain text stays plain: intraword underscores (no emphasis in GFM), a < that starts no tag, an & that
    // starts no entity, quotes, colons, a backslash before a letter.
    expect(escapeMarkdown('over_refused.not_retrieved <= 2, AT&T "q" \'s\' 10:30 C:\\dir')).toBe(
      'over_refused.not_retrieved <= 2, AT&T "q" \'s\' 10:30 C:\\dir',
    );
    expect(escapeMarkdown('&amp; __init__ a\\|b end\\')).toBe('\\&amp; \\_\\_init\\_\\_ a\\\\\\|b end\\\\');
    // Never an entity nor an invisible joiner.
    expect(escapeMarkdown('@x #1 & < _ | ` * [')).not.toMatch(/&#|\u200d/);
  });

  it('keeps a table row on one line and drops control characters', () => {
    expect(escapeMarkdown('one\ntwo\r\nthree\rfour')).toBe('one ↵ two ↵ three ↵ four');
    expect(escapeMarkdown('bell\u0007 esc\u001b[31m rtl\u202e')).toBe('bell� esc�\\[31m rtl�');
  });

  it('truncates long text and says how much was cut', () => {
    const s = escapeMarkdown('x'.repeat(200_000), { maxLength: 300 });
    expect(s).toBe(`${'x'.repeat(300)} … (199700 more characters)`);
    expect(escapeList(['a', 'b', 'c'], { maxItems: 2 })).toBe('`a`, `b`, … (1 more)');
    expect(escapeList([])).toBe('∅');
  });
});

describe('markdownCode (ids: copied and searched for as they are)', () => {
  it('writes hostile ids as code spans whose fence is longer than any backtick run in them', () => {
    const cases: [string, string, string][] = [
      // id, in a paragraph, in a table cell
      ['#2', '`#2`', '`#2`'],
      ['@x', '`@x`', '`@x`'],
      ['<script>', '`<script>`', '`<script>`'],
      ['[a](b)', '`[a](b)`', '`[a](b)`'],
      ['a|b', '`a|b`', '`a\\|b`'],
      ['a\\|b', '`a\\|b`', '`a\\\\|b`'],
      ['a`b', '``a`b``', '``a`b``'],
      ['`', '`` ` ``', '`` ` ``'],
      ['a``b`', '``` a``b` ```', '``` a``b` ```'],
      [' x ', '`  x  `', '`  x  `'],
      ['', '` `', '` `'],
      ['x\ny', '`x ↵ y`', '`x ↵ y`'],
    ];
    for (const [id, paragraph, cell] of cases) {
      expect(markdownCode(id)).toBe(paragraph);
      expect(markdownCode(id, { table: true })).toBe(cell);
    }
    expect(markdownCode('limits#1')).not.toMatch(/&#|\u200d/);
    expect(markdownCode('q'.repeat(90))).toBe(`\`${'q'.repeat(80)}\` … (10 more characters)`);
  });
});

describe('escapeMarkdown: layout and direction', () => {
  it('keeps long runs whole, with no invisible space: a URL in a claim copies as written', () => {
    const token = `${'a'.repeat(39)}|${'b'.repeat(45)}`;
    expect(escapeMarkdown(token)).toBe(`${'a'.repeat(39)}\\|${'b'.repeat(45)}`);
    const url = 'https://docs.example.com/product/reference/configuration/advanced-settings';
    expect(escapeMarkdown(`See ${url} for it.`)).toBe(`See \`${url}\` for it.`);
    expect(escapeMarkdown('short words stay whole')).toBe('short words stay whole');
    // Ids are copied and searched for: lists and ids are not broken.
    expect(escapeList(['i'.repeat(60)])).toBe(`\`${'i'.repeat(60)}\``);
  });

  it('shows every bidirectional control as U+FFFD, in Markdown, the terminal and XML/HTML', () => {
    const trojan = 'ok\u202eevil\u2066x\u2069\u200fy\u200ez\u061c';
    expect(escapeMarkdown(trojan)).toBe('ok�evil�x��y�z�');
    expect(escapeTerminal(trojan)).toBe('ok�evil�x��y�z�');
    expect(escapeXml(trojan)).toBe('ok�evil�x��y�z�');
  });
});

describe('escapeTerminal', () => {
  it('removes escape sequences and line breaks', () => {
    expect(escapeTerminal('\u001b]0;pwned\u0007red\u001b[31m\nnext')).toBe('�]0;pwned�red�[31m ↵ next');
    expect(escapeTerminal('y'.repeat(250), 200)).toBe(`${'y'.repeat(200)}… (+50 chars)`);
  });
});
