// Writing one index entry's file: a regular file (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0666 or 0777
// less the umask, as git's create_file), a symlink holding its target as text (or, with
// core.symlinks=false, a regular file holding it), or the empty directory of an uninitialised
// submodule. The entry's stat data is taken from the file just written, as git's checkout does,
// so that `git status` trusts it without reading the file again.
import fs from 'node:fs';
import { GitError } from '../../core/errors.js';
import type { IndexEntry } from '../index-file/entry.js';
import { ioError, type DirectoryCache } from './directories.js';
import { displayPath } from './path-check.js';
import type { PlanFile } from './plan.js';

const CREATE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
const NS = 1000000000n;
const LOW32 = 0xffffffffn;

/** Copies the stat fields git keeps into `e` (times split into seconds and nanoseconds). */
export function fillStat(e: IndexEntry, st: fs.BigIntStats): void {
  const c = st.ctimeNs, m = st.mtimeNs;
  const cs = c / NS, ms = m / NS;
  e.ctimeSec = Number(cs);
  e.ctimeNsec = Number(c - cs * NS);
  e.mtimeSec = Number(ms);
  e.mtimeNsec = Number(m - ms * NS);
  e.dev = Number(st.dev & LOW32);
  e.ino = Number(st.ino & LOW32);
  e.uid = Number(st.uid);
  e.gid = Number(st.gid);
  e.size = Number(st.size & LOW32);
  e.uptodate = true;
}

export class EntryWriter {
  constructor(private readonly dirs: DirectoryCache, private readonly force: boolean) {}

  /** Creates `file` exclusively, replacing what is there only when forced. Returns the fd. */
  private create(file: PlanFile, mode: number): number {
    for (let attempt = 0; ; attempt++) {
      try {
        return fs.openSync(file.fsPath, CREATE, mode);
      } catch (e) {
        this.onExisting(file, e, attempt);
      }
    }
  }

  /** After EEXIST: with force, remove the obstacle once and retry; otherwise refuse. */
  private onExisting(file: PlanFile, e: unknown, attempt: number): void {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ELOOP') throw ioError('create', file.entry.path, e);
    if (!this.force || attempt > 0) {
      throw new GitError('worktree', 'collision', `'${displayPath(file.entry.path)}' already exists in the work tree; not overwriting it without -f`);
    }
    this.dirs.remove(file.fsPath);
    this.dirs.ensure(file.dir);
  }

  /** Writes a regular file (or a symlink's text, when symlinks are off) and records its stat. */
  writeFile(file: PlanFile, data: Uint8Array, executable: boolean): void {
    this.dirs.ensure(file.dir);
    const fd = this.create(file, executable ? 0o777 : 0o666);
    try {
      let off = 0;
      while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
      fillStat(file.entry, fs.fstatSync(fd, { bigint: true }));
    } catch (e) {
      throw ioError('write', file.entry.path, e);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Creates a symlink whose target is `target` as given (git stops at a NUL, and so do we). */
  writeSymlink(file: PlanFile, target: Uint8Array): void {
    this.dirs.ensure(file.dir);
    const nul = target.indexOf(0);
    const text = Buffer.from(target.buffer, target.byteOffset, nul >= 0 ? nul : target.length);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.symlinkSync(text, file.fsPath);
        break;
      } catch (e) {
        this.onExisting(file, e, attempt);
      }
    }
    fillStat(file.entry, fs.lstatSync(file.fsPath, { bigint: true }));
  }

  /** The empty directory git leaves for a submodule that is not checked out. */
  writeGitlink(file: PlanFile): void {
    this.dirs.ensure(file.dir);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.mkdirSync(file.fsPath, 0o777);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
          const st = fs.lstatSync(file.fsPath);
          if (st.isDirectory()) break; // an existing (perhaps populated) submodule is left alone
        }
        this.onExisting(file, e, attempt);
      }
    }
    fillStat(file.entry, fs.lstatSync(file.fsPath, { bigint: true }));
  }
}
