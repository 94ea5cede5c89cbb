// git's lock-file protocol: create `<file>.lock` with O_EXCL (so exactly one writer wins), write
// the new content into it, then rename it over `<file>`. Readers see the old file or the new one,
// never a half-written one; a crashed writer leaves only a stale .lock behind. Refs, packed-refs,
// the index and config all take their locks here.
import fs from 'node:fs';
import { writeExactly } from './write-exactly.js';
import path from 'node:path';
import { GitError, type ErrorLayer } from './errors.js';

export class LockFile {
  private fd: number;
  private done = false;

  private constructor(readonly target: string, readonly lockPath: string, fd: number) {
    this.fd = fd;
  }

  /**
   * Takes the lock for `target`, creating missing parent directories unless `createParents` is
   * false (git's config writer does not). `what` names the thing being locked in the error ("ref
   * 'refs/heads/main'", "packed-refs", "config file <path>"), which is raised in `layer`, with
   * the system's error as its cause.
   */
  static acquire(target: string, what: string, layer: ErrorLayer = 'refs', { createParents = true } = {}): LockFile {
    const lockPath = target + '.lock';
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
    let fd: number;
    try {
      try {
        fd = fs.openSync(lockPath, flags, 0o666);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !createParents) throw e;
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fd = fs.openSync(lockPath, flags, 0o666);
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        throw new GitError(layer, 'locked', `cannot lock ${what}: Unable to create '${lockPath}': File exists. `
          + 'Another git process seems to be running in this repository; if it crashed, remove the file.', { cause: e });
      }
      throw new GitError(layer, 'io', `cannot lock ${what}: cannot create '${lockPath}': ${(e as Error).message}`, { cause: e });
    }
    return new LockFile(target, lockPath, fd);
  }

  write(data: string | Uint8Array): void {
    writeExactly(this.fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  /** Gives the new file these permission bits (config keeps the mode of the file it replaces). */
  chmod(mode: number): void {
    fs.fchmodSync(this.fd, mode);
  }

  /** Renames the lock over the target; the lock is released either way. */
  commit(): void {
    this.close();
    try {
      fs.renameSync(this.lockPath, this.target);
    } catch (e) {
      this.rollback();
      throw new GitError('core', 'io', `cannot rename '${this.lockPath}' to '${this.target}': ${(e as Error).message}`, { cause: e });
    }
    this.done = true;
  }

  /** Removes the lock without touching the target; does nothing after commit, so it fits `finally`. */
  rollback(): void {
    if (this.done) return;
    this.close();
    fs.rmSync(this.lockPath, { force: true });
    this.done = true;
  }

  private close(): void {
    if (this.fd >= 0) {
      fs.closeSync(this.fd);
      this.fd = -1;
    }
  }
}
