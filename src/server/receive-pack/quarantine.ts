// The quarantine (git's tmp-objdir.c): a push's objects are written into
// objects/tmp_objdir-incoming-XXXXXX, which the repository does not read, and moved into objects/
// only once every check has passed. Hooks see it through GIT_QUARANTINE_PATH,
// GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES, as git sets them. Moving is git's
// finalize_object_file (a hard link, then the temporary name removed; an object that exists
// already stays as it is), with pack files in git's order so that a reader who finds an .idx
// finds its pack: .keep, .pack, .rev, .idx, anything else. Whatever stays behind goes with the
// directory.
//
// A process killed mid-push (kill -9, a serve worker cut off with its client) cannot remove its
// quarantine. So its name carries the pid of the process that made it
// (tmp_objdir-incoming-<pid>-XXXXXX), and the next push to the repository, or the server that saw
// the worker die, removes those whose process is gone.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { finalizeObjectFile } from '../../core/finalize-file.js';
import { processRunning } from '../../core/process-running.js';

const PREFIX = 'tmp_objdir-incoming-';

/**
 * Removes the quarantines in `objectsDir` made by processes that no longer run (all of `pid`'s,
 * when given: a worker the caller saw die). Quarantines of running processes, and git's own
 * (no pid in the name), are left alone.
 */
export function removeAbandoned(objectsDir: string, pid?: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(objectsDir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^tmp_objdir-incoming-(\d+)-/.exec(n);
    if (!m) continue;
    const owner = Number(m[1]);
    if (pid !== undefined ? owner !== pid : owner === process.pid || processRunning(owner)) continue;
    try {
      fs.rmSync(path.join(objectsDir, n), { recursive: true, force: true });
    } catch {
      // Not ours to remove after all (permissions): the next sweep tries again.
    }
  }
}

export class Quarantine {
  private removed = false;

  private constructor(readonly dir: string, private readonly objectsDir: string) {}

  static create(objectsDir: string): Quarantine {
    removeAbandoned(objectsDir);
    try {
      const dir = fs.mkdtempSync(path.join(objectsDir, `${PREFIX}${process.pid}-`));
      fs.mkdirSync(path.join(dir, 'pack'));
      return new Quarantine(dir, objectsDir);
    } catch (e) {
      throw new GitError('server', 'io', `unable to create temporary object directory in ${objectsDir}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The variables git gives hooks (and its own helpers) while objects are in quarantine. */
  env(parent: NodeJS.ProcessEnv): Record<string, string> {
    const alternates = [this.objectsDir, ...(parent.GIT_ALTERNATE_OBJECT_DIRECTORIES ? [parent.GIT_ALTERNATE_OBJECT_DIRECTORIES] : [])];
    return {
      GIT_QUARANTINE_PATH: this.dir,
      GIT_OBJECT_DIRECTORY: this.dir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates.join(':'),
    };
  }

  /** Moves every object into the repository; the quarantine is gone afterwards. */
  migrate(): void {
    if (this.removed) throw new GitError('server', 'internal', `${this.dir}: quarantine already removed`);
    try {
      this.migrateDir(this.dir, this.objectsDir);
    } catch (e) {
      throw new GitError('server', 'io', `unable to migrate objects to permanent storage: ${(e as Error).message}`, { cause: e });
    }
    this.remove();
  }

  /** Removes the quarantine and whatever is in it (a rejected or failed push). */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private migrateDir(from: string, to: string): void {
    const entries = fs.readdirSync(from, { withFileTypes: true });
    entries.sort((a, b) => priority(a.name) - priority(b.name) || (a.name < b.name ? -1 : 1));
    let made = false;
    for (const e of entries) {
      const src = path.join(from, e.name), dst = path.join(to, e.name);
      if (e.isDirectory()) {
        this.migrateDir(src, dst);
        continue;
      }
      // Temporary files of a writer that stopped half-way are not objects.
      if (e.name.startsWith('tmp_')) continue;
      if (!made) {
        fs.mkdirSync(to, { recursive: true });
        made = true;
      }
      finalizeObjectFile(src, dst);
    }
  }
}

/** git's pack_copy_priority. */
function priority(name: string): number {
  if (!name.startsWith('pack')) return 0;
  if (name.endsWith('.keep')) return 1;
  if (name.endsWith('.pack')) return 2;
  if (name.endsWith('.rev')) return 3;
  if (name.endsWith('.idx')) return 4;
  return 5;
}

