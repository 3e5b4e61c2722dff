/**
 * The shortest run of the key's characters that is masked: OpenAI's 401 echoes a key as `sk-SECRE...6789`,
 * its last 4 characters alone; a shorter run is too common a string to identify a key (and masking every 3
 * characters would garble ordinary words).
 */
export const KEY_PIECE = 4;

/** Longest piece of endpoint text in a detail. */
export const SAID_MAX = 240;

/** Characters of endpoint text looked at: a body of megabytes is cut to its start before any scan. */
const LOOKED_AT = 8 * SAID_MAX;

/**
 * Text the judge's endpoint sent (a body, an error message, a header, a fetch error's cause), fit for a
 * detail that reaches the terminal and every report: one line of at most `max` characters, no control
 * characters, URLs named by origin and path only (credentials, query and fragment dropped: a redirect's
 * `?api_key=…`), and every run of at least KEY_PIECE consecutive characters of `key`, whatever their case,
 * replaced by `***` — the whole key, both halves of `sk-SECRE...6789`, any piece of it but the provider's
 * public prefix alone (`sk-proj-`, masked only as part of the whole key). Masking comes before the cut, and
 * any run of the key long enough to matter is masked wherever the text is cut.
 */
export function redacted(text: string, key: string, max = SAID_MAX): string {
  const line = oneLine(text.slice(0, LOOKED_AT)).replace(URL_PATTERN, originAndPath);
  const masked = maskKey(key ? line.split(key).join('***') : line, key);
  return masked.length > max ? `${masked.slice(0, max - 1)}…` : masked;
}

/** A Location header as a detail names it: the absolute URL's origin and path, else only that it is unreadable. */
export function redactedLocation(location: string | null, base: string, key: string): string {
  if (location === null) return 'nowhere';
  let url: URL;
  try {
    url = new URL(location.slice(0, LOOKED_AT), base);
  } catch {
    return 'a Location that is not a URL';
  }
  return redacted(`${url.origin}${url.pathname}`, key, SAID_MAX / 2);
}

/** Line breaks, tabs and every other control character (ANSI escapes included) become one space. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, ' ').trim();
}

const URL_PATTERN = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#]*)([^\s?#]*)(?:\?[^\s#]*)?(?:#\S*)?/gi;

function originAndPath(_: string, scheme: string, authority: string, pathname: string): string {
  return `${scheme}${authority.slice(authority.lastIndexOf('@') + 1)}${pathname}`;
}

/**
 * Marks every window of KEY_PIECE characters that is also a window of the key (ASCII case folded, so
 * lengths stay), then writes each marked stretch as `***`. Unmarked text keeps its order and no marked
 * character survives, so no run of KEY_PIECE characters of the key is left (for a key without `*`), but
 * those inside its public prefix.
 */
function maskKey(text: string, key: string): string {
  const width = Math.min(KEY_PIECE, key.length);
  if (width === 0) return text;
  const pieces = new Set<string>();
  const folded = foldAscii(key);
  for (let i = Math.max(0, publicPrefix(key) - width + 1); i + width <= folded.length; i++)
    pieces.add(folded.slice(i, i + width));
  const seen = foldAscii(text);
  const marked = new Uint8Array(text.length);
  for (let i = 0; i + width <= seen.length; i++)
    if (pieces.has(seen.slice(i, i + width))) marked.fill(1, i, i + width);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!marked[i]) out += text[i];
    else if (i === 0 || !marked[i - 1]) out += '***';
  }
  return out;
}

/**
 * The length of the lowercase kind a key starts with (`sk-`, `sk-proj-`, `sk-ant-api03-`): the same in every
 * key of its provider, so its pieces identify nothing and masking them would garble words ("project"). Only
 * when at least 16 characters follow it; otherwise the whole key is secret.
 */
function publicPrefix(key: string): number {
  const prefix = /^(?:[a-z][a-z0-9]*-){1,3}/.exec(key)?.[0].length ?? 0;
  return key.length - prefix >= 16 ? prefix : 0;
}

const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
