// Directories of a checkout, each created once. A directory is trusted (files may be created
// inside it by path) only if this checkout made it, or found it and checked with lstat that it is
// a real directory and not a symlink. Removing anything forgets every trusted directory but the
// root: git's CVE-2021-21300 and gitoxide's GHSA-f89h-2fjh-2r9q both came from a cache that
// still trusted a directory after it had been replaced by a symlink.
import fs from 'node:fs';
import { GitError } from '../../core/errors.js';
import type { PlanDir } from './plan.js';
import { displayPath } from './path-check.js';

export class DirectoryCache {
  private readonly trusted: Uint8Array;
  /** Directories this checkout created (for the report and tests). */
  created = 0;

  constructor(private readonly dirs: readonly PlanDir[], private readonly force: boolean) {
    this.trusted = new Uint8Array(dirs.length);
    this.trusted[0] = 1;
  }

  /** Makes sure directory `d` and its parents exist and are trusted. */
  ensure(d: number): void {
    if (this.trusted[d]) return;
    const chain: number[] = [];
    for (let k = d; !this.trusted[k]; k = this.dirs[k]!.parent) chain.push(k);
    for (let i = chain.length - 1; i >= 0; i--) this.make(chain[i]!);
  }

  /** Call after removing anything from the work tree. */
  forget(): void {
    this.trusted.fill(0);
    this.trusted[0] = 1;
  }

  /** Removes whatever is at `fsPath` (a file, a symlink, a directory tree) and forgets the cache. */
  remove(fsPath: string | Buffer): void {
    this.forget();
    fs.rmSync(fsPath, { recursive: true, force: true });
  }

  private make(k: number): void {
    const dir = this.dirs[k]!;
    try {
      fs.mkdirSync(dir.fsPath, 0o777);
      this.created++;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create directory', dir.path, e);
      const st = fs.lstatSync(dir.fsPath);
      if (!st.isDirectory()) {
        if (!this.force) {
          throw new GitError('worktree', 'collision',
            `cannot create directory '${displayPath(dir.path)}': a ${st.isSymbolicLink() ? 'symbolic link' : 'file'} of that name is in the way`);
        }
        this.remove(dir.fsPath);
        this.ensure(dir.parent);
        try {
          fs.mkdirSync(dir.fsPath, 0o777);
        } catch (e2) {
          throw ioError('create directory', dir.path, e2);
        }
        this.created++;
      }
    }
    this.trusted[k] = 1;
  }
}

export function ioError(what: string, path: Uint8Array, e: unknown): GitError {
  return new GitError('worktree', 'io', `unable to ${what} '${displayPath(path)}': ${(e as Error).message}`, { cause: e });
}
