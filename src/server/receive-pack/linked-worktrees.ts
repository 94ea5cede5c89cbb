// The branches checked out in a repository's linked work trees (`git worktree add`), which git's
// receive-pack protects as it protects the main work tree's: find_shared_symref looks at the HEAD
// of every work tree, so a push to a branch another work tree has checked out meets
// receive.denyCurrentBranch (and its deletion receive.denyDeleteCurrent). Each linked work tree
// keeps its HEAD in $GIT_DIR/worktrees/<id>/HEAD; a detached one names no branch.
import fs from 'node:fs';
import path from 'node:path';

export function linkedWorktreeBranches(gitDir: string): Set<string> {
  const branches = new Set<string>();
  let ids: string[];
  try {
    ids = fs.readdirSync(path.join(gitDir, 'worktrees'));
  } catch {
    return branches;
  }
  for (const id of ids) {
    let head: string;
    try {
      head = fs.readFileSync(path.join(gitDir, 'worktrees', id, 'HEAD'), 'utf8');
    } catch {
      continue;
    }
    const m = /^ref: (refs\/\S+)\s*$/.exec(head);
    if (m) branches.add(m[1]!);
  }
  return branches;
}
