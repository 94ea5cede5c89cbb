// A repository's work trees, the main one and those linked (`git worktree add`), and the
// branches they have checked out, which git protects alike: find_shared_symref looks at the HEAD
// of every work tree, so a push to a branch another work tree has checked out meets
// receive.denyCurrentBranch (and its deletion receive.denyDeleteCurrent), and checkout refuses
// it; repack keeps what their HEADs, own refs and reflogs reach. Each linked work tree keeps its
// HEAD in $GIT_COMMON_DIR/worktrees/<id>/HEAD (a detached one names no branch), its index
// beside it, and in `gitdir` the path of the `.git` file at its top.
import fs from 'node:fs';
import path from 'node:path';
import { FileRefStore } from '../refs/index.js';
import { readLooseRef } from '../refs/loose.js';

export interface Worktree {
  /** Its git directory: the common directory for the main one, else $GIT_COMMON_DIR/worktrees/<id>. */
  gitDir: string;
  /** Its top directory, or null when a linked one's `gitdir` cannot be read. */
  path: string | null;
  /** The branch its HEAD names, or null when detached. */
  branch: string | null;
}

/**
 * Every work tree of the repository whose common directory is `commonDir`, as git's get_worktrees
 * lists them: the main one first, its top at `mainPath` (left out when null: a bare repository's
 * HEAD checks nothing out), then the linked ones by id. Callers differ only in how they find the
 * main one's top: checkout from where the common directory is, receive-pack from the config.
 */
export function allWorktrees(commonDir: string, mainPath: string | null): Worktree[] {
  const main = mainPath === null ? [] : [{ gitDir: commonDir, path: mainPath, branch: headBranch(commonDir) }];
  return [...main, ...linkedWorktrees(commonDir)];
}

/** The linked work trees of the repository whose common directory is `commonDir`, by id. */
function linkedWorktrees(commonDir: string): Worktree[] {
  const out: Worktree[] = [];
  let ids: string[];
  try {
    ids = fs.readdirSync(path.join(commonDir, 'worktrees'));
  } catch {
    return out;
  }
  for (const id of ids.sort()) {
    const dir = path.join(commonDir, 'worktrees', id);
    if (!fs.existsSync(path.join(dir, 'HEAD'))) continue;
    let top: string | null = null;
    try {
      const file = fs.readFileSync(path.join(dir, 'gitdir'), 'utf8').replace(/\n$/, '');
      top = path.resolve(dir, file.endsWith('/.git') ? file.slice(0, -5) : file);
    } catch {
      // a work tree whose gitdir is gone still holds its branch
    }
    out.push({ gitDir: dir, path: top, branch: headBranch(dir) });
  }
  return out;
}

/**
 * The refs as each other work tree sees them (its HEAD, its refs/worktree/, refs/bisect/ and
 * refs/rewritten/), the main one's included when `gitDir` is a linked one: what git's --all and
 * repack look at beyond the current work tree's (revision.c other_head_refs).
 */
export function otherWorktreeRefs(commonDir: string, gitDir: string): FileRefStore[] {
  const self = path.resolve(gitDir);
  return [commonDir, ...linkedWorktrees(commonDir).map((w) => w.gitDir)]
    .filter((dir) => path.resolve(dir) !== self)
    .map((dir) => new FileRefStore(dir));
}

/**
 * The top of a work tree that has `branch` checked out, as git's find_shared_symref finds it (the
 * main work tree first, then the linked ones), leaving out the one whose git directory is
 * `except` (checkout's own: git's die_if_checked_out); null if none. A main work tree is
 * recognised by its common directory being its `.git`, as git's get_main_worktree strips
 * "/.git"; a bare repository's HEAD checks nothing out.
 */
export function checkedOutAt(commonDir: string, branch: string, except: string | null = null): string | null {
  return checkedOutBranches(commonDir, except).get(branch) ?? null;
}

/** checkedOutAt for every branch at once: each checked-out branch and the first work tree holding it. */
export function checkedOutBranches(commonDir: string, except: string | null = null): Map<string, string> {
  const self = except === null ? null : path.resolve(except);
  const main = path.basename(commonDir) === '.git' ? path.dirname(path.resolve(commonDir)) : null;
  const out = new Map<string, string>();
  for (const w of allWorktrees(commonDir, main)) {
    if (w.branch !== null && path.resolve(w.gitDir) !== self && !out.has(w.branch)) out.set(w.branch, w.path ?? w.gitDir);
  }
  return out;
}

/**
 * The branch the HEAD in git directory `dir` names, read as the ref store reads a HEAD (a symlink
 * into refs/ included); null when detached or unreadable.
 */
function headBranch(dir: string): string | null {
  try {
    const head = readLooseRef(dir, 'HEAD');
    return head?.type === 'symbolic' ? head.target : null;
  } catch {
    return null;
  }
}
