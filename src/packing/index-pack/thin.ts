// --fix-thin: a thin pack's REF_DELTAs may name bases the sender knew we had. As git does, walk
// the still unresolved REF_DELTAs in pack order; for each, read its base from the repository
// (checking that it hashes to its id), append it to the pack as a whole object (zlib level of
// core.compression, git's default 1), and resolve everything that descends from it before looking
// at the next, so each base appended is one that was still needed. Then the header gets the new
// count and the pack a new trailer, hashed over the file as it now is.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { crc32 } from '../../core/crc32.js';
import { CorruptError } from '../../core/errors.js';
import { hashObject } from '../../core/hash.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { typeName } from '../../object/type.js';
import type { ObjectChecker } from './check.js';
import type { ObjectLookup } from './connectivity.js';
import type { PackParser } from './parse.js';
import { Resolver, type ResolveShared } from './resolve.js';
import type { ObjectTable } from './tables.js';

export interface ThinContext {
  table: ObjectTable;
  parser: PackParser;
  shared: ResolveShared;
  lookup: ObjectLookup | null;
  name: string;
  packPath: string;
  level: number;
  onProgress: () => void;
  writeAt: (bytes: Uint8Array, offset: number) => void;
}

export interface ThinResult {
  appended: number;
  packHash: Buffer;
  entriesEnd: number;
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
  const { table, parser, name } = ctx;
  const count = parser.count;
  let end = parser.pos;
  let n = count;
  let resolver: Resolver | null = null;
  try {
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
      ctx.writeAt(header, end);
      ctx.writeAt(compressed, end + header.length);
      table.ensure(n + 1);
      table.offset[n] = end;
      end += header.length + compressed.length;
      table.offset[n + 1] = end;
      table.headerLength[n] = header.length;
      table.type[n] = base.type;
      table.realType[n] = base.type;
      table.size[n] = base.data.length;
      table.crc[n] = crc32(compressed, 0, compressed.length, crc32(header));
      table.ids.set(id, n * OID_BYTES);
      table.base[n] = -1;
      table.depth[n] = 0;
      table.state[n] = 1;
      n++;
      const shared: ResolveShared = { ...ctx.shared, table: table.shared(), count: n };
      if (resolver) resolver.attach(shared);
      else resolver = new Resolver(shared, ctx.onProgress);
      if (resolver.checker && shared.connectivity) resolver.index.insert(n - 1);
      resolver.resolveFrom(n - 1, false);
      resolver.flush();
    }
  } finally {
    resolver?.close();
  }
  const appended = n - count;
  if (!appended) return { appended, packHash: parser.packHash!, entriesEnd: end, checker: null };
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(parser.version, 4);
  header.writeUInt32BE(n, 8);
  ctx.writeAt(header, 0);
  const packHash = hashFile(ctx.packPath, end);
  ctx.writeAt(packHash, end);
  return { appended, packHash, entriesEnd: end, checker: resolver?.checker ?? null };
}

/** SHA-1 of the first `length` bytes of a file, read in large pieces. */
function hashFile(file: string, length: number): Buffer {
  const hash = crypto.createHash('sha1');
  const buf = Buffer.allocUnsafe(4 << 20);
  const fd = fs.openSync(file, 'r');
  try {
    for (let pos = 0; pos < length;) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, length - pos), pos);
      if (n === 0) throw new CorruptError('pack', `${file}: ends at ${pos} bytes, before the ${length} just written`);
      hash.update(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest();
}
