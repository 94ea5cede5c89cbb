// The first pass over a pack, run as bytes arrive: for each entry, parse its header, inflate it to
// find where its zlib stream ends (the format records no compressed length), CRC32 its raw bytes,
// SHA-1 whole objects (header and content in one buffer, one call), and remember each delta's base
// (offset or id) and result size. The pack's own SHA-1 is computed over the bytes as they are
// parsed and compared with the trailer.
//
// The parser is a state machine over a PackStore: step() consumes whatever the store holds and
// says how many bytes it needs before it can go on, so the same code serves a file read in chunks
// and a network stream. An entry cut off by the end of the data is retried from its start once
// twice as much has arrived, so even a huge entry trickling in costs linear time. Objects larger
// than CHUNKED are inflated and hashed in pieces, so a size in a header is never allocated on
// trust.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { CorruptError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { Inflater } from '../../core/zlib.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import { readDeltaSizes } from '../delta.js';
import { EntryHeader } from '../entry-header.js';
import type { ObjectChecker } from './check.js';
import type { PackStore } from './store.js';
import type { ObjectTable } from './tables.js';

const PACK_HEADER = 12;
/** Objects above this are inflated and hashed in pieces instead of into one buffer. */
const CHUNKED = 8 << 20;
const CHUNK = 1 << 20;
/** Room for an entry header: a 10-byte size varint and a 20-byte base id or 10-byte offset. */
const MAX_ENTRY_HEADER = 32;
/** Tables start this large at most, whatever the header claims, and grow with the real count. */
const INITIAL_ROWS = 1 << 16;

const TYPE_PREFIX = ['', 'commit ', 'tree ', 'blob ', 'tag '];

export interface ParserOptions {
  /** Names the pack in errors (a path, or "<stdin>"). */
  name: string;
  /** Runs --strict checks on whole objects as they are hashed. */
  checker?: ObjectChecker | null;
  /** Receives pack bytes once they are verified to belong to the pack (to write the .pack). */
  onData?: (bytes: Uint8Array) => void;
}

export class PackParser {
  version = 0;
  /** Object count from the pack header; -1 until the header is read. */
  count = -1;
  /** Entries parsed so far. */
  parsed = 0;
  /** Offset of the next entry (after the last entry: of the trailer). */
  pos = 0;
  /** The pack checksum, once the trailer has been read and verified. */
  packHash: Buffer | null = null;
  /** Object numbers of OFS_DELTAs and the offsets of their bases. */
  ofsObjects = new Int32Array(1024);
  ofsBaseOffsets = new Float64Array(1024);
  ofsCount = 0;
  /** Object numbers of REF_DELTAs and their base ids. */
  refObjects = new Int32Array(1024);
  refIds = new Uint8Array(1024 * OID_BYTES);
  refCount = 0;

  private readonly header = new EntryHeader();
  private readonly inflater = new Inflater();
  private readonly hash = crypto.createHash('sha1');
  private hashedTo = 0;
  private scratch = Buffer.allocUnsafe(1 << 16);
  private chunk: Buffer | null = null;

  constructor(private readonly store: PackStore, readonly table: ObjectTable, private readonly options: ParserOptions) {}

  get done(): boolean {
    return this.packHash !== null;
  }

  /** Where the pack (with its trailer) ends, once known. */
  get end(): number {
    return this.packHash ? this.pos + OID_BYTES : -1;
  }

