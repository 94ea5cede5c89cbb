// Removing tracked files from the work tree, as git's check_updates does for the entries it
// drops (unlink_entry, then remove_scheduled_dirs).
import fs from 'node:fs';
import { GitError } from '../../core/errors.js';
import { MODE_GITLINK } from '../../object/tree.js';
import { displayPath } from '../checkout/path-check.js';
import type { IndexEntry } from '../index-file/entry.js';
import { LeadingPathCheck } from './leading-path.js';

/**
 * Removes tracked files (and submodule directories, when empty) whose leading directories are
 * real, then the directories the removals emptied, deepest first, as git does.
 */
export function removeTrackedFiles(root: string, entries: readonly IndexEntry[]): number {
  const leading = new LeadingPathCheck(root);
  const emptied = new Set<string>();
  let removed = 0;
  for (const e of entries) {
    if (!leading.safe(e.path)) continue; // a symlink or nothing where a directory was: leave it
    const p = leading.fsPath(e.path);
    try {
      if (e.mode === MODE_GITLINK) fs.rmdirSync(p);
      else fs.unlinkSync(p);
      removed++;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') {
        throw new GitError('worktree', 'io', `unable to remove '${displayPath(e.path)}': ${(err as Error).message}`, { cause: err });
      }
    }
    for (let slash = e.path.lastIndexOf(0x2f); slash > 0; slash = e.path.lastIndexOf(0x2f, slash - 1)) {
      emptied.add(Buffer.from(e.path.subarray(0, slash)).toString('latin1'));
    }
  }
  const dirs = [...emptied].sort((a, b) => b.length - a.length);
  for (const d of dirs) {
    try {
      fs.rmdirSync(leading.fsPath(Buffer.from(d, 'latin1')));
    } catch {
      // not empty (untracked files, or entries still to come): it stays
    }
  }
  return removed;
}
