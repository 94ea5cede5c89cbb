// Switching an existing work tree from one commit to another, as `git checkout <commit>` does
// (unpack-trees' two-way merge): for each path, compare the commit being left (O), the index (I)
// and the commit being switched to (N).
//   I == N, or O == N:      keep the index entry and the file (local changes travel along).
//   I == O != N:            update the file, if the work tree still matches I.
//   no I, no O, N:          a new file, unless an untracked file is in its way.
//   I == O, no N:           remove the file, if it matches I.
//   I only (added locally): keep it.
//   anything else:          a local change the switch would lose: refuse.
// With force the result is N everywhere: files that do not match are rewritten, tracked files
// not in N removed. Untracked files are never removed except, with force, when in the way.
//
// A file is compared with its blob through its clean filter (switch/clean-filters.ts), and
// written through its smudge filter, as in a checkout.
//
// In a sparse checkout (sparse/), a skip-worktree entry has no file, so it counts as clean, and
// then each entry of the result is brought in line with the patterns as git's
// apply_sparse_checkout does: a path outside them is not written and its file, when clean, goes;
// a path back inside is written (switch/sparse-result.ts).
//
// Every check runs before the first change. Then all removals happen (leading directories vetted
// first, so no removal goes through a symlink), then the writes, with a directory cache that
// starts empty after those removals (checkout/directories.ts).
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { oidEquals, toHex } from '../core/oid.js';
import { MODE_GITLINK } from '../object/tree.js';
import { OBJ_TREE } from '../object/type.js';
import type { Repository } from '../repository/repository.js';
import { indexPath, type CheckoutOptions } from './checkout.js';
import { checkoutMessages, planConversions } from './checkout/conversions.js';
import { displayPath } from './checkout/path-check.js';
import { entryFsPath, entryOid, entryPath, planCheckout } from './checkout/plan.js';
import { indexEntry, newStatTable } from './checkout/stat-table.js';
import { readCheckoutSettings } from './checkout/settings.js';
import { writePlannedFiles } from './checkout/write-files.js';
import { CE_SKIP_WORKTREE, compareEntries, entryStage, isRacy, type IndexEntry, type IndexFile } from './index-file/entry.js';
import { readIndexFile } from './index-file/read.js';
import { IndexLock } from './index-file/write.js';
import { lstatOrNull } from './switch/clean.js';
import { smudgeRacyIfChanged } from './switch/racy-smudge.js';
import { updatingFiles } from './checkout/updating-files.js';
import { removeTrackedFiles } from './switch/remove-files.js';
import { flattenTree, pathKey, type TreeEntryInfo } from './switch/tree-entries.js';
import { workTreeChecks } from './switch/clean-filters.js';
import { applySparsePatterns } from './switch/sparse-result.js';
import { readFilterDrivers } from './filter/driver.js';
import { FilterRunner } from './filter/filters.js';
import { clearSkipOfPresentFiles, isSkipped, sparseWarnings } from './sparse/index-state.js';
import { skippedEntries, withAttributesOf, withConeAttributesOnly } from './sparse/inside-plan.js';
import { patternWarnings, readSparseCheckout } from './sparse/settings.js';

/** What a checkout takes, less the work tree: a switch writes the repository's own. */
export type SwitchOptions = Omit<CheckoutOptions, 'workTree'>;

export interface SwitchResult {
  written: number;
  removed: number;
  /** Index entries carried over unchanged. */
  kept: number;
  /** What git prints on stderr as it writes the files (CheckoutResult.messages). */
  messages: string[];
}

const same = (a: { mode: number; oid: Uint8Array }, b: { mode: number; oid: Uint8Array }): boolean =>
  a.mode === b.mode && oidEquals(a.oid, 0, b.oid, 0);

function listPaths(title: string, paths: string[], advice: string): string {
  return `${title}\n${paths.map(p => `\t${p}`).join('\n')}\n${advice}`;
}

