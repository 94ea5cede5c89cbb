// Loose objects: objects/xx/yyyy..., each a zlib stream of "<type> <size>\0<content>". Reading
// checks the header against what the stream really holds; writing goes to a temporary file in the
// same directory and is renamed into place, so a reader never sees half an object.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError } from '../core/errors.js';
import { objectHeader } from '../core/hash.js';
import { OID_BYTES, toHex } from '../core/oid.js';
import { forEachSharingPrefix } from '../core/oid-prefix.js';
import { beyondInflateRatio, DeflateStream, Inflater } from '../core/zlib.js';
import { readExactly } from '../core/read-exactly.js';
import { writeExactly } from '../core/write-exactly.js';
import { typeCode, typeName, type RawObject, type ObjectTypeCode } from '../object/type.js';

const MAX_HEADER = 32;
/** Bytes of a loose file read for its header (a deflate block's own header can take a few hundred); a longer file is read in chunks. */
const PREFIX = 64 * 1024;
const CHUNK = 1 << 20;

export interface LooseHeader {
  type: ObjectTypeCode;
  size: number;
  headerLength: number;
}

export class LooseObjects {
  /** Per fan-out directory, the names present (lazily listed, as git's loose-object cache). */
  private listed: (Set<string> | undefined)[] = new Array(256);
  /** Per fan-out directory, its ids in sorted order, made from `listed` when first searched. */
  private sorted: (Buffer | undefined)[] = new Array(256);

  /** The stream writeStreamed() deflates with, made on first use. */
  private deflater: DeflateStream | null = null;

  /** `level`: zlib's for writes; git's core.loosecompression defaults to 1 (best speed). */
  constructor(readonly dir: string, private readonly inflater: Inflater, private readonly level = 1) {}

  pathOf(oid: Uint8Array, off = 0): string {
    const hex = toHex(oid, off);
    return path.join(this.dir, hex.slice(0, 2), hex.slice(2));
  }

  has(oid: Uint8Array, off = 0): boolean {
    const first = oid[off]!;
    let set = this.listed[first];
    if (!set) set = this.listed[first] = this.list(first);
    return set.has(toHex(oid, off + 1, OID_BYTES - 1));
  }

  /** Forgets the directory listings, after objects were written by someone else. */
  refresh(): void {
    this.listed = new Array(256);
    this.sorted = new Array(256);
  }

  private list(first: number): Set<string> {
    const sub = path.join(this.dir, first.toString(16).padStart(2, '0'));
    try {
      return new Set(fs.readdirSync(sub).filter(n => n.length === 38));
    } catch {
      return new Set();
    }
  }

  /** All loose ids, sorted, 20 bytes each. */
  allIds(): Buffer {
    return Buffer.concat(Array.from({ length: 256 }, (_, i) => this.sortedIds(i)));
  }

