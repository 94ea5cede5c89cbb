// The branches checked out in a repository's linked work trees (`git worktree add`), which git's
// receive-pack protects as it protects the main work tree's: find_shared_symref looks at the HEAD
// of every work tree, so a push to a branch another work tree has checked out meets
// receive.denyCurrentBranch (and its deletion receive.denyDeleteCurrent). Each linked work tree
// keeps its HEAD in $GIT_DIR/worktrees/<id>/HEAD (a detached one names no branch), its index
// beside it, and in `gitdir` the path of the `.git` file at its top.
import fs from 'node:fs';
import path from 'node:path';

export interface LinkedWorktree {
  /** $GIT_DIR/worktrees/<id>. */
  gitDir: string;
  /** Its top directory, or null when `gitdir` cannot be read. */
  path: string | null;
  /** The branch its HEAD names, or null when detached. */
  branch: string | null;
}

export function linkedWorktrees(gitDir: string): LinkedWorktree[] {
  const out: LinkedWorktree[] = [];
  let ids: string[];
  try {
    ids = fs.readdirSync(path.join(gitDir, 'worktrees'));
  } catch {
    return out;
  }
  for (const id of ids.sort()) {
    const dir = path.join(gitDir, 'worktrees', id);
    let head: string;
    try {
      head = fs.readFileSync(path.join(dir, 'HEAD'), 'utf8');
    } catch {
      continue;
    }
    const m = /^ref: (refs\/\S+)\s*$/.exec(head);
    let top: string | null = null;
    try {
      const file = fs.readFileSync(path.join(dir, 'gitdir'), 'utf8').replace(/\n$/, '');
      top = path.resolve(dir, file.endsWith('/.git') ? file.slice(0, -5) : file);
    } catch {
      // a work tree whose gitdir is gone still holds its branch
    }
    out.push({ gitDir: dir, path: top, branch: m ? m[1]! : null });
  }
  return out;
}
