// JSON Pointers (RFC 6901): `/a/b~1c/0` names member "b/c" of member "a", or element 0 of an array.

/** The reference tokens of a pointer, or a message saying why it is not one. */
export function parsePointer(p: string): string[] | { problem: string } {
  if (p === '') return [];
  if (!p.startsWith('/')) return { problem: 'expected a JSON Pointer starting with "/" (RFC 6901)' };
  const tokens = p.slice(1).split('/');
  for (const t of tokens)
    if (/~(?![01])/.test(t))
      return { problem: 'has "~" not followed by 0 or 1; expected "~0" for "~" and "~1" for "/" (RFC 6901)' };
  return tokens.map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function formatPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The value a pointer names in `doc`, or undefined when there is none. An array's index must be digits. */
export function pointerGet(doc: unknown, tokens: readonly string[]): unknown {
  let v = doc;
  for (const t of tokens) {
    if (Array.isArray(v)) {
      if (!/^(?:0|[1-9]\d*)$/.test(t)) return undefined;
      v = v[Number(t)];
    } else if (typeof v === 'object' && v !== null && Object.hasOwn(v, t)) {
      v = (v as Record<string, unknown>)[t];
    } else {
      return undefined;
    }
  }
  return v;
}
