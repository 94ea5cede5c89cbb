// What a failed clone must take back (git's remove_junk): the directory it created, or, when the
// user handed it an existing empty directory, only what it put inside. Nothing else is touched.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';

export class JunkDirectory {
  private armed = true;

  private constructor(readonly dir: string, private readonly created: boolean) {}

  /**
   * Takes `dir` for a clone: creates it (and missing parents, which are not junk, as in git) or
   * accepts it when it exists and is empty. Refuses anything else.
   */
  static claim(dir: string, shown: string): JunkDirectory {
    let entries: string[] | null = null;
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory()) throw alreadyExists(shown);
      entries = fs.readdirSync(dir);
    } catch (e) {
      if (e instanceof GitError) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (entries !== null) {
      if (entries.length > 0) throw alreadyExists(shown);
      return new JunkDirectory(dir, false);
    }
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      fs.mkdirSync(dir);
    } catch (e) {
      throw new GitError('client', 'io', `could not create work tree dir '${shown}': ${(e as Error).message}`, { cause: e });
    }
    return new JunkDirectory(dir, true);
  }

  /** The clone succeeded: keep everything. */
  keep(): void {
    this.armed = false;
  }

  /**
   * Removes what the clone made, unless keep() was called. Safe to call again: work still running
   * after an interrupt (index-pack finishing its pack) may have recreated directories.
   */
  remove(): void {
    if (!this.armed) return;
    if (this.created) {
      fs.rmSync(this.dir, { recursive: true, force: true });
      return;
    }
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) fs.rmSync(path.join(this.dir, name), { recursive: true, force: true });
  }
}

function alreadyExists(shown: string): GitError {
  return new GitError('client', 'exists', `destination path '${shown}' already exists and is not an empty directory.`);
}
