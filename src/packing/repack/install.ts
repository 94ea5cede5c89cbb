// Writing the new pack into objects/pack the way git's repack leaves it: the pack goes to a
// temporary file, is indexed (ids, offsets and CRCs come from index-pack's first pass over the
// written bytes, which also proves the pack whole before anything is renamed), then the files are
// renamed into place as pack-<hash>.*: the .pack, .rev and .bitmap first and the .idx last, since a
// reader only looks for a pack once its .idx exists. The .pack and .idx are read-only, as git's.
import fs from 'node:fs';
import { writeExactly } from '../../core/write-exactly.js';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { writeIdx } from '../../pack/idx/write.js';
import { runPasses, type PassResult } from '../index-pack/passes.js';
import { writeRev } from '../../pack/reverse-index/write.js';
import { writePack, type PackContents, type PackWriteOptions, type PackWriteStats } from '../write/write.js';

export interface WrittenPack {
  /** Temporary path of the .pack (renamed by installPack). */
  tmpPack: string;
  stats: PackWriteStats;
  indexed: PassResult;
}

/** Writes `contents` to a temporary pack in `packDir` and indexes it. */
export async function writeTempPack(odb: ObjectDatabase, packDir: string, contents: PackContents,
  options: Omit<PackWriteOptions, 'thin'>, threads?: number): Promise<WrittenPack> {
  fs.mkdirSync(packDir, { recursive: true });
  const tmpPack = tempPath(packDir, 'pack');
  const fd = fs.openSync(tmpPack, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o444);
  let ok = false;
  try {
    let stats: PackWriteStats;
    try {
      stats = await writePack(odb, contents, chunk => writeFully(fd, chunk, tmpPack), { ...options, thin: false });
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const indexed = await runPasses(tmpPack, { name: tmpPack, threads });
    if (indexed.count !== stats.total || !indexed.packHash.equals(stats.checksum)) {
      throw new GitError('pack', 'repack-mismatch',
        `${tmpPack}: wrote ${stats.total} objects with checksum ${toHex(stats.checksum)}, read back ${indexed.count} with ${toHex(indexed.packHash)}`);
    }
    ok = true;
    return { tmpPack, stats, indexed };
  } finally {
    if (!ok) fs.rmSync(tmpPack, { force: true });
  }
}

export interface InstalledPack {
  hash: string;
  /** objects/pack/pack-<hash> without an extension. */
  base: string;
  /** The bytes of the .idx written, so the caller need not read them back. */
  idx: Buffer;
}

/**
 * Renames the pack into place with its .rev and .idx; `beforeIndex` runs once the .pack is in
 * place (to write the .bitmap, which needs the installed pack) and before the .idx appears.
 */
export function installPack(packDir: string, written: WrittenPack,
  beforeIndex?: (installed: InstalledPack, idx: Buffer) => void): InstalledPack {
  const r = written.indexed;
  const hash = toHex(r.packHash);
  const base = path.join(packDir, `pack-${hash}`);
  const t = r.table;
  const idx = writeIdx({ count: r.count, ids: t.ids, crcs: t.crc, offsets: t.offset }, r.sorted, r.packHash);
  const rev = writeRev(r.sorted, t.offset, r.packHash);
  const installed = { hash, base, idx };
  fs.renameSync(written.tmpPack, `${base}.pack`);
  placeFile(`${base}.rev`, rev, 0o444);
  beforeIndex?.(installed, idx);
  placeFile(`${base}.idx`, idx, 0o444);
  return installed;
}

/** Writes `bytes` to a temporary file beside `dest` and renames it over `dest`. */
export function placeFile(dest: string, bytes: Uint8Array, mode: number): void {
  const tmp = tempPath(path.dirname(dest), path.extname(dest).slice(1));
  try {
    fs.writeFileSync(tmp, bytes, { mode, flag: 'wx' });
    fs.renameSync(tmp, dest);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new GitError('pack', 'io', `cannot write ${dest}: ${(e as Error).message}`, { cause: e });
  }
}

function tempPath(dir: string, ext: string): string {
  return path.join(dir, `.tmp-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-pack.${ext}`);
}

function writeFully(fd: number, chunk: Buffer, file: string): void {
  try {
    writeExactly(fd, chunk);
  } catch (e) {
    throw new GitError('pack', 'io', `cannot write ${file}: ${(e as Error).message}`, { cause: e });
  }
}
