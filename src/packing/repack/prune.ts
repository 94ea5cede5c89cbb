// repack -d: once the new pack is in place, the packs it replaces go (git's
// remove_redundant_pack: the .pack and every companion), except any pack with a .keep, and the
// loose objects a pack now holds go too (git's prune-packed), with fan-out directories left empty.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import type { PackIndex } from '../../pack/idx/read.js';

const COMPANIONS = ['.pack', '.idx', '.rev', '.bitmap', '.promisor', '.mtimes'];

/** The pack-<hash> names (no extension) in `packDir`, and which of them carry a .keep. */
export function listPacks(packDir: string): { name: string; kept: boolean }[] {
  let names: string[];
  try {
    names = fs.readdirSync(packDir);
  } catch {
    return [];
  }
  const all = new Set(names);
  return names.filter(n => n.startsWith('pack-') && n.endsWith('.pack'))
    .map(n => n.slice(0, -5))
    .map(name => ({ name, kept: all.has(`${name}.keep`) }));
}

/** Removes packs `names` (never one with a .keep, never `except`); returns how many went. */
export function removePacks(packDir: string, names: readonly string[], except: string): number {
  let removed = 0;
  for (const name of names) {
    if (name === except || fs.existsSync(path.join(packDir, `${name}.keep`))) continue;
    // The .idx goes first so no reader finds an index whose pack is gone.
    for (const ext of ['.idx', ...COMPANIONS.filter(e => e !== '.idx')]) {
      const f = path.join(packDir, name + ext);
      try {
        fs.unlinkSync(f);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new GitError('pack', 'io', `cannot remove ${f}: ${(e as Error).message}`, { cause: e });
        }
      }
    }
    removed++;
  }
  return removed;
}

/** Removes each loose object that one of `indexes` holds; returns how many went. */
export function removePackedLoose(objectsDir: string, indexes: readonly PackIndex[]): number {
  let removed = 0;
  const id = Buffer.allocUnsafe(OID_BYTES);
  for (let b = 0; b < 256; b++) {
    const prefix = b.toString(16).padStart(2, '0');
    const dir = path.join(objectsDir, prefix);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      if (n.length !== 2 * OID_BYTES - 2 || id.write(prefix + n, 'hex') !== OID_BYTES) continue;
      if (!indexes.some(ix => ix.find(id, 0) >= 0)) continue;
      fs.unlinkSync(path.join(dir, n));
      removed++;
    }
    // Like prune-packed, leave no empty fan-out directory behind (rmdir fails when it is not).
    try {
      fs.rmdirSync(dir);
    } catch { /* not empty */ }
  }
  return removed;
}
