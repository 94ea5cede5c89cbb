// A .pack file read through fixed windows, so a read never loads the whole pack: 16 KiB aligned
// windows in a direct-mapped cache (window number modulo the slot count; a collision replaces the
// slot), bounded at 256 MiB, and an entry that straddles windows (or a big object) is read
// contiguously on its own. Node has no mmap. Windows are small because reads are often random
// (cat-file in id order, delta bases far from their deltas): a 1 MiB window read to fetch one
// 300-byte entry made random access a hundred times slower. The bound is large because git maps
// whole packs: a window is allocated only when first read, so memory follows the part of the pack
// actually touched (as git's mapped pages do), and cat-file over every object of a 330 MB pack
// read each window ~10 times over with a 32 MiB bound. Slots keep their buffers, so steady-state
// reading allocates nothing, and a hit is two array reads.
import fs from 'node:fs';
import { CorruptError } from '../core/errors.js';
import type { PackIndex } from './idx/read.js';
import { readExactly } from '../core/read-exactly.js';
import { PackOpenError } from './open-error.js';

const WINDOW = 16 * 1024;
/**
 * Slots of the largest pack's cache. A smaller pack gets as many as it has windows (rounded up to a
 * power of two): a server repository between two gcs holds a pack for every push, and opening each
 * with the full 16,384 slots (256 KiB of tables) was a tenth of a fresh upload-pack's start.
 */
const SLOTS = 16384;
/** Reads that do not fit a window go to one reused buffer up to this size, a new one beyond. */
const SPILL_MAX = 8 * 1024 * 1024;

export interface ByteView {
  buf: Buffer;
  /** Position in buf of the requested pack offset. */
  pos: number;
  /** End of valid bytes in buf. */
  end: number;
}

export class PackFile {
  readonly size: number;
  readonly count: number;
  readonly version: number;
  /** Offset where entries end and the 20-byte trailer begins. */
  readonly dataEnd: number;
  private fd: number;
  private slotWindow: Float64Array;
  /** Slots in use: all, or fewer after limitWindows(). */
  private slotMask: number;
  private slotBuf: (Buffer | undefined)[];
  private readonly view: ByteView = { buf: Buffer.alloc(0), pos: 0, end: 0 };
  private spill = Buffer.alloc(0);

  /**
   * Opens the pack and checks it against its index as git's open_packed_git_1() does: reading only
   * its header and trailer, never the whole pack, so a pack truncated or rewritten under an intact
   * index fails here (a PackOpenError in git's words) and is never read. `index` null: the pack was
   * opened and checked before, elsewhere (a checkout writer thread reading a pack the main thread
   * opened). `listedSize`: the size the pack had when its directory was listed (git's
   * add_packed_git() records it), which it must still have.
   */
  constructor(readonly path: string, index: PackIndex | null, listedSize = -1) {
    this.fd = fs.openSync(path, 'r');
    try {
      const fail = (describe: (shown: string) => string) => new PackOpenError(path, describe);
      const st = fs.fstatSync(this.fd);
      if (listedSize < 0) {
        if (!st.isFile()) throw fail(n => `packfile ${n} not a regular file`);
      } else if (st.size !== listedSize) {
        throw fail(n => `packfile ${n} size changed`);
      }
      this.size = st.size;
      const head = Buffer.alloc(12);
      if (readAtMost(this.fd, head, 0) < 12) throw fail(n => `file ${n} is far too short to be a packfile`);
      if (head.toString('latin1', 0, 4) !== 'PACK') throw fail(n => `file ${n} is not a GIT packfile`);
      const version = this.version = head.readUInt32BE(4);
      if (version !== 2 && version !== 3) {
        throw fail(n => `packfile ${n} is version ${version} and not supported (try upgrading GIT to a newer version)`);
      }
      const count = this.count = head.readUInt32BE(8);
      if (index && count !== index.count) {
        throw fail(n => `packfile ${n} claims to have ${count} objects while index indicates ${index.count} objects`);
      }
      // git reads the trailer at size - 20, which for a pack of 12 to 19 bytes is a negative offset.
      if (this.size < 20) throw fail(n => `error reading from ${n}: Invalid argument`);
      const trailer = Buffer.alloc(20);
      readExactly(this.fd, trailer, 0, 20, this.size - 20, () => fail(n => `packfile ${n} signature is unavailable`));
      if (index && !trailer.equals(index.packChecksum())) throw fail(n => `packfile ${n} does not match index`);
      this.dataEnd = this.size - 20;
      let slots = 1;
      while (slots * WINDOW < this.dataEnd && slots < SLOTS) slots *= 2;
      this.slotWindow = new Float64Array(slots).fill(-1);
      this.slotBuf = new Array(slots);
      this.slotMask = slots - 1;
    } catch (e) {
      fs.closeSync(this.fd);
      throw e;
    }
  }

