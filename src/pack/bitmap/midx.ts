// The multi-pack-index, as far as its bitmap needs it: the sorted ids of every object in the packs
// it covers (its "index order"), which pack and offset each was taken from, and its pseudo-pack
// order (the order of a MIDX bitmap's bits) from the RIDX chunk or, as older git wrote it, from a
// multi-pack-index-<checksum>.rev file.
//
// Layout: "MIDX", u8 version 1, u8 hash id 1, u8 chunk count, u8 base count 0, u32 pack count;
// then (chunks + 1) x (u32 id, u64 offset) ending in id 0; chunks PNAM (NUL-terminated .idx
// names), OIDF (fan-out), OIDL (ids), OOFF (u32 pack, u32 offset per object), LOFF (u64 large
// offsets), RIDX (u32 index position per pseudo-pack position); the file's SHA-1 last.
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError } from '../../core/errors.js';
import { compareOid, OID_BYTES, toHex } from '../../core/oid.js';
import { PackOrder } from './pack-order.js';

const SIGNATURE = 0x4d494458; // "MIDX"
const HEADER = 12;
const CHUNK = { PNAM: 0x504e414d, OIDF: 0x4f494446, OIDL: 0x4f49444c, OOFF: 0x4f4f4646, LOFF: 0x4c4f4646, RIDX: 0x52494458 };

export class MultiPackIndex {
  readonly count: number;
  readonly packNames: string[];
  private readonly fanoutAt: number;
  private readonly oidsAt: number;
  private readonly offsetsAt: number;
  private readonly largeAt: number;
  private readonly largeCount: number;
  private readonly ridxAt: number;

  constructor(readonly buf: Buffer, readonly path: string) {
    const bad = (what: string) => new CorruptError('pack', `${path}: ${what}`);
    if (buf.length < HEADER + 12 + 20) throw bad(`multi-pack-index is truncated (${buf.length} bytes)`);
    if (buf.readUInt32BE(0) !== SIGNATURE) throw bad('not a multi-pack-index (bad signature)');
    if (buf[4] !== 1) throw bad(`unsupported multi-pack-index version ${buf[4]}`);
    if (buf[5] !== 1) throw bad(`unsupported hash id ${buf[5]} (only SHA-1 is supported)`);
    if (buf[7] !== 0) throw bad(`incremental multi-pack-index chains (${buf[7]} base files) are not supported`);
    const chunkCount = buf[6]!;
    const packCount = buf.readUInt32BE(8);
    const end = buf.length - 20;
    if (HEADER + 12 * (chunkCount + 1) > end) throw bad('chunk table runs past the end of the file');
    const chunks = new Map<number, { at: number; size: number }>();
    for (let k = 0; k < chunkCount; k++) {
      const row = HEADER + 12 * k;
      const id = buf.readUInt32BE(row);
      const at = buf.readUInt32BE(row + 4) * 2 ** 32 + buf.readUInt32BE(row + 8);
      const next = buf.readUInt32BE(row + 16) * 2 ** 32 + buf.readUInt32BE(row + 20);
      if (id === 0 || at > next || next > end) throw bad(`chunk ${k} (id ${id.toString(16)}) has bad bounds ${at}..${next}`);
      chunks.set(id, { at, size: next - at });
    }
    const need = (id: number, name: string) => {
      const c = chunks.get(id);
      if (!c) throw bad(`required chunk ${name} is missing`);
      return c;
    };
    const fanout = need(CHUNK.OIDF, 'OIDF');
    if (fanout.size !== 1024) throw bad(`OIDF chunk has ${fanout.size} bytes, not 1024`);
    this.fanoutAt = fanout.at;
    let prev = 0;
    for (let i = 0; i < 256; i++) {
      const v = buf.readUInt32BE(fanout.at + 4 * i);
      if (v < prev) throw bad(`fan-out table is not monotonic at entry ${i}`);
      prev = v;
    }
    const n = this.count = prev;
    const oids = need(CHUNK.OIDL, 'OIDL');
    if (oids.size !== n * OID_BYTES) throw bad(`OIDL chunk has ${oids.size} bytes for ${n} objects`);
    this.oidsAt = oids.at;
    const offsets = need(CHUNK.OOFF, 'OOFF');
    if (offsets.size !== n * 8) throw bad(`OOFF chunk has ${offsets.size} bytes for ${n} objects`);
    this.offsetsAt = offsets.at;
    const large = chunks.get(CHUNK.LOFF);
    this.largeAt = large ? large.at : -1;
    this.largeCount = large ? Math.floor(large.size / 8) : 0;
    const ridx = chunks.get(CHUNK.RIDX);
    if (ridx && ridx.size !== n * 4) throw bad(`RIDX chunk has ${ridx.size} bytes for ${n} objects`);
    this.ridxAt = ridx ? ridx.at : -1;
    const names = need(CHUNK.PNAM, 'PNAM');
    this.packNames = [];
    let p = names.at;
    const namesEnd = names.at + names.size;
    for (let k = 0; k < packCount; k++) {
      const z = buf.indexOf(0, p);
      if (z < 0 || z >= namesEnd) throw bad(`PNAM chunk ends before pack name ${k}`);
      this.packNames.push(buf.toString('utf8', p, z));
      p = z + 1;
    }
  }

