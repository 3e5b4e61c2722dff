import { resized } from '../io/resized.js';
import type { LineRef } from '../io/jsonl.js';
import type { GoldItem } from './contract.js';

/** The length word's flag for a string stored as UTF-16 (lengths stay under 2 GB: V8's strings do). */
const UTF16 = 0x80000000;
const SLAB = 1 << 20;

/**
 * The gold set's lists and line references in columns: the strings of the three lists in buffers, each
 * led by its byte length, and the numbers in typed arrays. Each item keeps only its qid, the store and its
 * row. The 200k items of the benchmark held 41 MB of heap as objects with their lists packed in a string
 * each; here they hold 18 MB of heap and 18 MB of buffers, which the garbage collector does not let grow.
 */
export class GoldStore {
  /** Slabs of SLAB bytes (or one item's, if more), filled in turn: doubling one buffer left half of it unused. */
  private readonly slabs: Buffer[] = [];
  private bytes = Buffer.alloc(0);
  private used = 0;
  private rows = 0;
  /** Per row: the slab its lists are in, where they start, and how many strings each list has. */
  private slab = new Uint32Array(1024);
  private start = new Uint32Array(1024);
  private counts = new Uint32Array(3 * 1024);
  private answerable = new Uint8Array(1024);
  private fileIndex = new Uint32Array(1024);
  private line = new Uint32Array(1024);
  private offset = new Float64Array(1024);
  private length = new Uint32Array(1024);
  private readonly files: string[] = [];
  /** Per row, its question when kept (see GoldItem.question). */
  private readonly questions: (string | undefined)[] = [];

  add(
    qid: string,
    answerable: boolean,
    lists: readonly [readonly string[], readonly string[], readonly string[]],
    source: LineRef,
    question?: string,
  ): GoldItem {
    const row = this.rows++;
    if (question !== undefined) this.questions[row] = question;
    if (row === this.answerable.length) this.resize(2 * row);
    // A UTF-16 unit is at most 3 bytes of UTF-8: room for that, and for each string's length.
    let room = 0;
    for (const list of lists) for (const s of list) room += 4 + 3 * s.length;
    if (this.used + room > this.bytes.length) {
      this.bytes = Buffer.allocUnsafe(Math.max(room, SLAB));
      this.slabs.push(this.bytes);
      this.used = 0;
    }
    this.slab[row] = this.slabs.length - 1;
    this.start[row] = this.used;
    lists.forEach((list, k) => {
      this.counts[3 * row + k] = list.length;
      for (const s of list) this.put(s);
    });
    this.answerable[row] = answerable ? 1 : 0;
    let file = this.files.lastIndexOf(source.file);
    if (file < 0) file = this.files.push(source.file) - 1;
    this.fileIndex[row] = file;
    this.line[row] = source.line;
    this.offset[row] = source.offset;
    this.length[row] = source.length;
    return new StoredGoldItem(qid, this, row);
  }

  /** The lists of a sealed store. */
  lists(): GoldLists {
    const { slabs, slab, start, counts, answerable } = this;
    return { slabs, slab, start, counts, answerable };
  }

