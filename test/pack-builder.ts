// Builds small packs and their .idx by hand, so tests can make the malformed packs that git itself
// refuses to write (bad deltas, wild offsets).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export interface RawEntry {
  /** 1-4 for whole objects, 6 OFS_DELTA, 7 REF_DELTA. */
  type: number;
  /** The size written in the entry header (normally the inflated length). */
  size?: number;
  data: Buffer;
  /** OFS_DELTA: index of the base entry (or `ofsDistance` to force a distance). */
  base?: number;
  ofsDistance?: number;
  /** REF_DELTA: base id. */
  baseOid?: Buffer;
  /** Id to record in the index (default: the SHA-1 of the object as a whole object). */
  oid?: Buffer;
  /** Replaces the zlib stream. */
  rawZlib?: Buffer;
}

const TYPE_NAMES = ['', 'commit', 'tree', 'blob', 'tag'];

export function objectId(type: number, data: Buffer): Buffer {
  return crypto.createHash('sha1').update(`${TYPE_NAMES[type]} ${data.length}\0`).update(data).digest();
}

function header(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let c = (type << 4) | (size & 15);
  size = Math.floor(size / 16);
  while (size > 0) {
    bytes.push(c | 0x80);
    c = size & 0x7f;
    size = Math.floor(size / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

function ofsBytes(distance: number): Buffer {
  const bytes = [distance & 0x7f];
  while ((distance >>= 7) > 0) {
    distance--;
    bytes.unshift(0x80 | (distance & 0x7f));
  }
  return Buffer.from(bytes);
}

export function deltaVarint(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

/** A pack of `entries` (with a header claiming `count` of them), and what its index needs. */
export function packBytes(entries: RawEntry[], opts: { count?: number } = {}): { data: Buffer; offsets: number[]; crcs: number[]; oids: Buffer[] } {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(12);
  head.write('PACK', 0);
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(opts.count ?? entries.length, 8);
  parts.push(head);
  let off = 12;
  const offsets: number[] = [], crcs: number[] = [], oids: Buffer[] = [];
  for (const e of entries) {
    const chunks = [header(e.type, e.size ?? e.data.length)];
    if (e.type === 6) chunks.push(ofsBytes(e.ofsDistance ?? off - offsets[e.base!]!));
    if (e.type === 7) chunks.push(e.baseOid!);
    chunks.push(e.rawZlib ?? zlib.deflateSync(e.data));
    const bytes = Buffer.concat(chunks);
    offsets.push(off);
    crcs.push(zlib.crc32(bytes));
    oids.push(e.oid ?? objectId(e.type < 5 ? e.type : 3, e.data));
    parts.push(bytes);
    off += bytes.length;
  }
  const body = Buffer.concat(parts);
  return { data: Buffer.concat([body, crypto.createHash('sha1').update(body).digest()]), offsets, crcs, oids };
}

/** Writes pack-<hash>.pack and .idx into `dir`; returns their paths and the entries' offsets. */
export function writePack(dir: string, entries: RawEntry[], opts: { count?: number } = {}): { pack: string; idx: string; offsets: number[]; oids: Buffer[] } {
  const { data: pack, offsets, crcs, oids } = packBytes(entries, opts);
  const trailer = pack.subarray(pack.length - 20);
  // idx v2
  const order = oids.map((_, i) => i).sort((a, b) => Buffer.compare(oids[a]!, oids[b]!));
  // One count per first byte, summed: filtering every id for each of the 256 entries was 8 s of a
  // 60,000-object pack.
  const fan = Buffer.alloc(1024);
  const firstBytes = new Array<number>(256).fill(0);
  for (const oid of oids) firstBytes[oid[0]!]!++;
  for (let b = 0, sum = 0; b < 256; b++) fan.writeUInt32BE(sum += firstBytes[b]!, b * 4);
  const idxBody = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fan,
    ...order.map(i => oids[i]!),
    ...order.map(i => { const b = Buffer.alloc(4); b.writeUInt32BE(crcs[i]! >>> 0); return b; }),
    ...order.map(i => { const b = Buffer.alloc(4); b.writeUInt32BE(offsets[i]!); return b; }),
    trailer,
  ]);
  const idx = Buffer.concat([idxBody, crypto.createHash('sha1').update(idxBody).digest()]);
  const name = `pack-${trailer.toString('hex')}`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name + '.pack'), pack);
  fs.writeFileSync(path.join(dir, name + '.idx'), idx);
  return { pack: path.join(dir, name + '.pack'), idx: path.join(dir, name + '.idx'), offsets, oids };
}

/** A delta that copies `copy` bytes from the base start and then inserts `insert`. */
export function makeDelta(baseSize: number, resultSize: number, copy: number, insert: Buffer): Buffer {
  const ops: Buffer[] = [deltaVarint(baseSize), deltaVarint(resultSize)];
  if (copy > 0) ops.push(Buffer.from([0x80 | 0x10 | 0x20, copy & 0xff, (copy >> 8) & 0xff]));
  if (insert.length) ops.push(Buffer.from([insert.length]), insert);
  return Buffer.concat(ops);
}

/** One instruction of a hand-made delta: copy (base offset, length), or insert these bytes. */
export type DeltaOp = { copy: [number, number] } | { insert: Buffer };

/** A delta from a base of `baseSize` bytes: copies (offset, length) and inserts, in order. */
export function deltaOf(baseSize: number, ops: DeltaOp[]): Buffer {
  const body: Buffer[] = [];
  let resultSize = 0;
  for (const op of ops) {
    if ('insert' in op) {
      for (let i = 0; i < op.insert.length; i += 127) {
        const part = op.insert.subarray(i, i + 127);
        body.push(Buffer.from([part.length]), part);
      }
      resultSize += op.insert.length;
      continue;
    }
    const [off, len] = op.copy;
    const bytes = [0x80];
    for (let i = 0; i < 4; i++) if ((off >>> (8 * i)) & 0xff) { bytes[0]! |= 1 << i; bytes.push((off >>> (8 * i)) & 0xff); }
    for (let i = 0; i < 3; i++) if ((len >>> (8 * i)) & 0xff) { bytes[0]! |= 0x10 << i; bytes.push((len >>> (8 * i)) & 0xff); }
    body.push(Buffer.from(bytes));
    resultSize += len;
  }
  return Buffer.concat([deltaVarint(baseSize), deltaVarint(resultSize), ...body]);
}

/** What applying `ops` to `base` gives. */
export function applyOps(base: Buffer, ops: DeltaOp[]): Buffer {
  return Buffer.concat(ops.map(op => ('insert' in op ? op.insert : base.subarray(op.copy[0], op.copy[0] + op.copy[1]))));
}