  /**
   * Parses as far as the stored bytes allow. Returns 0 when the whole pack has been read and
   * verified, else the store length to wait for before calling again. With `eof`, running out of
   * bytes is an error.
   */
  step(eof: boolean): number {
    if (this.done) return 0;
    const store = this.store;
    if (this.count < 0) {
      if (store.length < PACK_HEADER) return this.short(eof, 0, PACK_HEADER, 'the pack header');
      this.readPackHeader();
    }
    const name = this.options.name;
    const t = this.table;
    const h = this.header;
    try {
      while (this.parsed < this.count) {
        const bytes = store.bytes, avail = store.length;
        const off = this.pos;
        if (!h.parse(bytes, off, Math.min(avail, off + MAX_ENTRY_HEADER), off, 'pack', name)) {
          if (avail - off >= MAX_ENTRY_HEADER) throw new CorruptError('pack', `${name}: entry at offset ${off} has an oversized header`);
          return this.short(eof, off, off + MAX_ENTRY_HEADER, `entry ${this.parsed} at offset ${off}`);
        }
        const i = this.parsed;
        const isDelta = h.type >= OBJ_OFS_DELTA;
        const consumed = isDelta ? this.inflateDelta(i, off, avail) : this.inflateWhole(i, off, avail);
        if (consumed < 0) {
          return this.short(eof, off, off + Math.max(2 * (avail - off), avail - off + (1 << 16)), `entry ${i} at offset ${off}`);
        }
        const end = h.dataPos + consumed;
        if (i >= t.capacity) t.ensure(Math.min(this.count, Math.max(2 * t.capacity, INITIAL_ROWS)), i);
        t.offset[i] = off;
        t.offset[i + 1] = end;
        t.headerLength[i] = h.dataPos - off;
        t.type[i] = h.type;
        t.size[i] = h.size;
        t.crc[i] = zlib.crc32(bytes.subarray(off, end));
        t.base[i] = -1;
        t.depth[i] = 0;
        if (isDelta) {
          t.realType[i] = 0;
          t.state[i] = 0;
          if (h.type === OBJ_OFS_DELTA) this.addOfs(i, h.baseOffset);
          else this.addRef(i, bytes, h.baseOidPos);
        } else {
          t.realType[i] = h.type;
          t.state[i] = 1;
        }
        this.parsed = i + 1;
        this.pos = end;
      }
      this.flushHash(this.pos);
      if (store.length < this.pos + OID_BYTES) return this.short(eof, this.pos, this.pos + OID_BYTES, 'the pack trailer');
      const computed = this.hash.digest();
      const trailer = store.bytes.subarray(this.pos, this.pos + OID_BYTES);
      if (!computed.equals(trailer)) {
        throw new CorruptError('pack', `${name}: pack is corrupted: trailer at offset ${this.pos} is ${toHex(trailer)}, but the pack's SHA-1 is ${toHex(computed)} (truncated, extended or altered pack, or a wrong object count)`);
      }
      this.options.onData?.(trailer);
      this.packHash = computed;
      return 0;
    } finally {
      if (!this.done) this.flushHash(this.pos);
    }
  }

  private readPackHeader(): void {
    const b = this.store.bytes;
    const name = this.options.name;
    if (b[0] !== 0x50 || b[1] !== 0x41 || b[2] !== 0x43 || b[3] !== 0x4b) {
      throw new CorruptError('pack', `${name}: pack signature mismatch at offset 0 (not a pack)`);
    }
    this.version = ((b[4]! << 24) | (b[5]! << 16) | (b[6]! << 8) | b[7]!) >>> 0;
    if (this.version !== 2 && this.version !== 3) throw new CorruptError('pack', `${name}: pack version ${this.version} unsupported`);
    this.count = ((b[8]! << 24) | (b[9]! << 16) | (b[10]! << 8) | b[11]!) >>> 0;
    this.table.ensure(Math.min(this.count, INITIAL_ROWS), 0);
    this.pos = PACK_HEADER;
  }

  /** Out of bytes: an error at end of input, else the length to wait for. */
  private short(eof: boolean, off: number, want: number, what: string): number {
    if (eof) {
      throw new CorruptError('pack', `${this.options.name}: early EOF: the input ends at byte ${this.store.length}, inside ${what} (offset ${off})`);
    }
    return want;
  }

  /** Hashes (and hands on) the bytes parsed since the last call. */
  private flushHash(to: number): void {
    if (to <= this.hashedTo) return;
    const part = this.store.bytes.subarray(this.hashedTo, to);
    this.hash.update(part);
    this.options.onData?.(part);
    this.hashedTo = to;
  }

