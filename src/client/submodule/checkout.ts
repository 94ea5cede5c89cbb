// The submodule side of an update: is the recorded commit there and reachable from a ref (git's
// is_tip_reachable, `rev-list -n 1 <commit> --not --all`), and `git checkout -q [-f] <commit>`,
// which detaches the submodule's HEAD at it.
import fs from 'node:fs';
import { fromHex } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import type { Repository } from '../../repository/repository.js';
import { ObjectWalk } from '../../walk/object-walk.js';
import { checkoutTree, indexPath } from '../../worktree/checkout.js';
import { switchTree } from '../../worktree/switch.js';
import { shortBranchName } from '../../refs/branch-name.js';
import { reflogAction } from '../../refs/reflog.js';

/** Whether `oid` is a commit the repository has and some ref (or HEAD) reaches. */
export function isTipReachable(repo: Repository, oid: string): boolean {
  const id = fromHex(oid)!;
  if (repo.odb.info(id)?.type !== OBJ_COMMIT) return false;
  const walk = new ObjectWalk(repo.odb, 1024);
  walk.setShallow(repo.shallowCommits());
  walk.add(id, oid);
  const head = repo.refs.head().oid;
  if (head) walk.add(fromHex(head)!, 'HEAD', true);
  for (const r of repo.refs.list()) walk.add(fromHex(r.oid)!, r.name, true);
  return walk.commits().length === 0;
}

/** Checks `oid` out in the submodule's work tree and detaches HEAD there; `force` discards local changes. */
export async function checkoutDetached(repo: Repository, oid: string, force: boolean, env: NodeJS.ProcessEnv): Promise<void> {
  const id = fromHex(oid)!;
  const refs = repo.refs;
  const head = refs.head();
  if (!fs.existsSync(indexPath(repo.gitDir, env))) {
    await checkoutTree(repo, id, { force, env });
  } else {
    switchTree(repo, head.oid ? fromHex(head.oid) : null, id, { force, env });
  }
  const from = head.symref !== null ? shortBranchName(head.symref) : head.oid ?? 'HEAD';
  if (head.symref !== null || head.oid !== oid) refs.update('HEAD', oid, { noDeref: true, reflogMessage: reflogAction(env, `checkout: moving from ${from} to ${oid}`) });
}
