// Writing one index entry's file: a regular file (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0666 or 0777
// less the umask, as git's create_file), a symlink holding its target as text (or, with
// core.symlinks=false, a regular file holding it), or the empty directory of an uninitialised
// submodule. The entry's stat data is taken from the file just written, as git's checkout does,
// so that `git status` trusts it without reading the file again.
import fs from 'node:fs';
import { writeExactly } from '../../core/write-exactly.js';
import { GitError } from '../../core/errors.js';
import { ioError, type DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import { entryFsPath, entryPath, type EntryColumns } from './plan.js';
import { fstatInto } from './fstat.js';
import { recordStat, STAT_FIELDS } from './stat-table.js';

const CREATE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/** A file's content: one buffer, the chunks a filter gave, or a producer that writes its pieces in turn. */
export type FileContent = Uint8Array | readonly Uint8Array[] | ((write: (piece: Uint8Array) => void) => void);

/**
 * Writes entries of a plan. With a directory cache it creates parent directories as needed; without
 * one (the worker threads) the caller has created them all, and anything in the way is an error.
 */
export class EntryWriter {
  constructor(private readonly plan: EntryColumns, private readonly stats: Uint32Array,
    private readonly dirs: DirectoryCache | null, private readonly force: boolean) {}

  /** Creates entry i's file exclusively, replacing what is there only when forced. Returns the fd. */
  private create(i: number, fsPath: string | Buffer, mode: number): number {
    for (let attempt = 0; ; attempt++) {
      try {
        return fs.openSync(fsPath, CREATE, mode);
      } catch (e) {
        this.onExisting(i, fsPath, e, attempt);
      }
    }
  }

  /** After EEXIST: with force, remove the obstacle once and retry; otherwise refuse. */
  private onExisting(i: number, fsPath: string | Buffer, e: unknown, attempt: number): void {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ELOOP') throw ioError('create', entryPath(this.plan, i), e);
    if (!this.force || !this.dirs || attempt > 0) {
      throw new GitError('worktree', 'collision', `'${displayPath(entryPath(this.plan, i))}' already exists in the work tree; not overwriting it without -f`);
    }
    this.dirs.remove(fsPath);
    this.dirs.ensure(this.plan.dirOf[i]!);
  }

  /**
   * Writes a regular file (or a symlink's text, when symlinks are off) and records its stat. A
   * filter's output comes as the chunks it arrived in, written as they are; a big blob from a
   * function that hands each piece to `write` as it is inflated.
   */
  writeFile(i: number, data: FileContent, executable: boolean): void {
    this.dirs?.ensure(this.plan.dirOf[i]!);
    const fsPath = entryFsPath(this.plan, i);
    const fd = this.create(i, fsPath, executable ? 0o777 : 0o666);
    try {
      if (data instanceof Uint8Array) {
        writeExactly(fd, data);
      } else if (typeof data === 'function') {
        data((piece) => writeExactly(fd, piece));
      } else {
        writeChunks(fd, data);
      }
      fstatInto(fd, this.stats, i * STAT_FIELDS);
    } catch (e) {
      // What the content's producer refused (a corrupt object) says so itself.
      if (e instanceof GitError) throw e;
      throw ioError('write', entryPath(this.plan, i), e);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Creates a symlink whose target is `target` as given (git stops at a NUL, and so do we). */
  writeSymlink(i: number, target: Uint8Array): void {
    this.dirs?.ensure(this.plan.dirOf[i]!);
    const fsPath = entryFsPath(this.plan, i);
    const nul = target.indexOf(0);
    const text = Buffer.from(target.buffer, target.byteOffset, nul >= 0 ? nul : target.length);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.symlinkSync(text, fsPath);
        break;
      } catch (e) {
        this.onExisting(i, fsPath, e, attempt);
      }
    }
    recordStat(this.stats, i, fs.lstatSync(fsPath, { bigint: true }));
  }

  /** The empty directory git leaves for a submodule that is not checked out. */
  writeGitlink(i: number): void {
    this.dirs?.ensure(this.plan.dirOf[i]!);
    const fsPath = entryFsPath(this.plan, i);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.mkdirSync(fsPath, 0o777);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST' && fs.lstatSync(fsPath).isDirectory()) break; // an existing submodule is left alone
        this.onExisting(i, fsPath, e, attempt);
      }
    }
    recordStat(this.stats, i, fs.lstatSync(fsPath, { bigint: true }));
  }
}

/** writev until every chunk is written (a writev may stop short, as a write may). */
function writeChunks(fd: number, chunks: readonly Uint8Array[]): void {
  let k = 0, skip = 0;
  while (k < chunks.length) {
    const batch = chunks.slice(k, k + 1024);
    if (skip) batch[0] = batch[0]!.subarray(skip);
    let n = fs.writevSync(fd, batch as Uint8Array[]);
    while (k < chunks.length && n >= chunks[k]!.length - skip) {
      n -= chunks[k]!.length - skip;
      skip = 0;
      k++;
    }
    skip += n;
  }
}
