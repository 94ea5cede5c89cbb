// Tree entries that need no work, found from how a tree is stored.
//
// Most trees in a pack are deltas against another version of the same directory, and a walk that
// lists history newest first has usually listed that version already (git's packer makes the
// larger, typically newer, version the base). An entry of the new tree that the delta copied whole
// from the base, starting at one of the base's entry boundaries, is byte for byte an entry of the
// base: the same mode, name and id. If the walk has finished listing the base, that id is already
// shown or uninteresting, so listing the entry again would look it up only to skip it. Only the
// inserted bytes, and entries that straddle an insert or a copy's end, need parsing.
//
// So for every tree the walk has listed to the end (each of its entries then names an object that
// is shown or uninteresting, and flags are never taken back), it keeps the tree's entry starts by
// where the tree is stored (pack number and offset). A tree read as a delta against such a tree is
// planned here: its entry starts (a copied run's shifted from the base's, the others found by
// parsing) and the runs of entries to skip. Nothing is trusted that was not checked: a copy that
// does not start at a base entry boundary, or that ends inside a base entry, leaves the entries it
// covers to the full parse; a tree this walk has not listed to the end (not listed at all, listed
// by another walk, or still being listed: a subtree stored against its own parent) has no layout
// here; a base of another size than the delta says, or a delta that does not parse, is no base.
// The layouts live in a direct-mapped table, so memory stays bounded; an evicted layout only means
// a full parse.
import { copyBytes } from '../core/copy-bytes.js';
import { OID_BYTES } from '../core/oid.js';
import type { ReadTrace } from '../odb/read-trace.js';
import { DeltaCopies } from '../pack/delta.js';

/** Layouts kept: a base is usually one of the last few versions of its directory the walk listed. */
const SLOT_BITS = 14;
const SLOTS = 1 << SLOT_BITS;
/** 4 MiB of entry starts: the layouts of the last thousand or so trees of a thousand entries. */
const ARENA_WORDS = 1 << 20;
const FIRST_ARENA_WORDS = 1 << 13;
/** The smallest tree entry: a one-digit mode, a space, an empty name, NUL and the id. */
const MIN_ENTRY = 3 + OID_BYTES;

/** One tree being listed, at one depth of the walk. */
export class TreeLevel {
  /** Where the tree is stored (pack number, 0 if not in a pack), so that its layout can be kept. */
  pack = 0;
  offset = 0;
  /** Its entry starts, relative to the tree's first byte. */
  starts: Int32Array = new Int32Array(256);
  count = 0;
  size = 0;
  /**
   * The walk's loop writes each entry's start into `starts` itself (no plan was made, or the tree
   * is not stored where a layout can be kept: then `pack` is 0 and nothing is recorded).
   */
  record = false;
  /** Runs of entries to skip: pairs of [from, to) offsets into the tree. */
  skips: Int32Array = new Int32Array(32);
  skipCount = 0;

  /** Copies the tree's entries outside the skipped runs from `tree` to the start of `out`; returns their length. */
  compact(tree: Uint8Array, out: Uint8Array): number {
    const skips = this.skips, n = this.skipCount * 2;
    let from = 0, w = 0;
    for (let k = 0; k < n; k += 2) {
      const to = skips[k]!;
      w = copyBytes(tree, from, to, out, w, COPY_BY_HAND);
      from = skips[k + 1]!;
    }
    return copyBytes(tree, from, this.size, out, w, COPY_BY_HAND);
  }
}

/**
 * Runs kept between skips are mostly an entry or two, shorter than this: copied by hand. A new view
 * for every run of every tree (most trees have one or two) was a tenth of rev-list's allocations
 * on large.
 */
const COPY_BY_HAND = 256;

export class TreeLayouts {
  /** Slots, direct-mapped by where a tree is stored: which tree, and where its layout is in the arena. */
  private readonly packOf = new Int32Array(SLOTS);
  private readonly offsetOf = new Float64Array(SLOTS).fill(-1);
  private readonly countOf = new Int32Array(SLOTS);
  /** The arena position the layout was written at, counted from the first write (never wraps). */
  private readonly writtenAt = new Float64Array(SLOTS);
  /**
   * The layouts, one after the other in a ring: a tree's entry starts, then its size. A layout is
   * valid while the ring has not come round to it again (the newest layouts are the likely bases).
   * It starts small and doubles until it reaches ARENA_WORDS, and only then wraps: a serving walk
   * of a small fetch goes through a few hundred trees, and two 4 MiB arenas per request were a
   * fifth of a warm worker's allocations.
   */
  private arena = new Int32Array(FIRST_ARENA_WORDS);
  private written = 0;
  private readonly levels: TreeLevel[] = [];
  private readonly copies = new DeltaCopies();
  /** Entries the plans let the walk skip (a measure for tests and benchmarks). */
  skipped = 0;

  private slot(pack: number, offset: number): number {
    // Fibonacci hashing of the offset (its high word folded in: packs may pass 4 GiB), the pack
    // number mixed in to keep packs apart; the top bits are the best mixed.
    const h = Math.imul((offset >>> 0) ^ ((offset / 0x100000000) | 0) ^ Math.imul(pack, 0x85ebca6b), 0x9e3779b1);
    return h >>> (32 - SLOT_BITS);
  }