  /** Inflates and hashes a whole object; returns the compressed length, or -1 if cut off. */
  private inflateWhole(i: number, off: number, avail: number): number {
    const h = this.header;
    const bytes = this.store.bytes;
    const where = () => `${this.options.name}: entry ${i} at offset ${off}`;
    const prefix = TYPE_PREFIX[h.type]! + h.size + '\0';
    if (h.size > CHUNKED) {
      const hash = crypto.createHash('sha1').update(prefix, 'latin1');
      const consumed = this.inflater.inflateChunks(bytes, h.dataPos, avail, h.size, this.chunkBuffer(),
        (part) => { hash.update(part); }, 'pack', where);
      if (consumed < 0) return -1;
      hash.digest().copy(this.table.ids, i * OID_BYTES);
      if (this.options.checker) {
        // fsck needs the whole object; only commits, trees and tags this large get here.
        if (h.type !== 3) this.checkLarge(i, off, h.dataPos, avail, h.type, h.size);
      }
      return consumed;
    }
    const need = prefix.length + h.size + 1;
    if (this.scratch.length < need) this.scratch = Buffer.allocUnsafe(Math.max(need, this.scratch.length * 2));
    const out = this.scratch;
    out.write(prefix, 0, 'latin1');
    const consumed = this.inflater.tryInflateInto(bytes, h.dataPos, avail, out, prefix.length, h.size, 'pack', where);
    if (consumed < 0) return -1;
    const whole = out.subarray(0, prefix.length + h.size);
    sha1(whole).copy(this.table.ids, i * OID_BYTES);
    this.options.checker?.check(h.type, out.subarray(prefix.length, prefix.length + h.size), this.table.ids, i * OID_BYTES);
    return consumed;
  }

  private checkLarge(i: number, off: number, dataPos: number, avail: number, type: number, size: number): void {
    const out = Buffer.allocUnsafe(size + 1);
    this.inflater.inflateInto(this.store.bytes, dataPos, avail, out, 0, size, 'pack', () => `${this.options.name}: entry ${i} at offset ${off}`);
    this.options.checker!.check(type, out.subarray(0, size), this.table.ids, i * OID_BYTES);
  }

  /** Inflates a delta to find its end and read the result size it declares. */
  private inflateDelta(i: number, off: number, avail: number): number {
    const h = this.header;
    const bytes = this.store.bytes;
    const where = () => `${this.options.name}: delta ${i} at offset ${off}`;
    let consumed: number;
    let head: Uint8Array;
    if (h.size > CHUNKED) {
      const first = Buffer.allocUnsafe(32);
      let firstLen = 0;
      consumed = this.inflater.inflateChunks(bytes, h.dataPos, avail, h.size, this.chunkBuffer(), (part) => {
        if (firstLen < first.length) {
          const n = Math.min(first.length - firstLen, part.length);
          first.set(part.subarray(0, n), firstLen);
          firstLen += n;
        }
      }, 'pack', where);
      head = first.subarray(0, firstLen);
    } else {
      if (this.scratch.length <= h.size) this.scratch = Buffer.allocUnsafe(Math.max(h.size + 1, this.scratch.length * 2));
      consumed = this.inflater.tryInflateInto(bytes, h.dataPos, avail, this.scratch, 0, h.size, 'pack', where);
      head = this.scratch.subarray(0, h.size);
    }
    if (consumed < 0) return -1;
    // The sizes take at most 20 bytes; passing the full length keeps the "a delta this small cannot
    // produce that much" check honest when only the first piece was kept.
    this.table.resultSize[i] = readDeltaSizes(head, 0, h.size, 'pack', where).resultSize;
    return consumed;
  }

  private chunkBuffer(): Buffer {
    return this.chunk ??= Buffer.allocUnsafe(CHUNK);
  }

  private addOfs(i: number, baseOffset: number): void {
    if (this.ofsCount === this.ofsObjects.length) {
      this.ofsObjects = grow(this.ofsObjects);
      this.ofsBaseOffsets = grow(this.ofsBaseOffsets);
    }
    this.ofsObjects[this.ofsCount] = i;
    this.ofsBaseOffsets[this.ofsCount++] = baseOffset;
  }

  private addRef(i: number, bytes: Uint8Array, idPos: number): void {
    if (this.refCount === this.refObjects.length) {
      this.refObjects = grow(this.refObjects);
      this.refIds = grow(this.refIds);
    }
    this.refObjects[this.refCount] = i;
    this.refIds.set(bytes.subarray(idPos, idPos + OID_BYTES), this.refCount++ * OID_BYTES);
  }
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
