// The second pass of a checkout: the planned entries read from the object database, converted,
// and written, each entry's stat data landing in the stat table. One entry at a time here
// (writeEntry), in index order on this thread (writePlannedFiles) or spread over worker threads
// (parallel.ts).
import { GitError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { MODE_EXEC, MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import type { ObjectDatabase } from '../../odb/database.js';
import { CODE_ENCODE_FAILED, conversionFromCode, convertToWorkTree, type EolSettings } from '../convert.js';
import { BlobReader } from './blob-reader.js';
import { DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import { entryOid, entryPath, type CheckoutPlan, type EntryColumns } from './plan.js';
import { EntryWriter } from './write-entry.js';

export interface WriteSettings extends EolSettings {
  /** core.symlinks: false writes a symlink's target into a plain file. */
  symlinks: boolean;
  /** The working-tree-encoding of each entry that has one (conversions.ts), by entry index. */
  encodings?: ReadonlyMap<number, string>;
}

/** Reads, converts and writes entry i (a file or symlink; submodules go through writeGitlink). */
export function writeEntry(blobs: BlobReader, cols: EntryColumns, codes: Uint8Array | null, settings: WriteSettings,
  writer: EntryWriter, i: number): void {
  const mode = cols.modes[i]!;
  if (mode === MODE_GITLINK) {
    writer.writeGitlink(i);
    return;
  }
  let data: Buffer;
  try {
    data = blobs.readEntry(cols.oids, i * OID_BYTES, i);
  } catch (err) {
    throw new GitError('worktree', 'bad-object', `cannot check out '${displayPath(entryPath(cols, i))}': ${(err as Error).message}`, { cause: err });
  }
  if (mode === MODE_SYMLINK) {
    if (settings.symlinks) writer.writeSymlink(i, data);
    else writer.writeFile(i, data, false);
    return;
  }
  const conv = codes ? conversionFromCode(codes[i]!, settings.encodings?.get(i)) : null;
  if (conv) data = convertToWorkTree(data, entryOid(cols, i), conv, settings, () => { codes![i] |= CODE_ENCODE_FAILED; });
  writer.writeFile(i, data, mode === MODE_EXEC);
}

/**
 * Writes the plan's entries (all of them, or those `which` lists, ascending) on this thread and
 * records their stat data in `stats`. With `force`, whatever is in the way is removed; otherwise
 * it is an error.
 */
export function writePlannedFiles(odb: ObjectDatabase, plan: CheckoutPlan, stats: Uint32Array, which: readonly number[] | null,
  codes: Uint8Array | null, settings: WriteSettings, force: boolean,
  progress?: (done: number, total: number) => void): { directories: number } {
  const dirs = new DirectoryCache(plan.dirs, force);
  const writer = new EntryWriter(plan, stats, dirs, force);
  const blobs = new BlobReader(odb);
  const total = which ? which.length : plan.count;
  try {
    for (let k = 0; k < total; k++) {
      writeEntry(blobs, plan, codes, settings, writer, which ? which[k]! : k);
      progress?.(k + 1, total);
    }
  } finally {
    blobs.close();
  }
  return { directories: dirs.created };
}
