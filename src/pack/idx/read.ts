// Pack index (.idx) v1 and v2, searched in place: the fan-out table narrows a lookup to one first
// byte, then a search over raw ids. A lookup allocates nothing.
//
// The file is read as it is used, as git's mmap pages it in: a buffer the file's size (zeroed
// memory, which the kernel maps only when written) filled 4 KiB page by page when oidAt(),
// offset() or crc() first touch it, so a process that reads a few entries reads a few pages, not
// 20 MB. Once half of one of its tables (ids, CRCs, offsets) is in, the rest of that table is read
// in one go: a walk over the whole repository touches every page anyway. What a page costs is
// mostly the kernel mapping the memory it is read into (each 4 KiB of a fresh buffer is a page
// fault: ~12 us on the VMs measured, where reading 20 MB into a fresh buffer took 57 ms and into
// one already mapped 2 ms), not the read call. Searches (find) do not fill pages at all while the
// file is read in pages: they read runs of ids into a scratch buffer (findUnloaded). Every reader
// of `buf` asks for its bytes first: oidAt(), offset(), crc() and the searches load what they return.
import fs from 'node:fs';
import { CorruptError } from '../../core/errors.js';
import { PackOpenError } from '../open-error.js';
import { compareOid, OID_BYTES } from '../../core/oid.js';
import { forEachSharingPrefix } from '../../core/oid-prefix.js';
import { readExactly } from '../../core/read-exactly.js';

const V2_MAGIC = 0xff744f63;
/** Pages read on demand (exported for the tests that check which were read). */
export const PAGE = 4 * 1024;
/** Files up to this many pages (64 KiB) are read whole at once: a few reads cost more than their bytes. */
const EAGER_PAGES = 16;

/** Ranges of ids by their first two bytes (buildPrefixes). */
const PREFIX_SLOTS = 1 << 16;
/**
 * Indexes too small for the table: a fan-out bucket of theirs holds a few hundred ids at most,
 * which the interpolation finds in a probe or two within a page or two.
 */
const PREFIX_MIN_IDS = 1 << 17;

/** Ids one read of a lookup outside `buf` covers, and the buffer it reads them into (v1 entries are 24 bytes). */
const SCRATCH_IDS = Math.floor(PAGE / 24);
const SCRATCH = Buffer.allocUnsafe(SCRATCH_IDS * 24);

/** Bytes 1-4 of the id at `at`: the interpolation key within a fan-out bucket. */
function keyAt(buf: Uint8Array, at: number): number {
  return ((buf[at + 1]! << 24) | (buf[at + 2]! << 16) | (buf[at + 3]! << 8) | buf[at + 4]!) >>> 0;
}

/**
 * Binary search for an id among positions [lo, hi) of ids laid out in `buf` (position i at
 * base + i * stride): the index's own, or a run of them read into a scratch buffer. Searches on
 * the first four bytes as one number; only equal prefixes compare the rest.
 */