  /**
   * The level for `tree`, just read at `depth`, whose storage `trace` describes (read it before
   * any other read). The level's skips say which entries to pass over.
   */
  prepare(depth: number, tree: Uint8Array, trace: ReadTrace): TreeLevel {
    let level = this.levels[depth];
    if (level === undefined) level = this.levels[depth] = new TreeLevel();
    const size = tree.length;
    level.pack = trace.pack;
    level.offset = trace.offset;
    level.size = size;
    level.count = 0;
    level.skipCount = 0;
    level.record = false;
    if (trace.pack === 0) return level;
    // Room for every entry the tree can hold.
    const need = Math.floor(size / MIN_ENTRY) + 1;
    if (level.starts.length < need) level.starts = new Int32Array(Math.max(need, level.starts.length * 2));
    if (trace.baseOffset >= 0 && this.plan(level, tree, trace)) return level;
    level.count = 0;
    level.skipCount = 0;
    level.record = true;
    return level;
  }

  /** Keeps the layout of a tree the walk has listed to the end (its level's starts are complete). */
  finish(level: TreeLevel): void {
    const n = level.count;
    if (level.pack === 0 || n + 1 > ARENA_WORDS) return;
    // Until the arena has its full size nothing has wrapped (written < its length), so a larger
    // copy keeps every layout where it was.
    if (this.written + n + 1 > this.arena.length && this.arena.length < ARENA_WORDS) {
      let size = this.arena.length * 2;
      while (size < ARENA_WORDS && size < this.written + n + 1) size *= 2;
      const bigger = new Int32Array(size);
      bigger.set(this.arena.subarray(0, this.written));
      this.arena = bigger;
    }
    const ring = this.arena.length;
    let at = this.written % ring;
    // A layout is contiguous: one that would run past the ring's end starts at its beginning.
    if (at + n + 1 > ring) {
      this.written += ring - at;
      at = 0;
    }
    const s = this.slot(level.pack, level.offset);
    this.arena.set(level.starts.subarray(0, n), at);
    this.arena[at + n] = level.size;
    this.packOf[s] = level.pack;
    this.offsetOf[s] = level.offset;
    this.countOf[s] = n;
    this.writtenAt[s] = this.written;
    this.written += n + 1;
  }

  /** Plans the skips of a delta against a tree whose layout is kept; false if there is none. */
  private plan(level: TreeLevel, tree: Uint8Array, trace: ReadTrace): boolean {
    const s = this.slot(trace.pack, trace.baseOffset);
    if (this.packOf[s] !== trace.pack || this.offsetOf[s] !== trace.baseOffset) return false;
    const m = this.countOf[s]!;
    const base = this.arena, ring = base.length;
    // Written over since (the ring came round)?
    if (this.written - this.writtenAt[s]! > ring - (m + 1)) return false;
    const b0 = this.writtenAt[s]! % ring;
    if (base[b0 + m] !== trace.baseSize) return false;
    const copies = this.copies;
    if (!copies.read(trace.delta, trace.deltaStart, trace.deltaEnd, trace.baseSize, tree.length)) return false;
    const runs = copies.runs, nRuns = copies.count * 3;
    const starts = level.starts;
    let skips = level.skips;
    let n = 0, k2 = 0, r = 0, pos = 0, skipped = 0;
    const size = tree.length;
    while (pos < size) {
      while (r < nRuns && runs[r]! + runs[r + 1]! <= pos) r += 3;
      if (r < nRuns && runs[r]! <= pos) {
        const src = runs[r + 2]!;
        const q = src + (pos - runs[r]!), qEnd = src + runs[r + 1]!;
        const k = lowerBound(base, b0, b0 + m, q);
        if (k < b0 + m && base[k] === q) {
          // The last base boundary within the copy: entries k..j-1 are whole inside it.
          const j = lowerBound(base, k, b0 + m + 1, qEnd + 1) - 1;
          if (j > k) {
            const shift = pos - q;
            for (let t = k; t < j; t++) starts[n++] = base[t]! + shift;
            const to = base[j]! + shift;
            if (k2 > 0 && skips[k2 - 1] === pos) {
              skips[k2 - 1] = to;
            } else {
              if (k2 + 2 > skips.length) {
                const bigger = new Int32Array(skips.length * 2);
                bigger.set(skips);
                level.skips = skips = bigger;
              }
              skips[k2++] = pos;
              skips[k2++] = to;
            }
            skipped += j - k;
            pos = to;
            continue;
          }
        }
      }
      const len = entryLength(tree, pos, size);
      // A malformed entry: the walk's parse stops there with the error; no layout is kept.
      if (len < 0) break;
      starts[n++] = pos;
      pos += len;
    }
    level.count = n;
    level.skipCount = k2 >> 1;
    this.skipped += skipped;
    // A malformed entry: the walk parses the whole tree and fails where it is, with its offset.
    if (pos !== size) {
      level.pack = 0;
      level.skipCount = 0;
    }
    return true;
  }
}

/** The first index in a[from..to) whose value is >= v (a is ascending), or `to`. */
function lowerBound(a: Int32Array, from: number, to: number, v: number): number {
  let lo = from, hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The length of the tree entry at data[pos..end) by the walk's rules, or -1 if it is malformed. */
function entryLength(data: Uint8Array, pos: number, end: number): number {
  let p = pos, c = 0;
  while (p < end && (c = data[p]!) !== 0x20) {
    if (c < 0x30 || c > 0x37) return -1;
    p++;
  }
  if (p >= end || p === pos) return -1;
  p++;
  while (p < end && data[p] !== 0) p++;
  if (p >= end) return -1;
  p += 1 + OID_BYTES;
  return p > end ? -1 : p - pos;
}
