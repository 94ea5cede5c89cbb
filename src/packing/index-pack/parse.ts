// The first pass over a pack, run as bytes arrive: for each entry, parse its header, inflate it to
// find where its zlib stream ends (the format records no compressed length), CRC32 its raw bytes,
// SHA-1 whole objects (header and content in one buffer, one call), and remember each delta's
// base (an object number for OFS_DELTA, an id for REF_DELTA), checking its result size. Once a
// resolver thread is ready, whole objects and OFS_DELTA data are inflated into its ring instead
// (first-pass-ring.ts), and it hashes them and resolves the deltas as they come; what it does not
// get is hashed here, and resolved by the second pass from the pack file. The pack's own SHA-1 is computed
// over the bytes as they are parsed and compared with the trailer.
//
// The parser is a state machine over a PackWindow: step() consumes whatever the window holds and
// says up to which pack offset it needs bytes before it can go on, so the same code serves a file
// read in chunks and a network stream. An entry cut off by the end of the data is retried from its
// start once twice as much has arrived, so even a huge entry trickling in costs linear time.
// Objects larger than CHUNKED are inflated and hashed in pieces, so a size in a header is never
// allocated on trust; and fed to zlib as their bytes arrive (BigEntry), so the window holds what
// came since the last step, not the whole entry: a 300 MB blob was held whole, and twice over
// while the window doubled to take it.
import crypto from 'node:crypto';
import { CorruptError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { Inflater } from '../../core/zlib.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA } from '../../object/type.js';
import { readDeltaSizes } from '../../pack/delta.js';
import { BIG_OBJECT } from '../../pack/inflate-entry.js';
import { EntryHeader } from '../../pack/entry-header.js';
import { crc32 } from '../../core/crc32.js';
import type { FirstPassRingWriter } from './first-pass-ring.js';
import type { PackObserver } from './observe.js';
import { MAX_SIZE, type ObjectTable } from './tables.js';
import type { PackWindow } from './window.js';

const PACK_HEADER = 12;
/** Objects above this are inflated and hashed in pieces instead of into one buffer. */
const CHUNKED = BIG_OBJECT;
const CHUNK = 1 << 20;
/** Room for an entry header: a 10-byte size varint and a 20-byte base id or 10-byte offset. */
const MAX_ENTRY_HEADER = 32;

const TYPE_PREFIX = ['', 'commit ', 'tree ', 'blob ', 'tag '];
const EMPTY = Buffer.alloc(0);

export interface ParserOptions {
  /** Names the pack in errors (a path, or "<stdin>"). */
  name: string;
  /** Receives pack bytes once they are parsed (a PackSink's write, for a stream). */
  onData?: (bytes: Uint8Array) => void;
  observer?: PackObserver;
  /** Told the header's object count before any entry is parsed (so that a ring can be attached first). */
  onHeader?: (count: number) => void;
}

/**
 * An object above CHUNKED being parsed across steps: its header, read once, and a running CRC and
 * hash stand in for the bytes the window lets go once they are fed to the inflater.
 */
interface BigEntry {
  i: number;
  offset: number;
  headerLength: number;
  type: number;
  size: number;
  baseOffset: number;
  /** A REF_DELTA's base id. */
  baseId: Buffer | null;
  /** Pack offset up to which the entry's bytes have been inflated, CRC'd and hashed into the pack's SHA-1. */
  fed: number;
  crc: number;
  produced: number;
  /** The object's SHA-1 so far (header and content), for a whole object. */
  hash: crypto.Hash | null;
  /** A delta's first bytes (its sizes), and how many are in. */
  head: Buffer;
  headLength: number;
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
  ofsCount = 0;
  /** Object numbers of REF_DELTAs and their base ids, in pack order. */
  refObjects = new Int32Array(1024);
  refIds = new Uint8Array(1024 * OID_BYTES);
  refCount = 0;

  private readonly header = new EntryHeader();
  private readonly inflater = new Inflater();
  private readonly hash = crypto.createHash('sha1');
  private hashedTo = 0;
  private scratch: Buffer = Buffer.allocUnsafe(1 << 16);
  /** The entry being parsed, for messages (one closure for all entries). */
  private current = 0;
  private currentOffset = 0;
  private readonly where = (): string => `${this.options.name}: entry ${this.current} at offset ${this.currentOffset}`;
  private chunk: Buffer | null = null;
  /** The object above CHUNKED being fed as it arrives, if one is; and its own inflater. */
  private big: BigEntry | null = null;
  private bigInflater: Inflater | null = null;
  /**
   * Where whole objects and OFS_DELTA data go to another thread (first-pass-ring.ts), which hashes
   * the objects and resolves the deltas, once one is ready to; until then, and for what does not
   * fit, objects are hashed here and deltas left to the second pass.
   */
  ring: FirstPassRingWriter | null = null;
  /** The bytes the entry being parsed has in the ring, queued once its row is filled in; -1: none. */
  private ringLength = -1;

  constructor(private readonly window: PackWindow, readonly table: ObjectTable, private readonly options: ParserOptions) {}

  get done(): boolean {
    return this.packHash !== null;
  }

  /** Pack offset before which the window may let bytes go: the entry being parsed, or what a big one has fed. */
  get keep(): number {
    return this.big !== null ? this.big.fed : this.pos;
  }

  /** Where the pack (with its trailer) ends, once known. */
  get end(): number {
    return this.packHash ? this.pos + OID_BYTES : -1;
  }

  /**
   * Parses as far as the window allows. Returns 0 when the whole pack has been read and verified,
   * else the pack offset up to which bytes are needed before calling again (always more than the
   * window holds). With `eof`, running out of bytes is an error.
   */
  step(eof: boolean): number {
    if (this.done) return 0;
    const w = this.window;
    if (this.count < 0) {
      if (w.end < PACK_HEADER) return this.short(eof, PACK_HEADER, 'the pack header');
      this.readPackHeader();
    }
    const name = this.options.name;
    const t = this.table;
    const h = this.header;
    try {
      while (this.parsed < this.count) {
        const bytes = w.bytes, base = w.start, avail = w.end;
        const off = this.pos;
        const at = off - base;
        const i = this.parsed;
        let big = this.big;
        if (big === null) {
          if (!h.parse(bytes, at, Math.min(avail, off + MAX_ENTRY_HEADER) - base, off, 'pack', name)) {
            if (avail - off >= MAX_ENTRY_HEADER) throw new CorruptError('pack', `${name}: entry at offset ${off} has an oversized header`);
            return this.short(eof, off + MAX_ENTRY_HEADER, `entry ${this.parsed} at offset ${off}`);
          }
          this.current = i;
          this.currentOffset = off;
          if (i >= t.capacity) t.ensure(i + 1);
          if (h.size > CHUNKED && (this.bigInflater ??= new Inflater()).feeds) big = this.big = this.startBig(i, off, bytes, at);
        }
        let end: number, crc: number, type: number, headerLength: number, size: number, baseOffset: number;
        let baseId: Uint8Array, baseIdAt: number;
        this.ringLength = -1;
        if (big !== null) {
          if (!this.feedBig(big, bytes, base, avail)) {
            // Whatever comes next is worth a step: the entry goes on from where it stopped.
            return this.short(eof, avail + (1 << 16), `entry ${i} at offset ${off}`);
          }
          this.big = null;
          ({ type, headerLength, size, baseOffset, crc } = big);
          end = big.fed;
          baseId = big.baseId ?? EMPTY;
          baseIdAt = 0;
        } else {
          const consumed = h.type >= OBJ_OFS_DELTA ? this.inflateDelta(i, off, avail - base) : this.inflateWhole(i, off, avail - base);
          if (consumed < 0) {
            return this.short(eof, off + Math.max(2 * (avail - off), avail - off + (1 << 16)), `entry ${i} at offset ${off}`);
          }
          ({ type, size, baseOffset } = h);
          headerLength = h.dataPos - at;
          end = off + headerLength + consumed;
          crc = crc32(bytes, at, end - base);
          baseId = bytes;
          baseIdAt = h.baseOidPos;
        }
        const isDelta = type >= OBJ_OFS_DELTA;
        t.offset[i] = off;
        t.offset[i + 1] = end;
        t.headerLength[i] = headerLength;
        t.type[i] = type;
        t.size[i] = Math.min(size, MAX_SIZE);
        t.crc[i] = crc;
        t.depth[i] = 0;
        if (isDelta) {
          t.realType[i] = 0;
          t.state[i] = 0;
          if (type === OBJ_OFS_DELTA) {
            t.base[i] = this.entryAt(baseOffset, i, off);
            this.ofsCount++;
          } else {
            t.base[i] = -1;
            this.addRef(i, baseId, baseIdAt);
          }
        } else {
          t.realType[i] = type;
          t.state[i] = 1;
          t.base[i] = -1;
        }
        // The ring's reader reads the row (type, base), so it is queued only now.
        if (this.ringLength >= 0) this.ring!.publish(i, this.ringLength);
        this.parsed = i + 1;
        this.pos = end;
        this.options.observer?.onEntry?.(i, off, end, type, size);
      }
      this.flushHash(this.pos);
      if (w.end < this.pos + OID_BYTES) return this.short(eof, this.pos + OID_BYTES, 'the pack trailer');
      const computed = this.hash.digest();
      const trailer = w.bytes.subarray(this.pos - w.start, this.pos - w.start + OID_BYTES);
      if (!computed.equals(trailer)) {
        throw new CorruptError('pack', `${name}: pack is corrupted: trailer at offset ${this.pos} is ${toHex(trailer)}, but the pack's SHA-1 is ${toHex(computed)} (truncated, extended or altered pack, or a wrong object count)`);
      }
      this.options.onData?.(trailer);
      this.packHash = computed;
      this.options.observer?.onTrailer?.(computed);
      return 0;
    } finally {
      if (!this.done) this.flushHash(this.pos);
    }
  }

  private readPackHeader(): void {
    const b = this.window.bytes;
    const at = -this.window.start;
    const name = this.options.name;
    if (b[at] !== 0x50 || b[at + 1] !== 0x41 || b[at + 2] !== 0x43 || b[at + 3] !== 0x4b) {
      throw new CorruptError('pack', `${name}: pack signature mismatch (not a pack)`);
    }
    this.version = b.readUInt32BE(at + 4);
    if (this.version !== 2 && this.version !== 3) throw new CorruptError('pack', `${name}: pack version ${this.version} unsupported`);
    this.count = b.readUInt32BE(at + 8);
    this.pos = PACK_HEADER;
    this.options.onHeader?.(this.count);
    this.options.observer?.onHeader?.(this.version, this.count);
  }

  /** Out of bytes: an error at end of input, else the offset to wait for. */
  private short(eof: boolean, want: number, what: string): number {
    if (eof) {
      throw new CorruptError('pack', `${this.options.name}: early EOF: the input ends at byte ${this.window.end}, inside ${what}`);
    }
    return want;
  }

  /** Hashes (and hands on) the bytes parsed since the last call. */
  private flushHash(to: number): void {
    if (to <= this.hashedTo) return;
    const part = this.window.bytes.subarray(this.hashedTo - this.window.start, to - this.window.start);
    this.hash.update(part);
    this.options.onData?.(part);
    this.hashedTo = to;
    if (this.options.onData) this.ring?.wrote(to);
  }

  /** Object number of the entry at pack offset `offset` (an OFS_DELTA base), before entry `i`. */
  private entryAt(offset: number, i: number, deltaOffset: number): number {
    const offsets = this.table.offset;
    let lo = 0, hi = i;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = offsets[mid]!;
      if (v === offset) return mid;
      if (v < offset) lo = mid + 1; else hi = mid;
    }
    throw new CorruptError('pack', `${this.options.name}: delta at offset ${deltaOffset} has its base at offset ${offset}, where no entry starts`);
  }

  /** The state of entry i, a big object whose header is at bytes[at..] (pack offset `off`), before any of it is fed. */
  private startBig(i: number, off: number, bytes: Buffer, at: number): BigEntry {
    const h = this.header;
    const headerLength = h.dataPos - at;
    const isDelta = h.type >= OBJ_OFS_DELTA;
    this.bigInflater!.begin();
    return {
      i, offset: off, headerLength, type: h.type, size: h.size, baseOffset: h.baseOffset,
      baseId: h.type === OBJ_REF_DELTA ? Buffer.from(bytes.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES)) : null,
      fed: off + headerLength, crc: crc32(bytes, at, at + headerLength), produced: 0,
      hash: isDelta ? null : crypto.createHash('sha1').update(TYPE_PREFIX[h.type]! + h.size + '\0', 'latin1'),
      head: Buffer.allocUnsafe(isDelta ? 32 : 0), headLength: 0,
    };
  }

  /**
   * Feeds a big entry what the window holds of it beyond what it was fed before, and hashes
   * those bytes into the pack's SHA-1 so that the window may let them go. True once the entry's
   * stream has ended (its hash, or its delta sizes, then checked and recorded).
   */
  private feedBig(big: BigEntry, bytes: Buffer, base: number, avail: number): boolean {
    const from = big.fed - base;
    const used = this.bigInflater!.feed(bytes, from, avail - base, big.size, big.produced, this.chunkBuffer(), (part) => {
      big.produced += part.length;
      if (big.hash !== null) {
        big.hash.update(part);
      } else if (big.headLength < big.head.length) {
        const n = Math.min(big.head.length - big.headLength, part.length);
        big.head.set(part.subarray(0, n), big.headLength);
        big.headLength += n;
      }
    }, 'pack', this.where);
    big.crc = crc32(bytes, from, from + used, big.crc);
    big.fed += used;
    this.flushHash(big.fed);
    if (!this.bigInflater!.ended) return false;
    if (big.hash !== null) {
      big.hash.digest().copy(this.table.ids, big.i * OID_BYTES);
    } else {
      // As inflateDelta: the full length keeps the "a delta this small cannot produce that much" check honest.
      const { resultSize } = readDeltaSizes(big.head, 0, big.size, 'pack', this.where);
      if (resultSize >= MAX_SIZE) throw new CorruptError('pack', `${this.where()}: delta declares a ${resultSize}-byte result, larger than tsgit can hold`);
    }
    return true;
  }

  /** Inflates and hashes a whole object; returns the compressed length, or -1 if cut off. */
  private inflateWhole(i: number, off: number, avail: number): number {
    const h = this.header;
    const bytes = this.window.bytes;
    const where = this.where;
    const prefix = TYPE_PREFIX[h.type]! + h.size + '\0';
    if (h.size > CHUNKED) {
      const hash = crypto.createHash('sha1').update(prefix, 'latin1');
      const consumed = this.inflater.inflateChunks(bytes, h.dataPos, avail, h.size, this.chunkBuffer(),
        (part) => { hash.update(part); }, 'pack', where);
      if (consumed < 0) return -1;
      hash.digest().copy(this.table.ids, i * OID_BYTES);
      return consumed;
    }
    // The header and content, with a spare byte that tells an overlong stream from a full one.
    const need = prefix.length + h.size + 1;
    const ring = this.ring;
    const at = ring ? ring.reserve(need) : -1;
    if (at < 0 && this.scratch.length < need) this.scratch = Buffer.allocUnsafe(Math.max(need, this.scratch.length * 2));
    const out = at < 0 ? this.scratch : ring!.bytes;
    const start = Math.max(at, 0);
    out.write(prefix, start, 'latin1');
    const consumed = this.inflater.tryInflateInto(bytes, h.dataPos, avail, out, start + prefix.length, h.size, 'pack', where);
    if (consumed < 0) return -1;
    if (at < 0) sha1(out.subarray(0, prefix.length + h.size)).copy(this.table.ids, i * OID_BYTES);
    else this.ringLength = prefix.length + h.size;
    return consumed;
  }

  /** Inflates a delta to find where it ends and to check its result size. */
  private inflateDelta(i: number, off: number, avail: number): number {
    const h = this.header;
    const bytes = this.window.bytes;
    const where = this.where;
    let consumed: number;
    let at = -1;
    // The delta's first bytes (its two sizes) are read where they were inflated: a view of them per
    // delta was an allocation per object (60 ms of a clone of large's first pass, in a profile).
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
      // An OFS_DELTA goes to the ring's resolver when there is room (a REF_DELTA's base may not be
      // known before the end of the pack); with a spare byte, as for whole objects.
      const ring = h.type === OBJ_OFS_DELTA ? this.ring : null;
      at = ring ? ring.reserve(h.size + 1) : -1;
      if (at < 0 && this.scratch.length <= h.size) this.scratch = Buffer.allocUnsafe(Math.max(h.size + 1, this.scratch.length * 2));
      head = at < 0 ? this.scratch : ring!.bytes;
      consumed = this.inflater.tryInflateInto(bytes, h.dataPos, avail, head, Math.max(at, 0), h.size, 'pack', where);
    }
    if (consumed < 0) return -1;
    // The sizes take at most 20 bytes; passing the full length keeps the "a delta this small cannot
    // produce that much" check honest when only the first piece was kept.
    const start = Math.max(at, 0);
    const { resultSize } = readDeltaSizes(head, start, start + h.size, 'pack', where);
    if (at >= 0) this.ringLength = h.size;
    if (resultSize >= MAX_SIZE) throw new CorruptError('pack', `${where()}: delta declares a ${resultSize}-byte result, larger than tsgit can hold`);
    return consumed;
  }

  private chunkBuffer(): Buffer {
    return this.chunk ??= Buffer.allocUnsafe(CHUNK);
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

function grow<T extends Int32Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
