import { resized } from './resized.js';
import { int32Column } from './typed-column.js';

/**
 * Strings appended one by one as their UTF-16 code units in one buffer (UTF-16, not UTF-8: a lone surrogate
 * comes back as it went in), with where each starts: a thread's 250k trace ids cross to another as two
 * buffers, where as strings each was kept, promoted, copied into the message and made again on the other side.
 */
export interface StringList {
  bytes: Uint8Array<ArrayBuffer>;
  /** String i is bytes [at[i], at[i + 1]). */
  at: Int32Array<ArrayBuffer>;
}

export class StringColumn {
  private bytes = new Uint8Array(64 * 1024);
  /** The bytes as a Buffer, to write strings into. */
  private buf = Buffer.from(this.bytes.buffer);
  private used = 0;
  private readonly at = int32Column();

  constructor() {
    this.at.push(0);
  }

  push(s: string): void {
    if (this.used + 2 * s.length > this.bytes.length) {
      this.bytes = resized(this.bytes, Math.max(2 * this.bytes.length, this.used + 2 * s.length));
      this.buf = Buffer.from(this.bytes.buffer);
    }
    this.used += this.buf.write(s, this.used, 'utf16le');
    this.at.push(this.used);
  }

  /** The list (the column is not to be used after); its buffers may be moved to another thread. */
  done(): StringList {
    return { bytes: this.bytes.subarray(0, this.used), at: this.at.done() };
  }
}

/** String i of the list. */
export function stringAt(list: StringList, i: number): string {
  const { bytes, at } = list;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    'utf16le',
    at[i]!,
    at[i + 1]!,
  );
}
