type Column = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/** A column that has filled up, copied into one of the same type with room for `length` elements. */
export function grown<T extends Column>(a: T, length: number): T {
  const bigger = new (a.constructor as new (n: number) => T)(length);
  bigger.set(a);
  return bigger;
}