function searchIds(buf: Uint8Array, base: number, stride: number, oid: Uint8Array, oidOffset: number, lo: number, hi: number): number {
  const key = ((oid[oidOffset]! << 24) | (oid[oidOffset + 1]! << 16) | (oid[oidOffset + 2]! << 8) | oid[oidOffset + 3]!) >>> 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const p = base + mid * stride;
    const v = ((buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!) >>> 0;
    let c = v - key;
    if (c === 0) {
      let i = 4;
      while (i < OID_BYTES && buf[p + i] === oid[oidOffset + i]) i++;
      if (i === OID_BYTES) return mid;
      c = buf[p + i]! - oid[oidOffset + i]!;
    }
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

function shrank(path: string, got: number, size: number): CorruptError {
  return new CorruptError('pack', `${path}: index file ended after ${got} of its ${size} bytes (it shrank while being read)`);
}

export class PackIndex {
  readonly count: number;
  readonly version: 1 | 2;
  private readonly fanout: Uint32Array;
  private readonly oidBase: number;
  private readonly oidStride: number;
  private readonly crcBase: number;
  private readonly offBase: number;
  private readonly largeBase: number;
  private readonly largeCount: number;

  /** Per page of `buf`, whether it holds the file's bytes; null once all do. */
  private loaded: Uint8Array | null;
  /**
   * The file's tables (ids; CRCs; offsets and the rest) as runs of pages: regionStart[r] is the
   * first page of table r and regionStart[r + 1] its end; regionRead[r] counts its pages read.
   */
  private readonly regionStart: number[] = [];
  private readonly regionRead: number[] = [];
  /** Lookups searched outside `buf` (findUnloaded). */
  private unloadedLookups = 0;
  /** Lookups searched in the whole file, until `prefixes` is built. */
  private loadedLookups = 0;
  /**
   * Where each first two bytes of an id begin among the positions (PREFIX_SLOTS + 1 entries), once
   * a walk has looked up enough ids to pay for it; null until then.
   */
  private prefixes: Int32Array | null = null;
  /** The open file while pages remain to be read. */
  private fd: number;

  /**
   * An index over `buf`: the whole file, or (from load()) a buffer of its size of which only the
   * pages marked in `loaded` are read yet, the rest read from `fd` on demand.
   */
  constructor(readonly buf: Buffer, readonly path: string, loaded: Uint8Array | null = null, fd = -1) {
    this.loaded = loaded;
    this.fd = fd;
    // git's checks (packfile.c load_idx()), in its order and words: the object database shows them
    // as git does when it skips a pack whose index fails them.
    const bad = (describe: (shown: string) => string) => new PackOpenError(path, describe);
    if (buf.length < 1024 + 40) throw bad(f => `index file ${f} is too small`);
    let fanoutAt = 0;
    if (buf.readUInt32BE(0) === V2_MAGIC) {
      const v = buf.readUInt32BE(4);
      if (v !== 2) throw bad(f => `index file ${f} is version ${v} and is not supported by this binary (try upgrading GIT to a newer version)`);
      this.version = 2;
      fanoutAt = 8;
    } else {
      this.version = 1;
    }
    this.fanout = new Uint32Array(256);
    let prev = 0;
    for (let i = 0; i < 256; i++) {
      const v = buf.readUInt32BE(fanoutAt + 4 * i);
      if (v < prev) throw bad(f => `non-monotonic index ${f}`);
      this.fanout[i] = prev = v;
    }
    const n = this.count = prev;
    const tables = fanoutAt + 1024;
    if (this.version === 2) {
      this.oidBase = tables;
      this.oidStride = OID_BYTES;
      this.crcBase = tables + n * OID_BYTES;
      this.offBase = this.crcBase + n * 4;
      this.largeBase = this.offBase + n * 4;
      // After the 31-bit offsets, up to n - 1 64-bit ones (git's bounds), in whole entries.
      const rest = buf.length - this.largeBase - 40;
      if (rest < 0 || rest > Math.max(0, n - 1) * 8 || rest % 8 !== 0) throw bad(f => `wrong index v2 file size in ${f}`);
      this.largeCount = rest / 8;
    } else {
      this.oidBase = tables + 4;
      this.oidStride = 24;
      this.crcBase = this.offBase = -1;
      this.largeBase = tables;
      this.largeCount = 0;
      if (buf.length !== tables + n * 24 + 40) throw bad(f => `wrong index v1 file size in ${f}`);
    }
    if (loaded) {
      const starts = this.version === 2 ? [0, Math.floor(this.crcBase / PAGE), Math.floor(this.offBase / PAGE)] : [0];
      this.regionStart.push(...starts, loaded.length);
      this.regionRead.push(...starts.map(() => 0));
    }
  }

  /**
   * Index files already read by another thread (path to bytes in shared memory), so a worker that
   * opens the same repository does not hold a second copy (20 MB for 700k objects).
   */
  static readonly shared = new Map<string, Buffer>();

  /**
   * Opens the file into shared memory (which a worker thread can use too, see loadAll()), reading
   * its header, fan-out table and trailer now and the rest as lookups need it.
   */
  static load(path: string): PackIndex {
    const known = PackIndex.shared.get(path);
    if (known) return new PackIndex(known, path);
    const fd = fs.openSync(path, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.from(new SharedArrayBuffer(size));
      const pages = Math.ceil(size / PAGE);
      if (pages <= EAGER_PAGES) {
        readExactly(fd, buf, 0, size, 0, got => shrank(path, got, size));
        const whole = new PackIndex(buf, path);
        fs.closeSync(fd);
        return whole;
      }
      const loaded = new Uint8Array(pages);
      // Header and fan-out (the first 1,032 bytes), and the trailer with the pack's checksum.
      readExactly(fd, buf, 0, PAGE, 0, got => shrank(path, got, size));
      loaded[0] = 1;
      const last = (pages - 1) * PAGE;
      readExactly(fd, buf, last, size - last, last, got => shrank(path, last + got, size));
      loaded[pages - 1] = 1;
      if (pages > 2 && size - last < 40) {
        readExactly(fd, buf, last - PAGE, PAGE, last - PAGE, got => shrank(path, last - PAGE + got, size));
        loaded[pages - 2] = 1;
      }
      return new PackIndex(buf, path, loaded, fd);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /** Makes sure buf[from..to) holds the file's bytes. */
  private need(from: number, to: number): void {
    const loaded = this.loaded;
    if (loaded === null) return;
    const first = Math.floor(from / PAGE);
    const read = this.readMissing(loaded, first, Math.min(loaded.length, Math.ceil(to / PAGE)));
    if (read === 0) return;
    // Once half a table is in, the rest of that table follows in one read. Not sooner: a page
    // costs its fault whether read alone or with the rest, and the ids, CRCs and offsets of the
    // objects a fetch sends land on a third of their tables' pages; nor the whole file, since the
    // offsets of a fetch's objects (found by search in pack order) need not bring in the 14 MB of ids.
    const starts = this.regionStart;
    let r = starts.length - 2;
    while (r > 0 && starts[r]! > first) r--;
    const size = starts[r + 1]! - starts[r]!;
    this.regionRead[r]! += read;
    if (this.regionRead[r]! * 2 < size) return;
    this.readMissing(loaded, starts[r]!, starts[r + 1]!);
    this.regionRead[r] = size;
    if (this.regionRead.every((n, k) => n >= starts[k + 1]! - starts[k]!)) this.loadAll();
  }

  /** Reads every page not read yet (before the buffer is shared with a thread that reads it raw). */
  loadAll(): void {
    const loaded = this.loaded;
    if (loaded === null) return;
    this.loaded = null;
    try {
      this.readMissing(loaded, 0, loaded.length);
    } finally {
      this.close();
    }
  }

  /** Reads the pages of [first, last) not read yet, consecutive ones in one read; returns how many. */
  private readMissing(loaded: Uint8Array, first: number, last: number): number {
    let read = 0;
    for (let p = first; p < last; p++) {
      if (loaded[p]) continue;
      let q = p + 1;
      while (q < last && !loaded[q]) q++;
      const at = p * PAGE, len = Math.min(this.buf.length, q * PAGE) - at;
      readExactly(this.fd, this.buf, at, len, at, got => shrank(this.path, at + got, this.buf.length));
      loaded.fill(1, p, q);
      read += q - p;
      p = q - 1;
    }
    return read;
  }

  /** Closes the file (pages not read yet then never will be: call when done with the index). */
  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  /** The pack's checksum as recorded in the index trailer. */
  packChecksum(): Buffer {
    return this.buf.subarray(this.buf.length - 40, this.buf.length - 20);
  }

  /** Whether lookups now search by the ids' first two bytes (buildPrefixes): a state that a walk's speed depends on. */
  get searchesByPrefix(): boolean {
    return this.prefixes !== null;
  }

  /**
   * Position of the id in the index (sorted order), or -1. Ids are uniformly distributed, so an
   * interpolation search finds one in two or three probes where a binary search takes a dozen:
   * a walk looks up every tree once, the index is too big to stay in the CPU caches, and each probe
   * was a cache miss. (While the file is read in pages, findUnloaded searches it.) The range is bounded by
   * the keys known to lie just outside it, at first 0 and 2^32 (the bucket's ends are not read:
   * that was two more probes per lookup, and 512 pages read for the buckets' ends alone), then the
   * keys of the probes that missed. Skewed ids (crafted ones) fall back to binary search after a
   * few probes. A big index looked up a sixteenth of its count of times (a walk) searches by the
   * ids' first two bytes instead (buildPrefixes).
   */
  find(oid: Uint8Array, oidOffset = 0): number {
    const prefixes = this.prefixes;
    if (prefixes !== null) {
      const k = (oid[oidOffset]! << 8) | oid[oidOffset + 1]!;
      return searchIds(this.buf, this.oidBase, this.oidStride, oid, oidOffset, prefixes[k]!, prefixes[k + 1]!);
    }
    if (this.loaded === null && this.count >= PREFIX_MIN_IDS && ++this.loadedLookups > this.count >>> 4) this.buildPrefixes();
    const first = oid[oidOffset]!;
    const lo = first === 0 ? 0 : this.fanout[first - 1]!;
    const hi = this.fanout[first]!;
    if (this.loaded !== null && hi > lo) return this.findUnloaded(oid, oidOffset, lo, hi);
    if (hi - lo < 16) return this.binarySearch(oid, oidOffset, lo, hi);
    const buf = this.buf, base = this.oidBase, stride = this.oidStride;
    // Within one fan-out bucket the first byte is equal: interpolate on the next four.
    const key = keyAt(oid, oidOffset);
    // Every id in [l, h] has a key in [kl, kh]: the keys of the probes just outside, or the
    // bounds of four bytes.
    let l = lo, h = hi - 1, kl = 0, kh = 0x100000000;
    for (let probes = 0; probes < 6 && l <= h; probes++) {
      let mid = l + Math.floor((key - kl) / (kh - kl) * (h - l + 1));
      if (mid > h) mid = h; // the quotient is below 1, but one that close to it may round up
      const p = base + mid * stride;
      const km = keyAt(buf, p);
      if (km < key) {
        l = mid + 1;
        kl = km;
      } else if (km > key) {
        h = mid - 1;
        kh = km;
      } else {
        // Equal in five bytes: almost surely the id. If not, the ids sharing those bytes are
        // neighbours of mid, and a binary search among them settles it.
        let a = mid, b = mid + 1;
        while (a > l && this.samePrefix(a - 1, p)) a--;
        while (b <= h && this.samePrefix(b, p)) b++;
        return this.binarySearch(oid, oidOffset, a, b);
      }
    }
    return l <= h ? this.binarySearch(oid, oidOffset, l, h + 1) : -1;
  }

  /**
   * The table of first-two-byte ranges: a lookup then searches the dozen ids (on large) that share
   * its first two bytes, one or two cache lines, where the interpolation's probes landed a few
   * pages apart, each a TLB and cache miss (690 against 390 ns a lookup, all of large's ids in
   * random order; rev-list --objects --all looks up every commit and tree). Built from the ids in
   * one pass, ~6 ms for 700k; 256 KiB.
   */
  private buildPrefixes(): void {
    const buf = this.buf, base = this.oidBase, stride = this.oidStride, n = this.count;
    const prefixes = new Int32Array(PREFIX_SLOTS + 1);
    let p = 0;
    for (let k = 0; k < PREFIX_SLOTS; k++) {
      while (p < n && ((buf[base + p * stride]! << 8) | buf[base + p * stride + 1]!) < k) p++;
      prefixes[k] = p;
    }
    prefixes[PREFIX_SLOTS] = n;
    this.prefixes = prefixes;
  }

  /**
   * find() while the file is read in pages: a page read into `buf` costs a page fault of fresh
   * memory (~12 us on the VMs measured) on top of the read, and the lookups of a fresh process
   * (every ref of the repository checked before it is advertised, a push's remote refs) land on
   * as many pages as they are ids. So ids are searched in a scratch window read from the file
   * (one read of a 4 KiB run of ids where the interpolation points; rarely a second), leaving
   * `buf` alone. After twice as many such lookups as the file has pages, a process that looks up
   * this much will look up more: the file is read whole and searched in memory from then on.
   */
  private findUnloaded(oid: Uint8Array, oidOffset: number, lo: number, hi: number): number {
    if (++this.unloadedLookups > 2 * this.loaded!.length) {
      this.loadAll();
      return this.find(oid, oidOffset);
    }
    const stride = this.oidStride, window = SCRATCH_IDS;
    const key = keyAt(oid, oidOffset);
    // [l, h) holds the id if anything does; kl and kh bound the keys there, as in find().
    let l = lo, h = hi, kl = 0, kh = 0x100000000;
    for (let reads = 0; l < h; reads++) {
      let from = l, to = h;
      if (h - l > window) {
        // Skewed ids (crafted ones) make the interpolation miss: halve the range after a few reads.
        const mid = reads < 3 && kh > kl ? l + Math.floor((key - kl) / (kh - kl) * (h - l)) : (l + h) >>> 1;
        from = Math.max(l, Math.min(mid - (window >>> 1), h - window));
        to = from + window;
      }
      const at = this.oidBase + from * stride, len = (to - from - 1) * stride + OID_BYTES;
      readExactly(this.fd, SCRATCH, 0, len, at, got => shrank(this.path, at + got, this.buf.length));
      // Where the id stands against the window's first and last ids.
      if (from > l && compareOid(oid, oidOffset, SCRATCH, 0) < 0) {
        h = from;
        kh = keyAt(SCRATCH, 0);
        continue;
      }
      const lastAt = (to - from - 1) * stride;
      if (to < h && compareOid(oid, oidOffset, SCRATCH, lastAt) > 0) {
        l = to;
        kl = keyAt(SCRATCH, lastAt);
        continue;
      }
      // SCRATCH[0] holds the id at position `from`.
      return searchIds(SCRATCH, -from * stride, stride, oid, oidOffset, from, to);
    }
    return -1;
  }

  /** Whether the id at position i starts with the same five bytes as the id at buffer offset p. */
  private samePrefix(i: number, p: number): boolean {
    const q = this.oidBase + i * this.oidStride, buf = this.buf;
    for (let k = 0; k < 5; k++) if (buf[q + k] !== buf[p + k]) return false;
    return true;
  }

  /** Binary search for the id among positions [lo, hi). */
  private binarySearch(oid: Uint8Array, oidOffset: number, lo: number, hi: number): number {
    return searchIds(this.buf, this.oidBase, this.oidStride, oid, oidOffset, lo, hi);
  }

  /**
   * Calls `fn` with each id whose first `digits` hex digits (2 or more: its fan-out bucket is the
   * key's) are those of the id at `key`, in sorted order (core/oid-prefix.ts).
   */
  forEachWithPrefix(key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void {
    const first = key[keyOff]!;
    const lo = first === 0 ? 0 : this.fanout[first - 1]!;
    forEachSharingPrefix(this.buf, (i) => this.oidAt(i), lo, this.fanout[first]!, this.count, key, keyOff, digits, fn);
  }

  /** Offset in `buf` of the i-th id (its 20 bytes are read by then). */
  oidAt(i: number): number {
    const at = this.oidBase + i * this.oidStride;
    if (this.loaded !== null) this.need(at, at + OID_BYTES);
    return at;
  }

  oid(i: number): Buffer {
    const at = this.oidAt(i);
    return this.buf.subarray(at, at + OID_BYTES);
  }

  offset(i: number): number {
    // Bytes by hand: Buffer.readUInt32BE's checks cost more than the read, once per object read.
    const buf = this.buf;
    const p = this.version === 1 ? this.oidBase + i * 24 - 4 : this.offBase + i * 4;
    if (this.loaded !== null) this.need(p, p + 4);
    const v = ((buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!) >>> 0;
    if (this.version === 1 || !(v & 0x80000000)) return v;
    const k = v & 0x7fffffff;
    if (k >= this.largeCount) {
      throw new CorruptError('pack', `${this.path}: object ${i} points at 64-bit offset ${k}, table has ${this.largeCount}`);
    }
    const at = this.largeBase + k * 8;
    if (this.loaded !== null) this.need(at, at + 8);
    return buf.readUInt32BE(at) * 2 ** 32 + buf.readUInt32BE(at + 4);
  }

  /** CRC32 of the packed entry (v2 only). */
  crc(i: number): number | undefined {
    if (this.version !== 2) return undefined;
    const at = this.crcBase + i * 4;
    if (this.loaded !== null) this.need(at, at + 4);
    return this.buf.readUInt32BE(at);
  }
}
