/**
 * Canonical JSON: object keys sorted by code unit at every depth, no insignificant whitespace. Two gold
 * lines that mean the same (reordered keys, other spacing) get the same bytes and so the same digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    // Arrays of plain values (ids, substrings) are already canonical: let the native stringifier do them.
    if (value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value);
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  // Default sort compares UTF-16 code units: the same order on every machine.
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out += `${i ? ',' : ''}${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}
