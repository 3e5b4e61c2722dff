/**
 * Hands out the chunks of an input, in order, to threads that each take the next one when done with the
 * last, so a thread that started late or reads slowly simply takes fewer. Lives in shared memory: every
 * thread builds one over the same SharedArrayBuffer.
 *
 * A thread that meets an input error in chunk i calls fail(i): no chunk after the first failed one is
 * handed out, and every chunk before it has already been handed out (chunks go in order), so the first
 * error in the input is always found, whichever thread read it.
 */
export class ChunkQueue<T> {
  private readonly state: Int32Array;

  constructor(
    readonly chunks: readonly T[],
    readonly shared: SharedArrayBuffer = ChunkQueue.memory(chunks.length),
  ) {
    this.state = new Int32Array(shared);
  }

  /** [next chunk to hand out, first failed chunk (chunks.length while none)]. */
  static memory(chunks: number): SharedArrayBuffer {
    const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    new Int32Array(shared)[1] = chunks;
    return shared;
  }

  /** The next chunk and its index, or undefined when none is left. */
  claim(): { index: number; chunk: T } | undefined {
    const index = Atomics.add(this.state, 0, 1);
    if (index >= this.chunks.length || index > Atomics.load(this.state, 1)) return undefined;
    return { index, chunk: this.chunks[index]! };
  }

  fail(index: number): void {
    for (let seen = Atomics.load(this.state, 1); index < seen; seen = Atomics.load(this.state, 1)) {
      if (Atomics.compareExchange(this.state, 1, seen, index) === seen) return;
    }
  }
}
