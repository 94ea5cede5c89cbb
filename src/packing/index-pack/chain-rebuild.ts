// Rebuilding a resolved object's content from the pack file: its delta chain is followed back to
// the nearest object whose content is still held (or to the non-delta at its end), and the deltas
// are read back and applied forwards. Both resolvers need this for a base they no longer hold:
// the second pass's (resolve.ts) drops bases beyond its cache limit, and the first pass's
// (stream-resolve.ts) keeps only what its rings have room for. They differ only in where contents
// are held and where a rebuilt one may be kept, which their ContentStore says.
import { GitError } from '../../core/errors.js';
import { applyDeltaWithSizes, readDeltaSizes, type DeltaSizes } from '../../pack/delta.js';
import type { EntryReader } from './entry-reader.js';

export interface ContentStore {
  /** Object `i`'s content, if it is held. */
  held(i: number): Buffer | null;
  /**
   * Where to build object `i`'s content, `n` bytes made from `base` (null for a non-delta): a
   * buffer that does not lie over `base`, which is still read while the result is written; or
   * undefined for a buffer of its own.
   */
  room?(i: number, n: number, base: Buffer | null): Buffer | undefined;
  /** Object `i`'s content, built in the room given for it. */
  kept?(i: number, data: Buffer): void;
}

export class ChainRebuilder {
  /** The data of the delta read last, valid until the next read. */
  delta!: Uint8Array;
  private sizes!: DeltaSizes;
  /** The delta read last, for messages (one closure for all). */
  private current = 0;
  private readonly where = (): string => `${this.reader.name}: delta at offset ${this.reader.table.offset[this.current]}`;
  private readonly chain: number[] = [];

  constructor(private readonly reader: EntryReader, private readonly store: ContentStore) {}

  /** The content of `object`, resolved (or a non-delta): held, or rebuilt along its chain. */
  content(object: number): Buffer {
    const t = this.reader.table, store = this.store, chain = this.chain;
    chain.length = 0;
    let cur = object;
    let data = store.held(cur);
    while (!data && t.isDelta(cur)) {
      chain.push(cur);
      cur = t.base[cur]!;
      if (cur < 0) throw new GitError('pack', 'internal', `${this.reader.name}: object at offset ${t.offset[chain[chain.length - 1]!]} has no resolved base`);
      data = store.held(cur);
    }
    if (!data) {
      // inflateOwned wants a spare byte.
      const room = store.room?.(cur, t.size[cur]! + 1, null);
      data = this.reader.inflateOwned(cur, room);
      if (room) store.kept!(cur, data);
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const d = chain[k]!;
      // Read before asking for room: an optional call skips its arguments when there is no room() to ask.
      const { resultSize } = this.read(d);
      const room = store.room?.(d, resultSize, data);
      data = this.apply(data, room);
      if (room) store.kept!(d, data);
    }
    return data;
  }

  /** Reads delta `d`'s data back from the pack (into `delta`), and returns its sizes. */
  read(d: number): DeltaSizes {
    this.current = d;
    const size = this.reader.table.size[d]!;
    this.delta = this.reader.deltaData(d, size);
    return this.sizes = readDeltaSizes(this.delta, 0, size, 'pack', this.where);
  }

  /** Applies the delta read last to `base`, into `out` at `at`, or into a buffer of its own. */
  apply(base: Buffer, out?: Buffer, at = 0): Buffer {
    return applyDeltaWithSizes(base, this.delta, this.sizes, this.reader.table.size[this.current]!, 'pack', this.where, out, at);
  }
}