  /**
   * Bytes from `offset`: at least `want` of them (fewer only at the end of the entries), possibly
   * more. The returned view, and the buffer in it, are only valid until the next call: copy what
   * must outlive it.
   */
  read(offset: number, want: number): ByteView {
    if (offset < 12 || offset >= this.dataEnd) {
      throw new CorruptError('pack', `${this.path}: offset ${offset} is outside the pack's entries`);
    }
    const v = this.view;
    const w = Math.floor(offset / WINDOW);
    const wEnd = Math.min((w + 1) * WINDOW, this.dataEnd);
    if (offset + want <= wEnd || wEnd === this.dataEnd) {
      const win = this.window(w);
      v.buf = win;
      v.pos = offset - w * WINDOW;
      v.end = wEnd - w * WINDOW;
      return v;
    }
    const len = Math.min(want, this.dataEnd - offset);
    // The view is valid only until the next call, so one buffer serves every big read.
    if (len > this.spill.length && len <= SPILL_MAX) this.spill = Buffer.allocUnsafeSlow(Math.min(SPILL_MAX, Math.max(len, 2 * this.spill.length)));
    const buf = len <= SPILL_MAX ? this.spill : Buffer.allocUnsafe(len);
    this.readInto(buf, 0, len, offset);
    v.buf = buf;
    v.pos = 0;
    v.end = len;
    return v;
  }

  /** Reads `length` raw bytes at `offset` into a new buffer (for verbatim copies). */
  readRaw(offset: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    this.readInto(buf, 0, length, offset);
    return buf;
  }

  /**
   * Reads `length` bytes at `offset` straight into buf[pos..], past the windows: for a reader
   * that moves through the pack in large steps of its own (a verbatim copy into the output's
   * chunks, checkout's moving chunk), for which a window would be one copy more.
   */
  readInto(buf: Uint8Array, pos: number, length: number, offset: number): void {
    readExactly(this.fd, buf, pos, length, offset,
      () => new CorruptError('pack', `${this.path}: unexpected end of file reading ${length} bytes at offset ${offset}`));
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    this.slotWindow.fill(-1);
    this.slotBuf.fill(undefined);
  }

  /**
   * Keeps at most `bytes` of windows (a power of two of them, at least one), for a reader that
   * goes through the pack in about its order and comes back rarely: a walk reads commits and then
   * each commit's new trees, two streams in pack order, and needed a tenth of its windows kept.
   */
  limitWindows(bytes: number): void {
    let slots = 1;
    while (slots * 2 * WINDOW <= bytes && slots * 2 <= this.slotWindow.length) slots *= 2;
    for (let i = slots; i < this.slotWindow.length; i++) {
      this.slotWindow[i] = -1;
      this.slotBuf[i] = undefined;
    }
    this.slotMask = slots - 1;
  }

  private window(w: number): Buffer {
    const slot = w & this.slotMask;
    let buf = this.slotBuf[slot];
    if (this.slotWindow[slot] === w) return buf!;
    if (!buf) buf = this.slotBuf[slot] = Buffer.allocUnsafeSlow(WINDOW);
    const start = w * WINDOW;
    this.slotWindow[slot] = -1; // not valid until the read succeeds
    this.readInto(buf, 0, Math.min(WINDOW, this.dataEnd - start), start);
    this.slotWindow[slot] = w;
    return buf;
  }
}

/** Reads up to buf.length bytes at `position` of the file; returns how many there were. */
function readAtMost(fd: number, buf: Buffer, position: number): number {
  let done = 0;
  while (done < buf.length) {
    const n = fs.readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
