import { describe, expect, it } from 'vitest';
import { escapeList, escapeMarkdown, escapeTerminal, escapeXml } from '../src/report/escape.js';

const ZWJ = '\u200d';

describe('escapeMarkdown (text from gold and traces)', () => {
  it('neutralises mentions, team pings and cross-references', () => {
    expect(escapeMarkdown('ping @octocat and @org/team')).toBe(`ping @${ZWJ}octocat and @${ZWJ}org/team`);
    expect(escapeMarkdown('fixes #12, GH-7, owner/repo#3')).toBe(
      `fixes #${ZWJ}12, GH-${ZWJ}7, owner/repo#${ZWJ}3`,
    );
    expect(escapeMarkdown('mail a@b.com')).toBe(`mail a@${ZWJ}b.com`);
  });

  it('turns HTML and Markdown syntax into inert character references', () => {
    expect(escapeMarkdown('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeMarkdown('</details><script>')).toBe('&lt;/details&gt;&lt;script&gt;');
    expect(escapeMarkdown('a | b')).toBe('a &#124; b');
    expect(escapeMarkdown('`code` *b* _i_ [l](u) ~s~ ![i](x) \\')).toBe(
      '&#96;code&#96; &#42;b&#42; &#95;i&#95; &#91;l&#93;(u) &#126;s&#126; &#33;&#91;i&#93;(x) &#92;',
    );
    expect(escapeMarkdown(':+1: $x$ "q" \'s\' &amp;')).toBe(
      '&#58;+1&#58; &#36;x&#36; &quot;q&quot; &#39;s&#39; &amp;amp;',
    );
  });

  it('keeps a table row on one line and drops control characters', () => {
    expect(escapeMarkdown('one\ntwo\r\nthree\rfour')).toBe('one ↵ two ↵ three ↵ four');
    expect(escapeMarkdown('bell\u0007 esc\u001b[31m rtl\u202e')).toBe('bell� esc�&#91;31m rtl�');
  });

  it('truncates long text and says how much was cut', () => {
    const s = escapeMarkdown('x'.repeat(200_000), { maxLength: 300, wrap: false });
    expect(s).toBe(`${'x'.repeat(300)} … (199700 more characters)`);
    expect(escapeList(['a', 'b', 'c'], 2)).toBe('a, b, … (1 more)');
    expect(escapeList([])).toBe('∅');
  });
});

describe('escapeMarkdown: layout and direction', () => {
  it('breaks runs of more than 40 characters with a zero-width space, before the entities', () => {
    const token = `${'a'.repeat(39)}|${'b'.repeat(45)}`;
    expect(escapeMarkdown(token)).toBe(
      `${'a'.repeat(39)}&#124;\u200b${'b'.repeat(40)}\u200b${'b'.repeat(5)}`,
    );
    expect(escapeMarkdown('short words stay whole')).toBe('short words stay whole');
    // Ids are copied and searched for: lists and ids are not broken.
    expect(escapeList(['i'.repeat(60)])).toBe('i'.repeat(60));
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