  /** A store that reads the lists of another (see lists), on another thread: no sources, no questions. */
  static of(lists: GoldLists): GoldStore {
    const store = new GoldStore();
    store.slabs.push(...lists.slabs.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength)));
    store.slab = lists.slab;
    store.start = lists.start;
    store.counts = lists.counts;
    store.answerable = lists.answerable;
    store.rows = lists.answerable.length;
    return store;
  }

  /** Done adding: the columns and the last slab are cut to what they hold (they grew by doubling). */
  seal(): void {
    this.resize(this.rows);
    if (this.slabs.length > 0)
      this.slabs[this.slabs.length - 1] = Buffer.from(this.bytes.subarray(0, this.used));
    this.bytes = Buffer.alloc(0);
  }

  get size(): number {
    return this.rows;
  }

  isAnswerable(row: number): boolean {
    return this.answerable[row] === 1;
  }

  /** List `which` of item `row`: 0 claim substrings, 1 citations, 2 constraints. */
  list(row: number, which: 0 | 1 | 2): string[] {
    const bytes = this.slabs[this.slab[row]!]!;
    let at = this.start[row]!;
    const out: string[] = [];
    for (let k = 0; k <= which; k++) {
      for (let n = this.counts[3 * row + k]!; n > 0; n--) {
        const word = bytes.readUInt32LE(at);
        const utf16 = word >= UTF16;
        const len = utf16 ? word - UTF16 : word;
        if (k === which) out.push(bytes.toString(utf16 ? 'utf16le' : 'utf8', at + 4, at + 4 + len));
        at += 4 + len;
      }
    }
    return out;
  }

  question(row: number): string | undefined {
    return this.questions[row];
  }

  source(row: number): LineRef {
    return {
      file: this.files[this.fileIndex[row]!]!,
      line: this.line[row]!,
      offset: this.offset[row]!,
      length: this.length[row]!,
    };
  }

  private put(s: string): void {
    // UTF-8 would turn a lone surrogate (JSON allows "\ud800") into U+FFFD: such a string goes as UTF-16.
    const utf8 = s.isWellFormed();
    const len = this.bytes.write(s, this.used + 4, utf8 ? 'utf8' : 'utf16le');
    this.bytes.writeUInt32LE(utf8 ? len : len + UTF16, this.used);
    this.used += 4 + len;
  }

  /** Every column made `rows` long: grown as rows are added, cut to the rows held when sealed. */
  private resize(rows: number): void {
    this.slab = resized(this.slab, rows);
    this.start = resized(this.start, rows);
    this.counts = resized(this.counts, 3 * rows);
    this.answerable = resized(this.answerable, rows);
    this.fileIndex = resized(this.fileIndex, rows);
    this.line = resized(this.line, rows);
    this.offset = resized(this.offset, rows);
    this.length = resized(this.length, rows);
  }
}

/** A sealed GoldStore's lists, as plain data that crosses to another thread (copied, not moved). */
export interface GoldLists {
  slabs: Uint8Array[];
  slab: Uint32Array<ArrayBuffer>;
  start: Uint32Array<ArrayBuffer>;
  counts: Uint32Array<ArrayBuffer>;
  answerable: Uint8Array<ArrayBuffer>;
}

/** What judging reads of a gold item (see judgeItem). */
export type JudgedGold = Pick<GoldItem, 'answerable' | 'claimSubstrings' | 'citations' | 'constraints'>;

/**
 * The lists of the items' GoldStore when item i is its row i (as loadGold returns them), so that another
 * thread finds an item by its place among them; undefined otherwise.
 */
export function goldListsOf(items: readonly GoldItem[]): GoldLists | undefined {
  const first = items[0];
  if (!(first instanceof StoredGoldItem)) return undefined;
  const store = first.store;
  const rowsAreIndexes = items.every(
    (g, i) => g instanceof StoredGoldItem && g.store === store && g.row === i,
  );
  return rowsAreIndexes && store.size === items.length ? store.lists() : undefined;
}

/** Reads items' lists on another thread, by row. */
export function goldListsReader(lists: GoldLists): (row: number) => JudgedGold {
  const store = GoldStore.of(lists);
  return (row) => new StoredGoldItem('', store, row);
}

/** A gold item whose lists and source stay in its GoldStore; they are rebuilt when asked for. */
class StoredGoldItem implements GoldItem {
  constructor(
    readonly qid: string,
    readonly store: GoldStore,
    readonly row: number,
  ) {}

  get answerable(): boolean {
    return this.store.isAnswerable(this.row);
  }

  get claimSubstrings(): string[] {
    return this.store.list(this.row, 0);
  }

  get citations(): string[] {
    return this.store.list(this.row, 1);
  }

  get constraints(): string[] {
    return this.store.list(this.row, 2);
  }

  get source(): LineRef {
    return this.store.source(this.row);
  }

  get question(): string | undefined {
    return this.store.question(this.row);
  }
}
