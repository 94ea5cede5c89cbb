// Bringing an existing work tree and index in line with new sparse patterns, as git's
// update_sparsity does for `sparse-checkout set/add/reapply/disable` (no tree is merged):
//   an entry leaving the patterns loses its file, unless the file differs from the entry by its
//     stat data (git does not refresh first): then it stays, with a warning;
//   an entry coming back inside is written, unless something is already at its path (warned);
//   unmerged entries are left as they are, with a warning.
// Removals go first (emptied directories with them), then the writes, in index order, through
// the checkout's conversions and filters. Then, in cone mode, each directory wholly outside the
// cone that is still on disk is removed, unless something untracked is left in it (git's
// clean_tracked_sparse_directories).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { LockFile } from '../../core/lock-file.js';
import type { Progress } from '../../core/progress.js';
import { MODE_GITLINK } from '../../object/tree.js';
import type { Repository } from '../../repository/repository.js';
import { indexPath } from '../checkout.js';
import { displayPath } from '../checkout/path-check.js';
import { readCheckoutSettings } from '../checkout/settings.js';
import { indexEntriesPlan, planBlobs, writeIndexEntries } from '../checkout/entries-plan.js';
import { readFilterDrivers } from '../filter/driver.js';
import { FilterRunner } from '../filter/filters.js';
import { CE_SKIP_WORKTREE, entryStage, isRacy, type IndexEntry } from '../index-file/entry.js';
import { readIndexFile } from '../index-file/read.js';
import { IndexLock } from '../index-file/write.js';
import { CleanChecks, lstatOrNull } from '../switch/clean.js';
import { workTreeChecks } from '../switch/clean-filters.js';
import { smudgeRacyIfChanged } from '../switch/racy-smudge.js';
import { removeTrackedFiles } from '../switch/remove-files.js';
import { pathKey } from '../switch/tree-entries.js';
import { withConeAttributesOnly } from './inside-plan.js';
import { clearSkipOfPresentFiles, isSkipped, sparseWarnings } from './index-state.js';
import type { SparseMatcher } from './matcher.js';
import { sparseCheckoutFile } from './settings.js';

export interface SparsityOptions {
  env?: NodeJS.ProcessEnv;
  config: Config;
  /** Whether the index was read as that of a sparse work tree (present files lose the bit). */
  readAsSparse: boolean;
  progress?: Progress;
  log?: (message: string) => void;
  /**
   * Gets blobs (hex ids) the files to write need, before they are read: a partial clone fetches
   * those it lacks from its promisor remote, as git does on demand.
   */
  fetchBlobs?: (blobs: string[]) => Promise<void>;
}

/**
 * Applies `sparse` to the work tree and index (null: no patterns to apply, as when the file is
 * missing; the index is written all the same). Returns what git prints on stderr, as lines.
 * Nothing happens without an index (nothing checked out yet).
 */
export async function updateSparsity(repo: Repository, sparse: SparseMatcher | null, options: SparsityOptions): Promise<string[]> {
  const env = options.env ?? process.env;
  if (!repo.workTree) throw new GitError('worktree', 'bare', 'this operation must be run in a work tree');
  const root = path.resolve(repo.workTree);
  const file = indexPath(repo.gitDir, env);
  if (!fs.existsSync(file)) return [];
  const config = options.config;
  const lock = IndexLock.acquire(file);
  const log = options.log ?? ((m: string) => { process.stderr.write(m); });
  const runner = new FilterRunner({ cwd: root, env, log });
  try {
    const index = readIndexFile(file)!;
    const fsPath = (rel: Uint8Array): Buffer => Buffer.concat([Buffer.from(root + '/'), rel]);
    if (options.readAsSparse) clearSkipOfPresentFiles(index.entries, config, fsPath);
    const settings = readCheckoutSettings(config, repo.commonDir, env, root);
    const drivers = readFilterDrivers(config);
    // Files are read back through the attributes of the work tree as it is at the time, with the
    // index's .gitattributes where it has none.
    const tracked = new Map(index.entries.filter(e => entryStage(e) === 0).map(e => [pathKey(e.path), e]));
    const checksNow = (): CleanChecks => workTreeChecks(root, repo.odb, withConeAttributesOnly(tracked, sparse),
      { config, settings, drivers, runner, indexTimestampSec: index.timestampSec, log });
    const checks = checksNow();

    const notUpToDate: string[] = [], unmerged: string[] = [], alreadyPresent: string[] = [];
    const remove: IndexEntry[] = [], write: IndexEntry[] = [];
    const verdicts: Promise<void>[] = [];
    if (sparse) {
      for (const e of index.entries) {
        if (entryStage(e) !== 0) {
          const shown = displayPath(e.path);
          if (unmerged.at(-1) !== shown) unmerged.push(shown);
          continue;
        }
        const out = !sparse.includesEntry(root, e.path, e.mode);
        if (out === isSkipped(e)) continue;
        if (out) {
          const leave = (): void => {
            e.extendedFlags |= CE_SKIP_WORKTREE;
            remove.push(e);
          };
          verdicts.push(unchangedByStat(e, checks, fsPath).then(clean => (clean ? leave() : void notUpToDate.push(displayPath(e.path)))));
        } else {
          e.extendedFlags &= ~CE_SKIP_WORKTREE;
          if (lstatOrNull(fsPath(e.path))) alreadyPresent.push(displayPath(e.path));
          else write.push(e);
        }
      }
      await checks.run();
      await Promise.all(verdicts);
    }

    // Cone mode reads the .gitattributes of the cone only.
    const plan = write.length ? indexEntriesPlan(root, index.entries, write, p => !sparse!.cone || sparse!.includes(p)) : null;
    if (plan && options.fetchBlobs) await options.fetchBlobs(planBlobs(plan));
    removeTrackedFiles(root, remove);
    let messages: string[] = [];
    if (plan) messages = await writeIndexEntries(repo.odb, plan, write, { settings, drivers, session: { runner }, progress: options.progress });
    // git smudges a racy entry as it writes the index only when its file no longer matches.
    const racy = index.entries.filter(e => e.mode !== MODE_GITLINK && !isSkipped(e) && !e.uptodate && isRacy(e, index.timestampSec));
    if (racy.length) await smudgeRacyIfChanged(racy, checksNow());
    lock.commit(index);
    const warnings = sparseWarnings({ notUpToDate: notUpToDate.sort(), unmerged, alreadyPresent });
    const cleaned = sparse?.cone ? cleanSparseDirectories(root, index.entries, sparse) : [];
    return [...messages, ...warnings, ...cleaned];
  } finally {
    lock.rollback();
    await runner.close();
  }
}

