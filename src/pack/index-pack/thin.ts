// --fix-thin: a thin pack's REF_DELTAs may name bases the sender knew we had. As git does, walk
// the still unresolved REF_DELTAs in pack order; for each, read its base from the repository
// (checking that it hashes to its id), append it to the pack as a whole object (zlib level of
// core.compression, git's default 1), and resolve everything that descends from it before looking
// at the next, so each base appended is one that was still needed. The header count and trailer
// are then recomputed for the longer pack.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { CorruptError } from '../../core/errors.js';
import { hashObject } from '../../core/hash.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import type { ObjectChecker } from './check.js';
import type { ObjectLookup } from './connectivity.js';
import type { PackParser } from './parse.js';
import { Resolver, type ResolveShared } from './resolve.js';
import type { PackStore } from './store.js';
import type { ObjectTable } from './tables.js';

export interface ThinContext {
  store: PackStore;
  table: ObjectTable;
  parser: PackParser;
  shared: ResolveShared;
  lookup: ObjectLookup | null;
  name: string;
  level: number;
  onProgress: () => void;
}

export interface ThinResult {
  table: ObjectTable;
  appended: number;
  packHash: Buffer;
  checker: ObjectChecker | null;
}

/** Encodes a whole-object entry header: type and size as git's pack varint. */
export function entryHeader(type: number, size: number): Buffer {
  const out: number[] = [];
  let c = (type << 4) | (size % 16);
  let s = Math.floor(size / 16);
  while (s > 0) {
    out.push(c | 0x80);
    c = s % 128;
    s = Math.floor(s / 128);
  }
  out.push(c);
  return Buffer.from(out);
}

export function appendThinBases(ctx: ThinContext): ThinResult {
  const { store, parser, name } = ctx;
  let table = ctx.table;
  const count = parser.count;
  // Appended entries replace the old trailer.
  store.length = parser.pos;
  let n = count;
  let resolver: Resolver | null = null;
  for (let k = 0; k < parser.refCount; k++) {
    const d = parser.refObjects[k]!;
    if (table.state[d] !== 0) continue;
    const idAt = k * OID_BYTES;
    const base = ctx.lookup?.read(parser.refIds, idAt) ?? null;
    if (!base) continue;
    const id = parser.refIds.subarray(idAt, idAt + OID_BYTES);
    if (!hashObject(typeName(base.type), base.data).equals(id)) {
      throw new CorruptError('pack', `${name}: local object ${toHex(id)} is corrupt`);
    }
    const header = entryHeader(base.type, base.data.length);
    const compressed = zlib.deflateSync(base.data, { level: ctx.level });
    if (n >= table.capacity) table.ensure(n + 1, n);
    const off = store.length;
    store.append(header);
    store.append(compressed);
    table.offset[n] = off;
    table.offset[n + 1] = store.length;
    table.headerLength[n] = header.length;
    table.type[n] = base.type;
    table.realType[n] = base.type;
    table.size[n] = base.data.length;
    table.resultSize[n] = base.data.length;
    table.crc[n] = zlib.crc32(compressed, zlib.crc32(header));
    table.ids.set(id, n * OID_BYTES);
    table.base[n] = -1;
    table.depth[n] = 0;
    table.state[n] = 1;
    n++;
    const shared: ResolveShared = { ...ctx.shared, pack: store.buffer, packLength: store.length, table: table.shared(), count: n };
    if (resolver) resolver.attach(shared);
    else resolver = new Resolver(shared, ctx.onProgress);
    resolver.resolveFrom(n - 1);
    resolver.flush();
  }
  const appended = n - count;
  let packHash = parser.packHash!;
  if (appended) {
    const b = store.bytes;
    b[8] = (n >>> 24) & 0xff;
    b[9] = (n >>> 16) & 0xff;
    b[10] = (n >>> 8) & 0xff;
    b[11] = n & 0xff;
    packHash = crypto.createHash('sha1').update(b.subarray(0, store.length)).digest();
  }
  return { table, appended, packHash, checker: resolver?.checker ?? null };
}
