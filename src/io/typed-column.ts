type Typed = Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/**
 * Numbers appended one by one into a typed array that doubles as it fills: a column of millions costs four
 * or eight bytes an entry and crosses to another thread as one buffer, where a JS array of them costs eight
 * bytes and a copy to a typed array at its end (or an element at a time to clone).
 */
export class TypedColumn<A extends Typed> {
  private data: A;
  length = 0;

  constructor(private readonly make: (n: number) => A) {
    this.data = make(1024);
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const wider = this.make(2 * this.data.length);
      wider.set(this.data);
      this.data = wider;
    }
    this.data[this.length++] = v;
  }

  /**
   * The column as a view of its values (the column is not to be used after). Not a copy: the buffer's tail
   * was never written, so its pages were never faulted in, and a copy of the values would fault in as many
   * again (a tenth of an OpenInference run's page faults). The buffer may be moved to another thread whole.
   */
  done(): A {
    return this.data.length === this.length ? this.data : (this.data.subarray(0, this.length) as A);
  }
}

export const int32Column = (): TypedColumn<Int32Array<ArrayBuffer>> =>
  new TypedColumn((n) => new Int32Array(n));
export const uint32Column = (): TypedColumn<Uint32Array<ArrayBuffer>> =>
  new TypedColumn((n) => new Uint32Array(n));
export const float64Column = (): TypedColumn<Float64Array<ArrayBuffer>> =>
  new TypedColumn((n) => new Float64Array(n));
