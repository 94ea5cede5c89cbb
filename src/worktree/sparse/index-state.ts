// How git 2.39 sees the skip-worktree bits of an index it reads, and what it says when it cannot
// apply the sparse patterns to a path.
import fs from 'node:fs';
import type { Config } from '../../config/index.js';
import { CE_SKIP_WORKTREE, type IndexEntry } from '../index-file/entry.js';

export const isSkipped = (e: IndexEntry): boolean => (e.extendedFlags & CE_SKIP_WORKTREE) !== 0;

/**
 * git's clear_skip_worktree_from_present_files, run whenever it reads the index of a sparse work
 * tree (core.sparseCheckout, unless sparse.expectFilesOutsideOfPatterns): a skip-worktree entry
 * whose file is there after all is an ordinary entry again, so that its content counts (a change
 * to it is a local change, not something to drop). Whatever a path holds counts as its file.
 */
export function clearSkipOfPresentFiles(entries: readonly IndexEntry[], config: Config, fsPath: (rel: Uint8Array) => Buffer): void {
  if (!config.getBool('core', null, 'sparsecheckout')) return;
  if (config.getBool('sparse', null, 'expectfilesoutsideofpatterns')) return;
  // A missing directory answers for everything under it, as git's path_found caches it.
  const missingDirs = new Set<string>();
  for (const e of entries) {
    if (!isSkipped(e)) continue;
    const slash = e.path.lastIndexOf(0x2f);
    const dir = slash > 0 ? Buffer.from(e.path.subarray(0, slash)).toString('latin1') : '';
    if (dir && missingDirs.has(dir)) continue;
    try {
      fs.lstatSync(fsPath(e.path));
      e.extendedFlags &= ~CE_SKIP_WORKTREE;
    } catch {
      if (dir) {
        try {
          fs.lstatSync(fsPath(e.path.subarray(0, slash)));
        } catch {
          missingDirs.add(dir);
        }
      }
    }
  }
}

/** The paths git could not bring in line with the patterns, each list in index order. */
export interface SparseRejects {
  /** Modified files left outside the patterns. */
  notUpToDate?: string[];
  /** Unmerged paths left as they are. */
  unmerged?: string[];
  /** Paths inside the patterns where something already was. */
  alreadyPresent?: string[];
}

/**
 * git's display_warning_msgs after a checkout or a change of the patterns, then its advice. As
 * written to stderr, without the last newline of each message.
 */
export function sparseWarnings(rejects: SparseRejects): string[] {
  const out: string[] = [];
  const list = (title: string, paths: string[] = []): void => {
    if (paths.length) out.push(`warning: ${title}\n${paths.map(p => `\t${p}\n`).join('')}`);
  };
  list('The following paths are not up to date and were left despite sparse patterns:', rejects.notUpToDate);
  list('The following paths are unmerged and were left despite sparse patterns:', rejects.unmerged);
  list('The following paths were already present and thus not updated despite sparse patterns:', rejects.alreadyPresent);
  if (out.length) out.push('After fixing the above paths, you may want to run `git sparse-checkout reapply`.');
  return out;
}
