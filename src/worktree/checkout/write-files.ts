// The second pass of a checkout: the planned entries, in index order, read from the object
// database, converted, and written; each entry's stat data lands in the stat table.
import { GitError } from '../../core/errors.js';
import { MODE_EXEC, MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { convertToWorkTree } from '../convert.js';
import type { ConversionPlan } from './conversions.js';
import { DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import { entryOid, entryPath, type CheckoutPlan } from './plan.js';
import type { CheckoutSettings } from './settings.js';
import { EntryWriter } from './write-entry.js';

/**
 * Writes the plan's entries (all of them, or those `which` lists, ascending) and records their
 * stat data in `stats`. With `force`, whatever is in the way is removed; otherwise it is an error.
 */
export function writePlannedFiles(odb: ObjectDatabase, plan: CheckoutPlan, stats: Uint32Array, which: readonly number[] | null,
  conversions: ConversionPlan | null, settings: CheckoutSettings, force: boolean,
  progress?: (done: number, total: number) => void): { directories: number } {
  const dirs = new DirectoryCache(plan.dirs, force);
  const writer = new EntryWriter(plan, stats, dirs, force);
  const total = which ? which.length : plan.count;
  for (let k = 0; k < total; k++) {
    const i = which ? which[k]! : k;
    const mode = plan.modes[i]!;
    if (mode === MODE_GITLINK) {
      writer.writeGitlink(i);
    } else {
      const oid = entryOid(plan, i);
      let data: Buffer;
      try {
        data = odb.mustRead(oid, 0, OBJ_BLOB).data;
      } catch (err) {
        throw new GitError('worktree', 'bad-object', `cannot check out '${displayPath(entryPath(plan, i))}': ${(err as Error).message}`, { cause: err });
      }
      if (mode === MODE_SYMLINK) {
        if (settings.symlinks) writer.writeSymlink(i, data);
        else writer.writeFile(i, data, false);
      } else {
        const conv = conversions?.perFile[i];
        if (conv) data = convertToWorkTree(data, oid, conv, settings);
        writer.writeFile(i, data, mode === MODE_EXEC);
      }
    }
    progress?.(k + 1, total);
  }
  return { directories: dirs.created };
}
