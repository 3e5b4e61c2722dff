import { encodeVarints, unzigzag, VarintReader, zigzag } from '../../partial/varint.js';

/** Where a gold item is: its gold file (an index into the suite's), line, and bytes. */
export interface Place {
  file: number;
  line: number;
  offset: number;
  length: number;
}

/**
 * A place as predicted from the item before it (none for the first): its file, and in the same file the
 * next line, starting right after it, as long. The partial stores how far each place is from its prediction.
 */
function predict(prev: Place | undefined, file: number, out: Place): void {
  const same = prev !== undefined && prev.file === file;
  out.file = predictFile(prev);
  out.line = same ? prev.line + 1 : 1;
  out.offset = same ? prev.offset + prev.length + 1 : 0;
  out.length = prev?.length ?? 0;
}

const predictFile = (prev: Place | undefined): number => prev?.file ?? 0;

/** Items' places as varints of how far each is from its prediction (zigzagged): mostly a byte a number. */
export function encodePlaces(places: readonly Place[]): Uint8Array {
  const residuals = new Float64Array(4 * places.length);
  const guess: Place = { file: 0, line: 0, offset: 0, length: 0 };
  places.forEach((p, i) => {
    predict(places[i - 1], p.file, guess);
    residuals.set(
      [p.file - guess.file, p.line - guess.line, p.offset - guess.offset, p.length - guess.length].map(
        zigzag,
      ),
      4 * i,
    );
  });
  return encodeVarints(residuals);
}

/** How many items a checkpoint stands for: at(i) reads at most this many to reach item i. */
const EVERY = 64;

/**
 * encodePlaces' bytes, read item by item in order once (`each` checks them as they come) and then again
 * from a checkpoint for the few items a report asks for: 200k places held as numbers took 6.4 MB of fresh
 * memory, which cost a merge 30 ms.
 */
export class Places {
  private constructor(
    private readonly bytes: Uint8Array,
    private readonly n: number,
    /** Per EVERY items: where the reader was, and the place of the item before. */
    private readonly checkpoints: Float64Array,
  ) {}

  /** The places of `n` items, each handed to `each`; undefined when the bytes do not hold exactly `n`. */
  static read(
    bytes: Uint8Array,
    n: number,
    each: (i: number, place: Readonly<Place>) => void,
  ): Places | undefined {
    const reader = new PlaceReader(new VarintReader(bytes));
    const checkpoints = new Float64Array(5 * Math.ceil(n / EVERY));
    for (let i = 0; i < n; i++) {
      if (i % EVERY === 0) reader.save(checkpoints, 5 * (i / EVERY));
      if (!reader.next()) return undefined;
      each(i, reader.place);
    }
    return reader.varints.done ? new Places(bytes, n, checkpoints) : undefined;
  }

  /** Item `i`'s place (one that read() handed out). */
  at(i: number): Place {
    if (!(i >= 0 && i < this.n)) throw new RangeError(`gold places: no item ${i} of ${this.n}`);
    const c = Math.floor(i / EVERY);
    const reader = PlaceReader.resume(this.bytes, this.checkpoints, 5 * c);
    for (let k = c * EVERY; k <= i; k++) reader.next();
    return { ...reader.place };
  }
}

/** Reads places one at a time; `place` is the last one read (for the first, there is none before it). */
class PlaceReader {
  readonly place: Place = { file: 0, line: 0, offset: 0, length: 0 };
  private readonly guess: Place = { file: 0, line: 0, offset: 0, length: 0 };

  constructor(
    readonly varints: VarintReader,
    private first = true,
  ) {}

  static resume(bytes: Uint8Array, saved: Float64Array, at: number): PlaceReader {
    const reader = new PlaceReader(new VarintReader(bytes, saved[at]!), saved[at]! === 0);
    Object.assign(reader.place, {
      file: saved[at + 1]!,
      line: saved[at + 2]!,
      offset: saved[at + 3]!,
      length: saved[at + 4]!,
    });
    return reader;
  }

  save(into: Float64Array, at: number): void {
    into.set([this.varints.pos, this.place.file, this.place.line, this.place.offset, this.place.length], at);
  }

  /** Reads the next place; false when the bytes end first or hold a number past 2^53. */
  next(): boolean {
    const v = this.varints;
    const file = v.next();
    const line = v.next();
    const offset = v.next();
    const length = v.next();
    if (file < 0 || line < 0 || offset < 0 || length < 0) return false;
    const prev = this.first ? undefined : this.place;
    const f = predictFile(prev) + unzigzag(file);
    predict(prev, f, this.guess);
    this.place.file = f;
    this.place.line = this.guess.line + unzigzag(line);
    this.place.offset = this.guess.offset + unzigzag(offset);
    this.place.length = this.guess.length + unzigzag(length);
    this.first = false;
    return true;
  }
}