/** Switches the work tree and index from `oldCommit` (null: unborn) to `newCommit`. */
export async function switchTree(repo: Repository, oldCommit: Uint8Array | null, newCommit: Uint8Array,
  options: SwitchOptions = {}): Promise<SwitchResult> {
  const env = options.env ?? process.env;
  const force = options.force ?? false;
  if (!repo.workTree) throw new GitError('worktree', 'bare', 'this operation must be run in a work tree');
  const root = path.resolve(repo.workTree);
  const config = options.config ?? repo.loadConfig(env);
  const loadWarnings: string[] = [];
  const sparse = readSparseCheckout(config, repo.gitDir, line => loadWarnings.push(line));
  const settings = readCheckoutSettings(config, repo.commonDir, env, root);
  const odb = repo.odb;
  const revs = repo.revs();

  const lock = IndexLock.acquire(indexPath(repo.gitDir, env));
  const log = options.log ?? ((m: string) => { process.stderr.write(m); });
  const runner = new FilterRunner({ cwd: root, env, log });
  try {
    const index = readIndexFile(indexPath(repo.gitDir, env));
    if (!index) throw new GitError('worktree', 'no-index', 'there is no index to switch from; check out into the empty work tree instead');
    const unmerged = index.entries.find(e => entryStage(e) !== 0);
    if (unmerged) throw new GitError('worktree', 'unmerged', `you need to resolve your current index first ('${displayPath(unmerged.path)}' is unmerged)`);

    const fsPath = (rel: Uint8Array): Buffer => Buffer.concat([Buffer.from(root + '/'), rel]);
    clearSkipOfPresentFiles(index.entries, config, fsPath);
    const oldTree = oldCommit ? flattenTree(odb, revs.peel(oldCommit, OBJ_TREE, toHex(oldCommit))) : new Map<string, TreeEntryInfo>();
    const whole = planCheckout(odb, revs.peel(newCommit, OBJ_TREE, toHex(newCommit)), root);
    // Each entry's verdict once: the attributes, the merge and the patterns' last step all ask.
    const skip = sparse ? skippedEntries(whole, sparse) : null;
    const plan = skip ? withAttributesOf(whole, i => skip[i] === 0) : whole;
    const drivers = readFilterDrivers(config);
    const conversions = planConversions(plan, odb, settings, drivers);
    const stats = newStatTable(plan.count);
    const current = new Map<string, IndexEntry>();
    for (const e of index.entries) current.set(pathKey(e.path), e);

    // A file is read back through the attributes of the work tree at the time: before the
    // switch writes anything, those of the commit being left, as git reads them.
    const readBack = { config, settings, drivers, runner, indexTimestampSec: index.timestampSec, log };
    const checks = workTreeChecks(root, odb, withConeAttributesOnly(oldTree, sparse), readBack);
    // Each entry's decision that hangs on whether its file is clean waits for the content checks,
    // which run together after the loops below.
    const decisions: Promise<void>[] = [];
    // A skip-worktree entry has no file to lose (git's verify_uptodate passes it).
    const whenKnown = (e: IndexEntry, decide: (clean: boolean) => void): void => {
      decisions.push((isSkipped(e) ? Promise.resolve(true) : checks.isClean(e)).then(decide));
    };

    const result: IndexEntry[] = [];
    let toWrite: number[] = [];
    const toRemove: IndexEntry[] = [];
    const localChanges: string[] = [];
    const untracked: string[] = [];
    const newPaths: number[] = [];
    let keptCount = 0;
    const keep = (e: IndexEntry): void => { result.push(e); keptCount++; };
    // Without force git refreshes the index before it merges: an entry kept has its stat data
    // brought up to date when its file still holds its blob (switch/clean.ts refresh).
    const keepRefreshed = (e: IndexEntry): void => {
      keep(e);
      decisions.push(checks.refresh(e));
    };

    for (let i = 0; i < plan.count; i++) {
      const n = { mode: plan.modes[i]!, oid: entryOid(plan, i), path: entryPath(plan, i) };
      const key = pathKey(n.path);
      const cur = current.get(key);
      const old = oldTree.get(key);
      current.delete(key);
      if (force) {
        const rewrite = (): void => {
          if (cur) toRemove.push(cur);
          toWrite.push(i);
        };
        if (!cur || !same(cur, n)) {
          rewrite();
          continue;
        }
        // git's reset keeps the entry of a path the patterns leave out, stat data and all, when it
        // is unchanged (its file, whatever it holds, goes: sparse-result.ts).
        if (isSkipped(cur) || (skip !== null && skip[i] !== 0)) {
          keep(cur);
          continue;
        }
        // git's reset writes the file again unless its stat data matches (ie_match_stat, which
        // reads only a racy file); a racy file that holds its blob is kept, unrefreshed (whether
        // the new index smudges it is decided with the attributes switched to, below).
        const byStat = cur.mode === MODE_GITLINK ? 'racy' : checks.byStat(cur);
        if (byStat === 'clean') keep(cur);
        else if (byStat === 'changed') rewrite();
        else whenKnown(cur, clean => (clean ? keep(cur) : rewrite()));
        continue;
      }
      if (cur) {
        if (same(cur, n) || (old && same(old, n))) keepRefreshed(cur);
        else if (old && same(cur, old)) {
          whenKnown(cur, clean => {
            if (clean) {
              toRemove.push(cur);
              toWrite.push(i);
            } else localChanges.push(displayPath(n.path));
          });
        } else localChanges.push(displayPath(n.path));
      } else if (old) {
        // Deleted in the index: fine while N agrees with O, a lost change otherwise.
        if (!same(old, n)) localChanges.push(displayPath(n.path));
      } else {
        newPaths.push(i);
        toWrite.push(i);
      }
    }
    // Tracked paths the new commit does not have.
    for (const [key, cur] of current) {
      const old = oldTree.get(key);
      if (force) toRemove.push(cur);
      else if (!old) keepRefreshed(cur);
      else if (same(cur, old)) {
        whenKnown(cur, clean => {
          if (clean) toRemove.push(cur);
          else localChanges.push(displayPath(cur.path));
        });
      } else localChanges.push(displayPath(cur.path));
    }
    await checks.run();
    await Promise.all(decisions);
    // Decided entries joined the lists out of the plan's order; the files are written in it.
    toWrite.sort((a, b) => a - b);
    let leftOut: number[] = [];
    const notUpToDate: string[] = [];
    // New files a sparse checkout writes over, warning that it did not (git 2.39 does both).
    const alreadyPresent: number[] = [];
    if (sparse) {
      const applied = await applySparsePatterns(sparse, plan, skip!, toWrite, result, checks, e => fsPath(e.path), force);
      ({ written: toWrite, leftOut } = applied);
      result.splice(0, result.length, ...applied.kept);
      toRemove.push(...applied.removeFiles);
      notUpToDate.push(...applied.notUpToDate);
    }

    if (!force) {
      const removing = new Set(toRemove.map(e => pathKey(e.path)));
      const writing = sparse ? new Set(toWrite) : null;
      // A new file's path must be free, or a directory holding only tracked files being removed.
      for (const i of newPaths) {
        if (writing && !writing.has(i)) continue;
        const where = entryFsPath(plan, i);
        const st = lstatOrNull(where);
        if (!st) continue;
        const key = pathKey(entryPath(plan, i));
        if (sparse && !st.isDirectory()) {
          alreadyPresent.push(i);
          continue;
        }
        const blocker = st.isDirectory() ? untrackedInside(where, key, removing) : key;
        if (blocker !== null) untracked.push(displayPath(Buffer.from(blocker, 'latin1')));
      }
      // A directory the new commit needs must not be blocked by an untracked file.
      const vetted = new Set<number>([0]);
      for (const i of toWrite) {
        for (let d = plan.dirOf[i]!; !vetted.has(d); d = plan.dirs[d]!.parent) {
          vetted.add(d);
          const dir = plan.dirs[d]!;
          const st = lstatOrNull(dir.fsPath);
          if (st && !st.isDirectory() && !removing.has(pathKey(dir.path))) untracked.push(displayPath(dir.path));
        }
      }
    }
    if (localChanges.length) {
      throw new GitError('worktree', 'local-changes', listPaths(
        'Your local changes to the following files would be overwritten by checkout:', localChanges.sort(),
        'Please commit your changes or stash them before you switch branches.\nAborting'));
    }
    if (untracked.length) {
      throw new GitError('worktree', 'untracked-in-the-way', listPaths(
        'The following untracked working tree files would be overwritten by checkout:', untracked.sort(),
        'Please move or remove them before you switch branches.\nAborting'));
    }

    const removed = removeTrackedFiles(root, toRemove);
    for (const i of alreadyPresent) fs.unlinkSync(entryFsPath(plan, i));
    const filters = conversions?.filtered
      ? { filtered: conversions.filtered, session: { runner, ...options.ref ? { ref: options.ref } : {}, treeish: toHex(newCommit) } }
      : null;
    const meter = updatingFiles(options.progress);
    const { unfiltered } = await writePlannedFiles(odb, plan, stats, toWrite, conversions?.codes ?? null,
      { ...settings, encodings: conversions?.encodings }, force, meter.report, filters);
    meter.stop();

    // Entries kept that git would smudge as it writes the index: read back through the
    // attributes of the commit switched to, now in the work tree.
    const racy = result.filter(e => e.mode !== MODE_GITLINK && !isSkipped(e) && !e.uptodate && isRacy(e, index.timestampSec));
    if (racy.length) {
      const newTree = flattenTree(odb, revs.peel(newCommit, OBJ_TREE, toHex(newCommit)));
      await smudgeRacyIfChanged(racy, workTreeChecks(root, odb, withConeAttributesOnly(newTree, sparse), readBack));
    }
    for (const i of toWrite) result.push(indexEntry(plan, stats, i));
    for (const i of leftOut) result.push({ ...indexEntry(plan, stats, i), extendedFlags: CE_SKIP_WORKTREE });
    result.sort(compareEntries);
    const exact = result.length === plan.count && result.every((e, k) =>
      same(e, { mode: plan.modes[k]!, oid: entryOid(plan, k) }) && Buffer.compare(e.path, entryPath(plan, k)) === 0);
    const next: IndexFile = {
      version: index.version,
      entries: result,
      cacheTree: exact ? plan.cacheTree : null,
      extensions: [],
      timestampSec: index.timestampSec,
      timestampNsec: index.timestampNsec,
    };
    lock.commit(next);
    if (unfiltered) throw new GitError('worktree', 'checkout-incomplete', 'unable to checkout working tree');
    return {
      written: toWrite.length, removed, kept: keptCount,
      messages: [
        ...patternWarnings(loadWarnings, plan.modes, toWrite, settings.symlinks),
        ...sparseWarnings({ notUpToDate, alreadyPresent: alreadyPresent.map(i => displayPath(entryPath(plan, i))) }),
        ...checkoutMessages(plan, conversions, toWrite),
      ],
    };
  } finally {
    lock.rollback();
    await runner.close();
  }
}

/** The first file under directory `dir` (path key `rel`) that is not in `removing`, or null. */
function untrackedInside(dir: string | Buffer, rel: string, removing: Set<string>): string | null {
  for (const name of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const key = `${rel}/${name.toString('latin1')}`;
    const p = Buffer.concat([Buffer.from(dir), Buffer.from('/'), name]);
    const st = fs.lstatSync(p);
    const found = st.isDirectory() && !removing.has(key) ? untrackedInside(p, key, removing) : removing.has(key) ? null : key;
    if (found !== null) return found;
  }
  return null;
}
