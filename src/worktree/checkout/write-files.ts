// The second pass of a checkout: the planned entries read from the object database, converted,
// and written, each entry's stat data landing in the stat table. One entry at a time here
// (writeEntry), in index order on this thread (writePlannedFiles) or spread over worker threads
// (parallel.ts).
import { GitError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { MODE_EXEC, MODE_GITLINK, MODE_SYMLINK } from '../../object/tree.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { CODE_ENCODE_FAILED, conversionFromCode, convertToWorkTree, type Conversion, type EolSettings } from '../convert.js';
import { BlobReader } from './blob-reader.js';
import { DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import { entryOid, entryPath, type CheckoutPlan, type EntryColumns } from './plan.js';
import { EntryWriter } from './write-entry.js';
import { FilteredWriter, type FilteredEntries, type FilterSession } from './write-filtered.js';

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
  if (mode === MODE_SYMLINK) {
    const data = readBlob(blobs, cols, i);
    if (settings.symlinks) writer.writeSymlink(i, data);
    else writer.writeFile(i, data, false);
    return;
  }
  const executable = mode === MODE_EXEC;
  // A big blob that nothing converts is written as it is inflated, never held whole.
  if (conversionOf(codes, settings, i) === null && blobs.streamable(cols.oids, i * OID_BYTES, i)) {
    writer.writeFile(i, (write) => {
      try {
        blobs.stream(write);
      } catch (err) {
        throw cannotCheckOut(cols, i, err);
      }
    }, executable);
    return;
  }
  writer.writeFile(i, workTreeBytes(blobs, cols, codes, settings, i), executable);
}

function cannotCheckOut(cols: EntryColumns, i: number, err: unknown): GitError {
  return new GitError('worktree', 'bad-object', `cannot check out '${displayPath(entryPath(cols, i))}': ${(err as Error).message}`, { cause: err });
}

/** The conversions (ident, eol, encoding) the plan gives regular file i, or null for none. */
function conversionOf(codes: Uint8Array | null, settings: WriteSettings, i: number): Conversion | null {
  return codes ? conversionFromCode(codes[i]!, settings.encodings?.get(i)) : null;
}

function readBlob(blobs: BlobReader, cols: EntryColumns, i: number): Buffer {
  try {
    return blobs.readEntry(cols.oids, i * OID_BYTES, i);
  } catch (err) {
    throw cannotCheckOut(cols, i, err);
  }
}

/**
 * Regular file i's blob converted as the plan says (ident, eol, encoding), before any filter: what
 * it is written as, or (`filtered`) what a smudge filter is given. An encoding that fails is marked
 * in `codes` for checkoutMessages(). It may live in the reader's reused buffer.
 */
export function workTreeBytes(blobs: BlobReader, cols: EntryColumns, codes: Uint8Array | null, settings: WriteSettings, i: number,
  filtered = false): Buffer {
  const data = readBlob(blobs, cols, i);
  const conv = conversionOf(codes, settings, i);
  return conv ? convertToWorkTree(data, entryOid(cols, i), conv, settings, () => { codes![i] |= CODE_ENCODE_FAILED; }, filtered) : data;
}

/** The filtered entries of a plan and the filters to write them with (see write-filtered.ts). */
export interface FilterPass {
  filtered: FilteredEntries;
  session: FilterSession;
}

/**
 * Writes the plan's entries (all of them, or those `which` lists, ascending) on this thread and
 * records their stat data in `stats`. With `force`, whatever is in the way is removed; otherwise
 * it is an error. Entries a filter smudges go through it in their turn; the delayed ones are
 * written at the end. `unfiltered` counts those a filter never delivered (reported).
 */
export async function writePlannedFiles(odb: ObjectStore, plan: CheckoutPlan, stats: Uint32Array, which: readonly number[] | null,
  codes: Uint8Array | null, settings: WriteSettings, force: boolean, progress?: (done: number, total: number) => void,
  filters: FilterPass | null = null): Promise<{ directories: number; unfiltered: number }> {
  const dirs = new DirectoryCache(plan.dirs, force);
  const writer = new EntryWriter(plan, stats, dirs, force);
  const blobs = new BlobReader(odb);
  const total = which ? which.length : plan.count;
  let done = 0;
  const written = (): void => progress?.(++done, total);
  const marks = filters?.filtered.marks ?? null;
  const filtering = filters
    ? new FilteredWriter(plan, i => workTreeBytes(blobs, plan, codes, settings, i, true), writer, filters.filtered, filters.session, written)
    : null;
  let unfiltered = 0;
  try {
    for (let k = 0; k < total; k++) {
      const i = which ? which[k]! : k;
      if (marks?.[i]) {
        await filtering!.submit(i);
        continue;
      }
      writeEntry(blobs, plan, codes, settings, writer, i);
      written();
    }
    if (filtering) unfiltered = filtering.finish();
  } finally {
    blobs.close();
  }
  return { directories: dirs.created, unfiltered };
}
