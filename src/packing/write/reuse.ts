// Verbatim pack reuse, as git's pack-bitmap.c (reuse_partial_packfile_from_bitmap) and
// pack-objects.c (write_reused_pack*) do it: the objects a bitmap says to send that sit in the
// bitmapped pack are copied from its stored bytes into the output, in pack order, right after the
// pack header, before anything else is written.
//
// Choosing: the leading 64-bit words of the wanted bits that are all set are taken whole (their
// deltas can only point back into them); after that an object is taken when it is whole, or when
// it is a delta whose base comes earlier in the pack and was taken too. A delta whose base is not
// taken is left to the ordinary writer, which may still send it as a delta against that base.
//
// Writing: consecutive taken entries are one copy from the pack file straight into the output's
// chunks, in large reads; a short run (a fetch leaves hundreds of them, between the entries it does
// not send) is copied from the pack's cached windows instead, which a serving process keeps warm
// from one fetch to the next, rather than costing a read system call each. The entries not taken leave gaps, which shift what follows; an OFS_DELTA
// whose base lies before a gap gets a new header with the shortened distance (or a REF_DELTA
// header when the receiver does not understand OFS_DELTA). The shifts are remembered as chunks
// (source offset, source minus output offset), so a base's output offset is one binary search.
import { GitError } from '../../core/errors.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import { Bitset } from '../../pack/bitmap/bitset.js';
import { MAX_ENTRY_HEADER, writeEntryHeader } from '../../pack/entry-header-encode.js';
import type { PackFile } from '../../pack/pack-file.js';
import type { PackLayout } from './pack-layout.js';
import type { PackStream } from './stream.js';

/** How much is copied between two looks at the receiver's back-pressure. */
const COPY_STEP = 1 << 20;
/**
 * Runs up to this long are copied through PackFile.read's windows (16 KiB, cached); longer ones are
 * read straight into the output, so a clone's bulk copy neither churns nor grows the window cache.
 */
const WINDOW_COPY = 16 * 1024;

/** Objects written into the pack before the writer's own. */
export interface PackPrefix {
  /** How many objects write() puts into the pack. */
  readonly count: number;
  /** Writes them; the stream stands right after the pack header. */
  write(stream: PackStream, signal?: AbortSignal): Promise<void>;
}

export interface ReuseOptions {
  /** The receiver understands OFS_DELTA; without it every reused OFS_DELTA becomes a REF_DELTA. */
  ofsDelta: boolean;
}

export class PackReuse implements PackPrefix {
  private taken = 0;
  private readonly scratch = Buffer.allocUnsafe(MAX_ENTRY_HEADER);
  /** Start (source offset) of each stretch of the output with one shift, and that shift. */
  private chunkSource: number[] = [];
  private chunkShift: number[] = [];

  private constructor(readonly layout: PackLayout, readonly reused: Bitset, private readonly wholeWordBits: number,
    private readonly options: ReuseOptions) {}

  get count(): number {
    return this.taken;
  }

  /** Chooses which of `wanted` (pack positions of `layout`) can be copied as stored. */
  static select(layout: PackLayout, wanted: Bitset, options: ReuseOptions): PackReuse {
    const n = layout.count;
    const w = wanted.words;
    const maxWords = Math.floor(n / 64) * 2;
    let words = 0;
    while (words < maxWords && words + 1 < w.length && w[words] === 0xffffffff && w[words + 1] === 0xffffffff) words += 2;
    const reused = new Bitset(n);
    reused.words.fill(0xffffffff, 0, words);
    const reuse = new PackReuse(layout, reused, words * 32, options);
    for (let i = words; i < w.length; i++) {
      let v = w[i]!;
      while (v !== 0) {
        const low = v & -v;
        v ^= low;
        const pos = i * 32 + 31 - Math.clz32(low);
        if (pos >= n) return reuse.counted();
        if (reuse.baseTaken(pos)) reused.add(pos);
      }
    }
    return reuse.counted();
  }

  private counted(): PackReuse {
    this.taken = this.reused.count();
    return this;
  }

  /** The wanted positions left for the ordinary writer. */
  rest(wanted: Bitset): Bitset {
    return wanted.clone().andNot(this.reused);
  }

  /** Whether the entry at `pos` is whole or a delta whose base is earlier and already taken. */
  private baseTaken(pos: number): boolean {
    const basePos = this.layout.deltaBase(pos);
    if (basePos === -1) return true;
    return basePos >= 0 && basePos < pos && this.reused.has(basePos);
  }