  /**
   * Calls `fn` with each loose id whose first `digits` hex digits (2 or more: one fan-out
   * directory holds them all) are those of the id at `key`, in sorted order.
   */
  forEachWithPrefix(key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void {
    const ids = this.sortedIds(key[keyOff]!), count = ids.length / OID_BYTES;
    forEachSharingPrefix(ids, (i) => i * OID_BYTES, 0, count, count, key, keyOff, digits, fn);
  }

  /** The ids in fan-out directory `first`, sorted, 20 bytes each (names that are not hex left out). */
  private sortedIds(first: number): Buffer {
    let ids = this.sorted[first];
    if (ids) return ids;
    const set = this.listed[first] ?? (this.listed[first] = this.list(first));
    const names = [...set].sort();
    ids = Buffer.alloc(names.length * OID_BYTES);
    let n = 0;
    for (const name of names) {
      ids[n * OID_BYTES] = first;
      if (ids.write(name, n * OID_BYTES + 1, OID_BYTES - 1, 'hex') === OID_BYTES - 1) n++;
    }
    ids = ids.subarray(0, n * OID_BYTES);
    this.sorted[first] = ids;
    return ids;
  }

  /**
   * The object's file: all of it, or (`prefix`) its first PREFIX bytes when it is longer, which
   * hold the header. null when there is no such object.
   */
  private readFile(oid: Uint8Array, off: number, prefix = false): { file: string; raw: Buffer; size: number; fd: number } | null {
    const file = this.pathOf(oid, off);
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    try {
      const size = fs.fstatSync(fd).size;
      const want = prefix ? Math.min(size, PREFIX) : size;
      const raw = Buffer.allocUnsafe(want);
      readExactly(fd, raw, 0, want, 0, (got) => new CorruptError('odb', `${file}: loose object shrank to ${got} bytes while being read`));
      return { file, raw, size, fd };
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  private parseHeader(raw: Buffer, file: string): LooseHeader {
    const head = Buffer.allocUnsafe(MAX_HEADER);
    const n = this.inflater.inflatePrefix(raw, 0, raw.length, head, MAX_HEADER, 'odb', () => file);
    const nul = head.subarray(0, n).indexOf(0);
    const sp = head.subarray(0, n).indexOf(0x20);
    if (nul < 0 || sp < 0 || sp > nul) throw new CorruptError('odb', `${file}: loose object has a bad header`);
    const type = typeCode(head.toString('latin1', 0, sp));
    const sizeText = head.toString('latin1', sp + 1, nul);
    if (!type || !/^(0|[1-9][0-9]*)$/.test(sizeText)) {
      throw new CorruptError('odb', `${file}: loose object has a bad header "${head.toString('latin1', 0, nul)}"`);
    }
    return { type, size: Number(sizeText), headerLength: nul + 1 };
  }

  /** The object's type and size, from the first bytes of its file. */
  header(oid: Uint8Array, off = 0): LooseHeader | null {
    const f = this.readFile(oid, off, true);
    if (!f) return null;
    try {
      return this.parseHeader(f.raw, f.file);
    } finally {
      fs.closeSync(f.fd);
    }
  }

  /**
   * The object. A file over PREFIX bytes is inflated a chunk at a time into the object's buffer,
   * so a big object is held once, not also as its compressed file.
   */
  read(oid: Uint8Array, off = 0): RawObject | null {
    const f = this.readFile(oid, off, true);
    if (!f) return null;
    try {
      const h = this.parseHeader(f.raw, f.file);
      if (beyondInflateRatio(h.size, f.size)) {
        throw new CorruptError('odb', `${f.file}: header declares ${h.size} bytes, more than its ${f.size} compressed bytes can hold`);
      }
      const total = h.headerLength + h.size;
      const out = Buffer.allocUnsafe(total + 1);
      const where = (): string => `${f.file}: object header says ${h.size} bytes`;
      if (f.raw.length === f.size) {
        this.inflater.inflateInto(f.raw, 0, f.raw.length, out, 0, total, 'odb', where);
      } else {
        // Inflated in place: each piece lands where it belongs in `out`.
        this.inflateFile(f.fd, f.size, f.raw, total, (produced) => out.subarray(produced), () => {}, where);
      }
      return { type: h.type, data: out.subarray(h.headerLength, total) };
    } finally {
      fs.closeSync(f.fd);
    }
  }

  /**
   * The object's content handed to `sink` in pieces as its file is inflated a chunk at a time
   * (for an object too big to hold twice); its type, or null when there is no such object.
   */
  readInPieces(oid: Uint8Array, off: number, sink: (piece: Uint8Array) => void): ObjectTypeCode | null {
    const f = this.readFile(oid, off, true);
    if (!f) return null;
    try {
      const h = this.parseHeader(f.raw, f.file);
      const piece = Buffer.allocUnsafe(CHUNK);
      let seen = 0;
      // The header comes out first: only what follows it is the content.
      this.inflateFile(f.fd, f.size, f.raw, h.headerLength + h.size, () => piece, (part) => {
        const skip = Math.max(0, Math.min(part.length, h.headerLength - seen));
        seen += part.length;
        if (skip < part.length) sink(part.subarray(skip));
      }, () => `${f.file}: object header says ${h.size} bytes`);
      return h.type;
    } finally {
      fs.closeSync(f.fd);
    }
  }

  /**
   * Inflates the file open at `fd` (`size` bytes, `first` its start) to `total` bytes, reading it a
   * chunk at a time: each piece is inflated into `target(produced so far)` and handed to `sink`.
   */
  private inflateFile(fd: number, size: number, first: Buffer, total: number, target: (produced: number) => Buffer,
    sink: (piece: Uint8Array) => void, where: () => string): void {
    const inflater = this.inflater;
    let chunk = first, at = 0, produced = 0;
    inflater.begin();
    for (;;) {
      const len = Math.min(chunk.length, size - at);
      if (at > 0) readExactly(fd, chunk, 0, len, at, () => new CorruptError('odb', `${where()}: the file shrank while being read`));
      at += inflater.feed(chunk, 0, len, total, produced, target(produced), (part) => {
        produced += part.length;
        sink(part);
      }, 'odb', where);
      if (inflater.ended) return;
      if (at >= size) throw new CorruptError('odb', `${where()}: zlib: unexpected end of file`);
      if (chunk === first) chunk = Buffer.allocUnsafe(CHUNK);
    }
  }

  /** Writes an object unless it exists; returns its id. */
  write(type: ObjectTypeCode, data: Uint8Array): Buffer {
    const header = objectHeader(typeName(type), data.length);
    // An object already here is not written again (hashing it first costs less than deflating it).
    const id = crypto.createHash('sha1').update(header).update(data).digest();
    if (this.has(id)) return id;
    this.place(this.deflateToTemp(header, data.length, (sink) => sink(data)), id);
    return id;
  }

  /**
   * Writes an object of `size` bytes whose content `produce` hands to its sink in pieces (which
   * must come to `size` bytes): hashed and deflated as they come into a temporary file, renamed
   * into place once the id is known, as git's stream_loose_object does, so an object too big to
   * hold twice is never whole in memory. Returns the id.
   */
  writeStreamed(type: ObjectTypeCode, size: number, produce: (sink: (piece: Uint8Array) => void) => void): Buffer {
    const header = objectHeader(typeName(type), size);
    const hash = crypto.createHash('sha1').update(header);
    const tmp = this.deflateToTemp(header, size, (sink) => produce((piece) => {
      hash.update(piece);
      sink(piece);
    }));
    const id = hash.digest();
    this.place(tmp, id);
    return id;
  }

  /** Deflates `header` and the `size` bytes `produce` hands over into a new temporary file; its path. */
  private deflateToTemp(header: Buffer, size: number, produce: (sink: (piece: Uint8Array) => void) => void): string {
    const tmp = path.join(this.dir, `tmp_obj_${process.pid}_${crypto.randomBytes(6).toString('hex')}`);
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
    let fd: number;
    try {
      fd = fs.openSync(tmp, flags, 0o444);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      fs.mkdirSync(this.dir, { recursive: true });
      fd = fs.openSync(tmp, flags, 0o444);
    }
    try {
      const deflater = this.deflater ??= new DeflateStream(this.level);
      const out = (chunk: Uint8Array): void => writeExactly(fd, chunk);
      let produced = 0;
      deflater.begin();
      deflater.push(header, out);
      produce((piece) => {
        produced += piece.length;
        deflater.push(piece, out);
      });
      if (produced !== size) throw new Error(`loose object of ${size} bytes was given ${produced}`);
      deflater.end(out);
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    fs.closeSync(fd);
    return tmp;
  }

  /** Renames the temporary file `tmp` into place as object `id`, or drops it when that is here already. */
  private place(tmp: string, id: Buffer): void {
    try {
      if (this.has(id)) {
        fs.rmSync(tmp, { force: true });
        return;
      }
      const file = this.pathOf(id);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    this.listed[id[0]!]?.add(toHex(id, 1, OID_BYTES - 1));
  }
}