/**
 * git's verify_uptodate_sparse: a file that is gone is no change; otherwise the stat data must
 * match (its content is read only when the entry is racy). A submodule never counts as changed.
 */
async function unchangedByStat(e: IndexEntry, checks: CleanChecks, fsPath: (rel: Uint8Array) => Buffer): Promise<boolean> {
  if (e.mode === MODE_GITLINK || !lstatOrNull(fsPath(e.path))) return true;
  const verdict = checks.byStat(e);
  return verdict === 'racy' ? checks.isClean(e) : verdict === 'clean';
}

/**
 * git's clean_tracked_sparse_directories: the directories a sparse index would fold (wholly
 * outside the cone, every entry skip-worktree, no submodule), as far as they are still on disk,
 * are removed with what is left in them, unless that includes a file (untracked or ignored).
 */
function cleanSparseDirectories(root: string, entries: readonly IndexEntry[], sparse: SparseMatcher): string[] {
  if (entries.some(e => entryStage(e) !== 0)) return [];
  const warnings: string[] = [];
  for (const dir of foldedDirectories(entries, sparse)) {
    const where = Buffer.concat([Buffer.from(root + '/'), dir]);
    const st = lstatOrNull(where);
    if (!st?.isDirectory()) continue;
    const shown = `${Buffer.from(dir).toString('utf8')}/`;
    if (holdsAFile(where)) {
      warnings.push(`warning: directory '${shown}' contains untracked files, but is not in the sparse-checkout cone`);
      continue;
    }
    try {
      fs.rmSync(where, { recursive: true });
    } catch {
      warnings.push(`warning: failed to remove directory '${shown}'`);
    }
  }
  return warnings;
}

/**
 * The directories a sparse index folds: outermost first (none inside another), wholly outside
 * the cone, every entry under them a skip-worktree file. In index order, as "dir/" sorts.
 */
function foldedDirectories(entries: readonly IndexEntry[], sparse: SparseMatcher): Uint8Array[] {
  // Whether every entry under each directory could fold.
  const foldable = new Map<string, boolean>();
  for (const e of entries) {
    const ok = isSkipped(e) && e.mode !== MODE_GITLINK;
    for (let slash = e.path.indexOf(0x2f); slash >= 0; slash = e.path.indexOf(0x2f, slash + 1)) {
      const key = pathKey(e.path.subarray(0, slash));
      foldable.set(key, ok && foldable.get(key) !== false);
    }
  }
  const chosen = new Set<string>();
  const insideChosen = (key: string): boolean => {
    for (let s = key.lastIndexOf('/'); s > 0; s = key.lastIndexOf('/', s - 1)) if (chosen.has(key.slice(0, s))) return true;
    return false;
  };
  for (const key of [...foldable.keys()].sort((a, b) => a.length - b.length)) {
    if (foldable.get(key) && !insideChosen(key) && !sparse.includesDirectory(Buffer.from(key, 'latin1'))) chosen.add(key);
  }
  return [...chosen].map(k => Buffer.from(`${k}/`, 'latin1')).sort(Buffer.compare).map(b => b.subarray(0, b.length - 1));
}

/** Whether anything but directories is under `dir`. */
function holdsAFile(dir: Buffer): boolean {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const p = Buffer.concat([dir, Buffer.from('/'), entry.name]);
    if (!entry.isDirectory() || holdsAFile(p)) return true;
  }
  return false;
}

/**
 * git's write_patterns_and_update: with the patterns file locked, the work tree is brought in line
 * with `sparse`, then the file takes `text`. Returns git's messages.
 */
export async function writePatternsAndUpdate(repo: Repository, text: Uint8Array, sparse: SparseMatcher, options: SparsityOptions): Promise<string[]> {
  const file = sparseCheckoutFile(repo.gitDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lock = LockFile.acquire(file, 'the sparse-checkout file', 'worktree');
  try {
    const messages = await updateSparsity(repo, sparse, options);
    lock.write(text);
    lock.commit();
    return messages;
  } finally {
    lock.rollback();
  }
}
