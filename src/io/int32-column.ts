/**
 * 32-bit integers appended one by one into a typed array that doubles as it fills: a column of millions
 * costs four bytes an entry, where a JS array of them costs eight and a copy to a typed array at its end.
 */
export class Int32Column {
  private data = new Int32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const wider = new Int32Array(2 * this.data.length);
      wider.set(this.data);
      this.data = wider;
    }
    this.data[this.length++] = v;
  }

  /** The column as a typed array of its own (the column is not to be used after). */
  done(): Int32Array {
    return this.data.length === this.length ? this.data : this.data.slice(0, this.length);
  }
}
