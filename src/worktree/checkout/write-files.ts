// The second pass of a checkout: the planned files, in index order, read from the object
// database, converted, and written; each entry's stat data lands in its index entry.
import { GitError } from '../../core/errors.js';
import { MODE_EXEC, MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import { OBJ_BLOB } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { convertToWorkTree } from '../convert.js';
import type { ConversionPlan } from './conversions.js';
import { DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import type { CheckoutPlan } from './plan.js';
import type { CheckoutSettings } from './settings.js';
import { EntryWriter } from './write-entry.js';

/**
 * Writes plan.files (all of them, or those whose positions `which` lists, ascending). With
 * `force`, whatever is in the way is removed; otherwise it is an error.
 */
export function writePlannedFiles(odb: ObjectDatabase, plan: CheckoutPlan, which: readonly number[] | null,
  conversions: ConversionPlan | null, settings: CheckoutSettings, force: boolean,
  progress?: (done: number, total: number) => void): { directories: number } {
  const dirs = new DirectoryCache(plan.dirs, force);
  const writer = new EntryWriter(dirs, force);
  const files = plan.files;
  const total = which ? which.length : files.length;
  for (let k = 0; k < total; k++) {
    const i = which ? which[k]! : k;
    const file = files[i]!;
    const e = file.entry;
    if (e.mode === MODE_GITLINK) {
      writer.writeGitlink(file);
    } else {
      let data: Buffer;
      try {
        data = odb.mustRead(e.oid, 0, OBJ_BLOB).data;
      } catch (err) {
        throw new GitError('worktree', 'bad-object', `cannot check out '${displayPath(e.path)}': ${(err as Error).message}`, { cause: err });
      }
      if (e.mode === MODE_SYMLINK) {
        if (settings.symlinks) writer.writeSymlink(file, data);
        else writer.writeFile(file, data, false);
      } else {
        const conv = conversions?.perFile[i];
        if (conv) data = convertToWorkTree(data, e.oid, conv, settings);
        writer.writeFile(file, data, e.mode === MODE_EXEC);
      }
    }
    progress?.(k + 1, total);
  }
  return { directories: dirs.created };
}
