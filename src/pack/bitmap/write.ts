// Serializes a pack bitmap (v1) the way git's bitmap_writer_finish() lays it out: header, the four
// type bitmaps, the entries in the order given (git: selection order, newest first), then the
// lookup table and name-hash cache when asked for, and the SHA-1 of it all. Each entry is stored
// XORed with whichever of the 10 entries before it makes it smallest, or plain if none does.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { sha1 } from '../../core/hash.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../../object/type.js';
import type { PackIndex } from '../idx/read.js';
import { Bitset } from './bitset.js';
import { encodeEwah, encodeEwahXor, ewahWordCount } from './ewah.js';
import { BITMAP_OPT_FULL_DAG, BITMAP_OPT_HASH_CACHE, BITMAP_OPT_LOOKUP_TABLE, type TypeBitmaps } from './read.js';

const MAX_XOR_SEARCH = 10;

export interface BitmapEntry {
  /** The commit's index position. */
  commit: number;
  /** Everything reachable from it, as pack positions. */
  bits: Bitset;
}

export interface BitmapWriteInput {
  index: PackIndex;
  types: TypeBitmaps;
  entries: readonly BitmapEntry[];
  /** One name hash per object in index order; adds the name-hash cache. */
  nameHashes?: Uint32Array;
  lookupTable?: boolean;
}

/** Type bitmaps from a type code (OBJ_COMMIT..OBJ_TAG) per pack position. */
export function typeBitmapsFrom(types: Uint8Array): TypeBitmaps {
  const n = types.length;
  const out: TypeBitmaps = { commits: new Bitset(n), trees: new Bitset(n), blobs: new Bitset(n), tags: new Bitset(n) };
  for (let pos = 0; pos < n; pos++) {
    switch (types[pos]) {
      case OBJ_COMMIT: out.commits.add(pos); break;
      case OBJ_TREE: out.trees.add(pos); break;
      case OBJ_BLOB: out.blobs.add(pos); break;
      case OBJ_TAG: out.tags.add(pos); break;
      default: throw new GitError('pack', 'corrupt', `object at pack position ${pos} has no object type (${types[pos]})`);
    }
  }
  return out;
}

export function writeBitmap(input: BitmapWriteInput): Buffer {
  const { index, types, entries } = input;
  const n = index.count;
  if (input.nameHashes && input.nameHashes.length !== n) {
    throw new RangeError(`name hashes: ${input.nameHashes.length} given for ${n} objects`);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  const push = (b: Uint8Array) => { parts.push(b); size += b.length; };

  const header = Buffer.alloc(32);
  header.write('BITM', 0, 'latin1');
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(BITMAP_OPT_FULL_DAG | (input.nameHashes ? BITMAP_OPT_HASH_CACHE : 0)
    | (input.lookupTable ? BITMAP_OPT_LOOKUP_TABLE : 0), 6);
  header.writeUInt32BE(entries.length, 8);
  index.packChecksum().copy(header, 12);
  push(header);
  for (const t of [types.commits, types.trees, types.blobs, types.tags]) push(encodeEwah(t, t.last() + 1));

  const offsets = new Float64Array(entries.length);
  const xorOffsets = new Uint8Array(entries.length);
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]!;
    if (e.commit < 0 || e.commit >= n) throw new RangeError(`entry ${k}: commit index position ${e.commit} outside 0..${n - 1}`);
    let best = ewahWordCount(e.bits), bestOffset = 0;
    for (let j = 1; j <= MAX_XOR_SEARCH && k - j >= 0; j++) {
      const words = ewahWordCount(e.bits, entries[k - j]!.bits);
      if (words < best) { best = words; bestOffset = j; }
    }
    const head = Buffer.alloc(6);
    head.writeUInt32BE(e.commit, 0);
    head[4] = bestOffset;
    offsets[k] = size;
    xorOffsets[k] = bestOffset;
    push(head);
    if (bestOffset) {
      const base = entries[k - bestOffset]!.bits;
      push(encodeEwahXor(e.bits, base));
    } else {
      push(encodeEwah(e.bits));
    }
  }

  if (input.lookupTable) push(lookupTable(entries, offsets, xorOffsets));
  if (input.nameHashes) {
    const cache = Buffer.alloc(4 * n);
    for (let i = 0; i < n; i++) cache.writeUInt32BE(input.nameHashes[i]!, 4 * i);
    push(cache);
  }
  const body = Buffer.concat(parts, size);
  return Buffer.concat([body, sha1(body)], size + 20);
}

/** Rows sorted by commit index position; XOR bases named by row, not by relative offset. */
function lookupTable(entries: readonly BitmapEntry[], offsets: Float64Array, xorOffsets: Uint8Array): Buffer {
  const m = entries.length;
  const rows = new Int32Array(m);
  for (let k = 0; k < m; k++) rows[k] = k;
  rows.sort((a, b) => entries[a]!.commit - entries[b]!.commit);
  const rowOf = new Int32Array(m);
  for (let r = 0; r < m; r++) rowOf[rows[r]!] = r;
  const out = Buffer.alloc(16 * m);
  for (let r = 0; r < m; r++) {
    const k = rows[r]!;
    out.writeUInt32BE(entries[k]!.commit, 16 * r);
    out.writeUInt32BE(Math.floor(offsets[k]! / 2 ** 32), 16 * r + 4);
    out.writeUInt32BE(offsets[k]! % 2 ** 32, 16 * r + 8);
    out.writeUInt32BE(xorOffsets[k] ? rowOf[k - xorOffsets[k]!]! : 0xffffffff, 16 * r + 12);
  }
  return out;
}

/** Writes the bitmap next to its pack through a temporary file, read-only, as git leaves it. */
export function writeBitmapFile(bitmapPath: string, bytes: Uint8Array): void {
  const tmp = path.join(path.dirname(bitmapPath), `tmp_bitmap_${process.pid}_${Date.now()}`);
  fs.writeFileSync(tmp, bytes, { mode: 0o444, flag: 'wx' });
  try {
    fs.renameSync(tmp, bitmapPath);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
