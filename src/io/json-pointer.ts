// JSON Pointers (RFC 6901): `/a/b~1c/0` names member "b/c" of member "a", or element 0 of an array.
//
// Why not an npm package (jsonpointer, json-pointer; neither is a dependency): a field map's error must say
// which rule of the pointer is broken, in this project's words ("~" not followed by 0 or 1; the leading
// "/"), where the packages throw their own message; a lookup here reads own members only (a record's
// "constructor" is not Object.prototype's) and takes an array index in RFC 6901's digits only; and the
// field map's `*` token (src/init/field-proposal.ts) splits the tokens between two lookups, which needs
// the tokens themselves, not a get(doc, pointer). That is these 30 lines.

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
