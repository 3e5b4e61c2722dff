type Column = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/**
 * A column copied into a new one of the same type with `length` elements: grown when it has filled up (the
 * new elements are zero), or cut to what it holds.
 */
export function resized<T extends Column>(a: T, length: number): T {
  const out = new (a.constructor as new (n: number) => T)(length);
  out.set(length < a.length ? a.subarray(0, length) : a);
  return out;
}
