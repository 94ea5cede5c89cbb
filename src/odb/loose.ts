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
import { writeExactly } from '../core/write-exactly.js';
import { typeCode, typeName, type RawObject, type ObjectTypeCode } from '../object/type.js';

const MAX_HEADER = 32;

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

  constructor(readonly dir: string, private readonly inflater: Inflater) {}

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

  private readFile(oid: Uint8Array, off: number): { file: string; raw: Buffer } | null {
    const file = this.pathOf(oid, off);
    try {
      return { file, raw: fs.readFileSync(file) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
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

  header(oid: Uint8Array, off = 0): LooseHeader | null {
    const f = this.readFile(oid, off);
    return f && this.parseHeader(f.raw, f.file);
  }

  read(oid: Uint8Array, off = 0): RawObject | null {
    const f = this.readFile(oid, off);
    if (!f) return null;
    const h = this.parseHeader(f.raw, f.file);
    if (beyondInflateRatio(h.size, f.raw.length)) {
      throw new CorruptError('odb', `${f.file}: header declares ${h.size} bytes, more than its ${f.raw.length} compressed bytes can hold`);
    }
    const total = h.headerLength + h.size;
    const out = Buffer.allocUnsafe(total + 1);
    this.inflater.inflateInto(f.raw, 0, f.raw.length, out, 0, total, 'odb', () => `${f.file}: object header says ${h.size} bytes`);
    return { type: h.type, data: out.subarray(h.headerLength, total) };
  }

  /** Writes an object unless it exists; returns its id. */
  write(type: ObjectTypeCode, data: Uint8Array): Buffer {
    // An object already here is not written again (hashing it first costs less than deflating it).
    const id = crypto.createHash('sha1').update(objectHeader(typeName(type), data.length)).update(data).digest();
    if (this.has(id)) return id;
    return this.writeStreamed(type, data.length, (sink) => sink(data));
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
    fs.mkdirSync(this.dir, { recursive: true });
    const tmp = path.join(this.dir, `tmp_obj_${process.pid}_${crypto.randomBytes(6).toString('hex')}`);
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o444);
    let id: Buffer;
    try {
      const deflater = this.deflater ??= new DeflateStream();
      const out = (chunk: Uint8Array): void => writeExactly(fd, chunk);
      let produced = 0;
      deflater.begin();
      deflater.push(header, out);
      produce((piece) => {
        produced += piece.length;
        hash.update(piece);
        deflater.push(piece, out);
      });
      if (produced !== size) throw new Error(`loose object of ${size} bytes was given ${produced}`);
      deflater.end(out);
      id = hash.digest();
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    fs.closeSync(fd);
    try {
      if (this.has(id)) {
        fs.rmSync(tmp, { force: true });
        return id;
      }
      const file = this.pathOf(id);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    this.listed[id[0]!]?.add(toHex(id, 1, OID_BYTES - 1));
    return id;
  }

}
