// A pack in objects/pack that failed git's checks when opened: its index could not be read, or the
// pack does not match it (truncated, rewritten, another pack's trailer). git keeps such a pack in
// its list and tries to open it again each time a lookup finds the object in its index (or, with
// no index, each time a lookup reaches it), printing why it cannot each time; lookups go on to the
// other packs, the loose objects and the alternates (packfile.c: fill_pack_entry, is_pack_valid).
import { CorruptError } from '../core/errors.js';
import type { PackIndex } from '../pack/idx/read.js';
import { PackOpenError } from '../pack/open-error.js';

/** What git says of a pack it cannot open: which file, and its sentence given the file's shown name. */
export interface PackProblem {
  readonly file: string;
  readonly describe: (shown: string) => string;
}

/**
 * The problem behind an error from opening a pack, or null for one git passes over in silence (a
 * file it cannot open: git_open() failing returns without a message). Anything else is no problem
 * of the pack's: null too, but the caller rethrows it.
 */
export function problemOf(e: unknown): PackProblem | null {
  if (e instanceof PackOpenError) return e;
  if (e instanceof CorruptError) return { file: '', describe: () => e.message };
  return null;
}

/** Whether `e` is an error from the filesystem (a file missing or unreadable), not a bug. */
export function isFileError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).syscall !== undefined;
}

export class UnusablePack {
  constructor(
    /** pack-<checksum>, as StoredPack.name. */
    readonly name: string,
    readonly idxPath: string,
    readonly packPath: string,
    /** The pack's size when the directory was listed: it must still have it when opened. */
    readonly listedSize: number,
    /** The index, when it could be read: lookups ask it whether the pack would have held the object. */
    public index: PackIndex | null,
    /** Why the last attempt failed; null when git would say nothing. */
    public problem: PackProblem | null,
  ) {}
}
