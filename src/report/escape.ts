/**
 * Text from gold and traces may come from a fork's pull request. Before it goes into Markdown it is made
 * inert: no HTML, no Markdown syntax, no table breaks, no @mentions or #references that notify anyone.
 */
const MARKDOWN_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '|': '&#124;',
  '`': '&#96;',
  '*': '&#42;',
  _: '&#95;',
  '[': '&#91;',
  ']': '&#93;',
  '\\': '&#92;',
  '~': '&#126;',
  '!': '&#33;',
  ':': '&#58;',
  $: '&#36;',
};

const ZWJ = '\u200d';
const ZWSP = '\u200b';

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks) reorder what a reader sees ("Trojan
 * Source"): from untrusted text they are shown as U+FFFD, never applied.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A run of this many characters without a space gets a break opportunity, so it cannot widen a table. */
export const LONGEST_UNBROKEN = 40;
const UNBROKEN = new RegExp(`\\S{${LONGEST_UNBROKEN}}(?=\\S)`, 'gu');

export interface EscapeOptions {
  /** Longest text kept, in characters; the rest becomes "… (N more characters)". */
  maxLength?: number;
  /**
   * Break runs longer than LONGEST_UNBROKEN with a zero-width space (default true). Off for ids, which
   * readers copy and search for.
   */
  wrap?: boolean;
}

export function escapeMarkdown(text: string, options: EscapeOptions = {}): string {
  const max = options.maxLength ?? 300;
  let s = text;
  let tail = '';
  if ([...s].length > max) {
    const kept = [...s].slice(0, max).join('');
    tail = ` … (${[...s].length - max} more characters)`;
    s = kept;
  }
  s = s
    // Control characters (and line breaks, which would end a table row) become visible, not active.
    .replace(/\r\n|\r|\n/g, ' ↵ ')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '�')
    .replace(BIDI, '�');
  // Before the entities, whose own characters must stay together.
  if (options.wrap ?? true) s = s.replace(UNBROKEN, `$&${ZWSP}`);
  s = s
    // A joiner after @ and # stops mentions, team pings and issue/PR cross-references. It goes in before
    // the entities, whose own "#" must stay intact.
    .replace(/@(?=[\p{L}\p{N}_-])/gu, `@${ZWJ}`)
    .replace(/#(?=[\p{L}\p{N}])/gu, `#${ZWJ}`)
    .replace(/\b(GH)-(?=\d)/gi, `$1-${ZWJ}`)
    .replace(/[&<>"'|`*_[\]\\~!:$]/g, (c) => MARKDOWN_ENTITIES[c]!);
  return s + tail;
}

/** Lists of ids: each escaped, at most `maxItems` shown. */
export function escapeList(items: readonly string[], maxItems = 10, maxLength = 80): string {
  const shown = items.slice(0, maxItems).map((i) => escapeMarkdown(i, { maxLength, wrap: false }));
  const more = items.length > maxItems ? `, … (${items.length - maxItems} more)` : '';
  return shown.length ? shown.join(', ') + more : '∅';
}

/** For the terminal: untrusted text must not carry escape sequences or rewrite the screen. */
export function escapeTerminal(text: string, maxLength = 200): string {
  const chars = [...text];
  const cut =
    chars.length > maxLength
      ? `${chars.slice(0, maxLength).join('')}… (+${chars.length - maxLength} chars)`
      : text;
  return cut
    .replace(/\r\n|\r|\n/g, ' ↵ ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '�')
    .replace(BIDI, '�');
}

export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '�')
    .replace(BIDI, '�')
    .replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
    );
}
