// `repack -a [-d] [-b]`: every object reachable from the refs, HEAD and reflogs into one new pack, reusing
// the deltas the old packs store, with its .idx (v2), .rev and optionally a .bitmap; then, with
// -d, the old packs and the loose objects now packed are removed, only after the new pack is in
// place. Objects of packs with a .keep stay there and are left out of the new pack, unless a
// bitmap is written: a bitmap needs every reachable object in its pack, so then (as git's
// repack.packKeptObjects defaults to when writing bitmaps) they are copied in too.
import fs from 'node:fs';
import path from 'node:path';
import type { ObjectDatabase } from '../../odb/database.js';
import type { RefStore } from '../../refs/store.js';
import { buildPackBitmap } from '../bitmap/build.js';
import { writeBitmapFile } from '../../pack/bitmap/write.js';
import { PackIndex } from '../../pack/idx/read.js';
import { PackFile } from '../../pack/pack-file.js';
import { fromHex } from '../../core/oid.js';
import type { Progress } from '../../core/progress.js';
import { enumerateForRepack, type RepackObjects } from './enumerate.js';
import { installPack, writeTempPack } from './install.js';
import { reflogTips } from './reflog-tips.js';
import { listPacks, removePackedLoose, removePacks } from './prune.js';

export interface RepackOptions {
  /** Keep what the reflogs of these git directories (every work tree's) name reachable too (git's repack does). */
  reflogsOf?: readonly string[];
  /** Keep these (hex ids: other work trees' HEADs and own refs) and what they reach too. */
  extraTips?: readonly string[];
  /** -d: remove the packs and loose objects the new pack makes redundant. */
  deleteRedundant?: boolean;
  /** -b: write a reachability bitmap. */
  bitmap?: boolean;
  /** Store the bitmap's name-hash cache (git's pack.writeBitmapHashCache, default true). */
  bitmapHashCache?: boolean;
  /** Store the bitmap's lookup table (git's pack.writeBitmapLookupTable, default false). */
  bitmapLookupTable?: boolean;
  /** Pack objects of kept packs too (default: only when writing a bitmap). */
  packKeptObjects?: boolean;
  /** zlib level for objects compressed afresh (pack.compression). */
  compression?: number;
  /** Threads for indexing the new pack. */
  threads?: number;
  progress?: Progress;
  /** Told what git's pack-objects says as it writes the pack (a stored entry that fails its CRC). */
  warn?: (text: string) => void;
}

export interface RepackResult {
  /** The new pack's hash, or null when nothing is reachable. */
  packHash: string | null;
  objects: number;
  deltas: number;
  reused: number;
  reusedDeltas: number;
  bitmap: boolean;
  removedPacks: number;
  removedLoose: number;
}

export async function repack(odb: ObjectDatabase, refs: RefStore, options: RepackOptions = {}): Promise<RepackResult> {
  const packDir = path.join(odb.objectsDir, 'pack');
  odb.refresh();
  const before = listPacks(packDir);
  const keptNames = new Set(before.filter(p => p.kept).map(p => p.name));
  const kept = odb.packs.filter(h => keptNames.has(h.name)).map(h => h.index);
  const packKept = options.packKeptObjects ?? options.bitmap === true;
  const skip = !packKept && kept.length > 0
    ? (ids: Uint8Array, off: number) => kept.some(ix => ix.find(ids, off) >= 0)
    : undefined;

  const meter = options.progress?.('Enumerating objects', 0);
  const tips = (options.reflogsOf ?? []).flatMap(dir => reflogTips(dir, id => odb.has(id)));
  for (const hex of options.extraTips ?? []) tips.push(fromHex(hex)!);
  const found = enumerateForRepack(odb, refs, tips, skip, n => meter?.update(n));
  meter?.stop();
  const result: RepackResult = {
    packHash: null, objects: 0, deltas: 0, reused: 0, reusedDeltas: 0, bitmap: false, removedPacks: 0, removedLoose: 0,
  };
  const packed: PackIndex[] = [...kept];
  if (found.objects.length > 0) {
    const written = await writeTempPack(odb, packDir, found.contents,
      { ofsDelta: true, progress: options.progress, compression: options.compression, warn: options.warn }, options.threads);
    const s = written.stats;
    Object.assign(result, { objects: s.total, deltas: s.deltas, reused: s.reused, reusedDeltas: s.reusedDeltas });
    const installed = installPack(packDir, written, (pack, idx) => {
      if (!options.bitmap) {
        // A pack written again under the same name keeps no bitmap it did not ask for (as git).
        fs.rmSync(`${pack.base}.bitmap`, { force: true });
        return;
      }
      const index = new PackIndex(idx, `${pack.base}.idx`);
      const file = new PackFile(`${pack.base}.pack`, index);
      try {
        const bytes = buildPackBitmap({
          pack: { index, file },
          read: (b, o) => odb.read(b, o),
          nameHashes: options.bitmapHashCache === false ? undefined : nameHashesInIndexOrder(found, index),
          lookupTable: options.bitmapLookupTable ?? false,
        });
        writeBitmapFile(`${pack.base}.bitmap`, bytes);
      } finally {
        file.close();
      }
      result.bitmap = true;
    });
    result.packHash = installed.hash;
    packed.push(new PackIndex(installed.idx, `${installed.base}.idx`));
  }
  if (options.deleteRedundant) {
    const newName = result.packHash ? `pack-${result.packHash}` : '';
    result.removedPacks = removePacks(packDir, before.map(p => p.name), newName);
    result.removedLoose = removePackedLoose(odb.objectsDir, packed);
  }
  odb.refresh();
  return result;
}

/** The walk's name hash of each object of `index`, in index order. */
function nameHashesInIndexOrder(found: RepackObjects, index: PackIndex): Uint32Array {
  const out = new Uint32Array(index.count);
  const ids = found.walk.ids;
  for (let i = 0; i < index.count; i++) {
    const idx = ids.get(index.buf, index.oidAt(i));
    out[i] = idx >= 0 ? found.nameHash[idx]! : 0;
  }
  return out;
}