  /** The multi-pack-index in `packDir`, or null when there is none. */
  static open(packDir: string): MultiPackIndex | null {
    const p = path.join(packDir, 'multi-pack-index');
    let buf: Buffer;
    try {
      buf = fs.readFileSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return new MultiPackIndex(buf, p);
  }

  /** The file's own checksum: what a bitmap made for it records in its header. */
  packChecksum(): Buffer {
    return this.buf.subarray(this.buf.length - 20);
  }

  /** Position of the id in index order, or -1. */
  find(oid: Uint8Array, oidOffset = 0): number {
    const first = oid[oidOffset]!;
    let lo = first === 0 ? 0 : this.buf.readUInt32BE(this.fanoutAt + 4 * (first - 1));
    let hi = this.buf.readUInt32BE(this.fanoutAt + 4 * first);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareOid(this.buf, this.oidsAt + mid * OID_BYTES, oid, oidOffset);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1; else hi = mid;
    }
    return -1;
  }

  oidAt(i: number): number {
    return this.oidsAt + i * OID_BYTES;
  }

  oid(i: number): Buffer {
    return this.buf.subarray(this.oidAt(i), this.oidAt(i) + OID_BYTES);
  }

  /** Which pack (index into packNames) the object was taken from. */
  packOf(i: number): number {
    return this.buf.readUInt32BE(this.offsetsAt + 8 * i);
  }

  offset(i: number): number {
    const v = this.buf.readUInt32BE(this.offsetsAt + 8 * i + 4);
    if (this.largeAt < 0 || !(v & 0x80000000)) return v;
    const k = v & 0x7fffffff;
    if (k >= this.largeCount) throw new CorruptError('pack', `${this.path}: object ${toHex(this.oid(i))} points at large offset ${k}, table has ${this.largeCount}`);
    return this.buf.readUInt32BE(this.largeAt + 8 * k) * 2 ** 32 + this.buf.readUInt32BE(this.largeAt + 8 * k + 4);
  }

  /** Pseudo-pack order, from the RIDX chunk or the .rev file beside the multi-pack-index. */
  order(): PackOrder {
    if (this.ridxAt >= 0) {
      const toIndex = new Uint32Array(this.count);
      for (let pos = 0; pos < this.count; pos++) toIndex[pos] = this.buf.readUInt32BE(this.ridxAt + 4 * pos);
      return PackOrder.fromPositions(toIndex, `${this.path} (RIDX chunk)`);
    }
    const rev = path.join(path.dirname(this.path), `multi-pack-index-${toHex(this.packChecksum())}.rev`);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(rev);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new CorruptError('pack', `${this.path}: has no RIDX chunk and no ${path.basename(rev)}, so its bitmap order is unknown`);
      }
      throw e;
    }
    return PackOrder.fromRev(buf, this, rev);
  }
}
