/**
 * Text from gold and traces may come from a fork's pull request. Before it goes into Markdown it is made
 * inert: no HTML, no Markdown syntax, no table breaks, no @mentions or #references that notify anyone. It
 * stays the text a reader copies and searches for: a character that would change the rendering gets a
 * backslash, and a word GitHub would link (a mention, a reference, an address) or read as math is shown as
 * code, which GitHub never links; no entities, no invisible joiners.
 */

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks) reorder what a reader sees ("Trojan
 * Source"): from untrusted text they are shown as U+FFFD, never applied.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * What GitHub links or notifies in text (and not in code): @mentions and e-mail addresses, #12 and
 * owner/repo#12, GH-12, addresses with a scheme or www.; and $, which opens math.
 */
const LINKED = /@[\p{L}\p{N}_-]|#[\p{L}\p{N}]|\bGH-\d|:\/\/|(?<![\p{L}\p{N}])www\.|\$/iu;

/** Punctuation around a linked word stays outside its code span: "(see #12)." shows `#12` alone. */
const AROUND = /^([(["']*)(.*?)([.,;:!?)\]"']*)$/su;

export interface EscapeOptions {
  /** Longest text kept, in characters; the rest becomes "… (N more characters)". */
  maxLength?: number;
}

/** Prose from gold and traces (a question, a claim, a warning), for a paragraph or a table cell. */
export function escapeMarkdown(text: string, options: EscapeOptions = {}): string {
  const { kept, tail } = truncate(text, options.maxLength ?? 300);
  // A long run is not broken with an invisible space: a URL or an id in it must copy as written. GitHub
  // scrolls a table that a long run widens.
  const s = inert(kept);
  // Words end at a backtick or a pipe, which are escaped on their own: a code span never holds one.
  const escaped = s.replace(/[^\s`|]+|[`|]/gu, (word, at: number) =>
    word === '`' || word === '|' ? `\\${word}` : escapeWord(word, s[at + word.length]),
  );
  return escaped + tail;
}

/** A word, and the character after it: a backslash before punctuation (or the end) escapes it. */
function escapeWord(word: string, next = ''): string {
  if (!LINKED.test(word)) return escapeText(word, next);
  const [, before, core, after] = AROUND.exec(word)!;
  if (!LINKED.test(core!)) return escapeText(word, next);
  return `${escapeText(before!, '`')}\`${core}\`${escapeText(after!, next)}`;
}

/**
 * CommonMark's syntax in a word: emphasis, strike-through, links and images, HTML, entities, escapes. An
 * underscore between letters or digits is no emphasis in GFM and is left alone, and so is a `<` that can
 * start no tag.
 */
function escapeText(word: string, next: string): string {
  const escaped = word.replace(
    /[*[\]~]|<(?=[A-Za-z/!?])|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])|&(?=#?[A-Za-z0-9]+;)|\\(?=[!-/:-@[-`{-~])/gu,
    '\\$&',
  );
  return /\\$/.test(word) && !/\s/.test(next) ? `${escaped}\\` : escaped;
}

/**
 * An id (a qid, a document id, a file) as a code span, which GitHub neither links nor formats, so it is
 * copied and searched for as it is. In a table cell its pipes are escaped, as GFM wants even in code.
 */
export function markdownCode(text: string, options: { maxLength?: number; table?: boolean } = {}): string {
  // An empty span is no span: its two backticks would show.
  if (text === '') return '` `';
  const { kept, tail } = truncate(text, options.maxLength ?? 80);
  const s = inert(kept);
  const fence = '`'.repeat(Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  // A code span drops one space on each side when it has both, and a backtick beside the fence would
  // lengthen it: pad with a space, which the span drops.
  const pad = /^`|`$/.test(s) || /^ .*[^ ].* $/s.test(s) ? ' ' : '';
  const code = options.table ? s.replace(/\|/g, '\\|') : s;
  return `${fence}${pad}${code}${pad}${fence}${tail}`;
}

/** Lists of ids: each a code span, at most `maxItems` shown. */
export function escapeList(
  items: readonly string[],
  options: { maxItems?: number; maxLength?: number; table?: boolean } = {},
): string {
  const { maxItems = 10, maxLength = 80, table } = options;
  const shown = items.slice(0, maxItems).map((i) => markdownCode(i, { maxLength, table }));
  const more = items.length > maxItems ? `, … (${items.length - maxItems} more)` : '';
  return shown.length ? shown.join(', ') + more : '∅';
}

/** At most `max` characters of `text`, and how many were left out. */
function truncate(text: string, max: number): { kept: string; tail: string } {
  const chars = [...text];
  if (chars.length <= max) return { kept: text, tail: '' };
  return { kept: chars.slice(0, max).join(''), tail: ` … (${chars.length - max} more characters)` };
}

/** Control characters (and line breaks, which would end a table row) become visible, not active. */
function inert(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ↵ ')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '�')
    .replace(BIDI, '�');
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