  async write(stream: PackStream, signal?: AbortSignal): Promise<void> {
    const { layout } = this;
    // Long runs are read straight into the output's chunks (PackFile.readInto), not through the
    // pack's windows: one copy fewer.
    const copier = new Copier(stream, layout.pack.file, signal);
    const verbatimFrom = this.options.ofsDelta ? this.wholeWordBits : 0;
    if (verbatimFrom > 0) {
      // Whole leading words: one copy, at the offsets they have in the pack.
      this.record(layout.offset(0), stream.offset);
      copier.add(layout.offset(0), layout.end(verbatimFrom - 1));
    }
    const w = this.reused.words;
    for (let i = verbatimFrom >>> 5; i < w.length; i++) {
      let v = w[i]!;
      while (v !== 0) {
        // Entries go on synchronously (a promise per entry was a third of a fetch's garbage);
        // a long run, a receiver that is behind or one that went away is seen to here.
        if (copier.full || stream.mustWait || signal?.aborted) await copier.flush();
        const low = v & -v;
        v ^= low;
        this.writeOne(copier, i * 32 + 31 - Math.clz32(low));
      }
    }
    await copier.flush();
  }

  private writeOne(copier: Copier, pos: number): void {
    const { layout } = this;
    const src = layout.offset(pos), end = layout.end(pos);
    const out = copier.outputOffset;
    this.record(src, out);
    // With no gap before it, an entry keeps every distance it had.
    if (src === out && this.options.ofsDelta) return copier.add(src, end);
    const basePos = layout.deltaBase(pos);
    if (basePos < 0 || !layout.isOffsetDelta(pos)) return copier.add(src, end);
    const baseOffset = layout.offset(basePos);
    const distance = this.options.ofsDelta ? out - this.outputOf(baseOffset) : 0;
    if (this.options.ofsDelta && distance === src - baseOffset) return copier.add(src, end);
    // The header changes: read it for the delta's size and where its data starts.
    const size = layout.header(pos).size;
    const index = layout.pack.index;
    const len = this.options.ofsDelta
      ? writeEntryHeader(this.scratch, OBJ_OFS_DELTA, size, { distance })
      : writeEntryHeader(this.scratch, OBJ_REF_DELTA, size, { ids: index.buf, offset: index.oidAt(layout.order.positionToIndex[basePos]!) });
    copier.copyPending();
    copier.writeHeader(this.scratch, len);
    copier.add(src + layout.headerLength, end);
  }

  /** Notes that the entry at source offset `src` goes to output offset `out`. */
  private record(src: number, out: number): void {
    const n = this.chunkShift.length;
    if (n > 0 && this.chunkShift[n - 1] === src - out) return;
    this.chunkSource.push(src);
    this.chunkShift.push(src - out);
  }

  /** Output offset of a reused entry's source offset. */
  private outputOf(src: number): number {
    const starts = this.chunkSource;
    let lo = 0, hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= src) lo = mid + 1; else hi = mid;
    }
    if (lo === 0) throw new GitError('pack', 'internal', `reused entry at offset ${src} precedes every copied entry`);
    return src - this.chunkShift[lo - 1]!;
  }
}

/**
 * Gathers adjacent source ranges into one copy. Short ones are copied on the spot through the
 * pack's windows; longer ones wait for flush(), which reads them straight into the output in large
 * reads and waits for the receiver between them.
 */
class Copier {
  private from = 0;
  private to = 0;

  constructor(private readonly stream: PackStream, private readonly file: PackFile,
    private readonly signal: AbortSignal | undefined) {}

  /** Where the next byte added will land in the output. */
  get outputOffset(): number {
    return this.stream.offset + (this.to - this.from);
  }

  /** More is pending than add() copies on the spot: flush() before adding more. */
  get full(): boolean {
    return this.to - this.from > WINDOW_COPY;
  }

  add(from: number, to: number): void {
    if (from !== this.to) {
      this.copyPending();
      this.from = from;
    }
    this.to = to;
  }

  writeHeader(header: Uint8Array, length: number): void {
    this.stream.write(header, 0, length);
  }

  /** Copies what is pending now, through the pack's windows (short, unless flush() was skipped). */
  copyPending(limit = Infinity): void {
    const { file, stream } = this;
    const to = Math.min(this.to, this.from + limit);
    // Window by window: a run across a window boundary would otherwise be read afresh.
    for (let p = this.from; p < to;) {
      const v = file.read(p, 1);
      const n = Math.min(to - p, v.end - v.pos);
      stream.write(v.buf, v.pos, v.pos + n);
      p += n;
    }
    this.from = to;
  }

  /** Copies everything pending, waiting for the receiver whenever it asks to. */
  async flush(): Promise<void> {
    const { file, stream } = this;
    for (;;) {
      if (this.signal?.aborted) throw new GitError('pack', 'aborted', 'pack writing stopped: the receiver went away');
      if (stream.mustWait) await stream.drain();
      const length = this.to - this.from;
      if (length <= 0) return;
      if (length <= WINDOW_COPY) {
        this.copyPending(COPY_STEP);
        continue;
      }
      let at = this.from;
      this.from += stream.writeFrom(Math.min(length, COPY_STEP), (buf, pos, len) => {
        file.readInto(buf, pos, len, at);
        at += len;
      });
    }
  }
}
