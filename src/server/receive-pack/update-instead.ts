// receive.denyCurrentBranch=updateInstead: a push to the branch a work tree has checked out updates
// that work tree, and the ref only if that succeeded (git's update_worktree in receive-pack.c, run
// after the update hook, when the objects have left the quarantine).
//   A push-to-checkout hook, when there is one, does it: it gets the new commit id as its argument,
//   GIT_DIR and GIT_WORK_TREE set (absolute), and its exit status decides.
//   Otherwise push_to_deploy: the work tree and index must hold HEAD exactly (clean-state.ts: git's
//   diff-files then diff-index --cached), then they are moved to the new commit by the two-way
//   switch (git's read-tree -u -m), which refuses what it would overwrite.
// The reasons are git's, reported for the ref.
import fs from 'node:fs';
import path from 'node:path';
import { fromHex, ZERO_HEX } from '../../core/oid.js';
import { Config } from '../../config/index.js';
import { Repository } from '../../repository/repository.js';
import { findHook, runHookScript, type ScriptHookSettings } from '../../repository/hook-script.js';
import { indexPath } from '../../worktree/checkout.js';
import { workTreeState } from '../../worktree/clean-state.js';
import { emptyIndex } from '../../worktree/index-file/entry.js';
import { writeIndexFile } from '../../worktree/index-file/write.js';
import { switchTree } from '../../worktree/switch.js';

export interface WorkTreeTarget {
  /** The work tree's own git directory: the repository's, or $GIT_DIR/worktrees/<id>. */
  gitDir: string;
  /** Its top directory. */
  path: string;
  /** What HEAD holds there now (the branch's value), or null when unborn. */
  head: string | null;
}

export interface UpdateInsteadContext {
  repo: Repository;
  env: NodeJS.ProcessEnv;
  /** The settings receive-pack runs its hooks with; null when hook scripts are off. */
  hookSettings: ScriptHookSettings | null;
  /** Text for the client (a hook's output, messages). */
  message(text: string | Buffer): void;
}

/** Updates `target` to `newOid` (the zero id for a deletion); the reason it failed, or null. */
export async function updateWorktree(ctx: UpdateInsteadContext, target: WorkTreeTarget, newOid: string): Promise<string | null> {
  const gitDir = path.resolve(target.gitDir);
  const workTree = path.resolve(target.path);
  const hook = ctx.hookSettings ? findHook(ctx.hookSettings, 'push-to-checkout', (text) => ctx.message(text)) : null;
  if (hook) {
    // git runs it where it runs the other push hooks, with GIT_DIR and GIT_WORK_TREE absolute.
    const settings: ScriptHookSettings = { ...ctx.hookSettings!, gitDirEnv: gitDir };
    const status = await runHookScript(hook, settings, { args: [newOid], stdin: null, env: { GIT_WORK_TREE: workTree } },
      (chunk) => ctx.message(chunk));
    return status === 0 ? null : 'push-to-checkout hook declined';
  }
  // The repository as the work tree sees it: the shared objects and config (its packs opened
  // afresh, the pushed ones among them), the work tree's own index.
  const view = new Repository(ctx.repo.gitDir, workTree);
  try {
    return await pushToDeploy(ctx, view, gitDir, target.head, newOid);
  } finally {
    view.close();
  }
}

async function pushToDeploy(ctx: UpdateInsteadContext, view: Repository, gitDir: string, head: string | null,
  newOid: string): Promise<string | null> {
  const env: NodeJS.ProcessEnv = { ...ctx.env, GIT_DIR: gitDir, GIT_INDEX_FILE: path.join(gitDir, 'index') };
  delete env.GIT_WORK_TREE;
  const config = Config.loadSync(ctx.repo.gitDir, { global: true, env });
  const options = { env, config, log: (m: string) => ctx.message(m) };
  const headId = head === null ? null : fromHex(head)!;
  const indexFile = indexPath(gitDir, env);
  // git's `update-index --refresh` comes first, and cannot take the index's lock while another
  // holds it.
  if (fs.existsSync(`${indexFile}.lock`)) {
    ctx.message(`fatal: Unable to create '${indexFile}.lock': File exists.\n`);
    return 'Up-to-date check failed';
  }
  try {
    const state = await workTreeState(view, headId, options);
    if (state === 'unstaged') return 'Working directory has unstaged changes';
    if (state === 'staged') return 'Working directory has staged changes';
  } catch (e) {
    ctx.message(`error: ${(e as Error).message}\n`);
    return 'Up-to-date check failed';
  }
  if (newOid === ZERO_HEX) {
    ctx.message(`fatal: Not a valid object name ${newOid}\n`);
    return 'Could not update working tree to new HEAD';
  }
  // No index is an empty one (an unborn branch's work tree), which the switch starts from.
  const created = !fs.existsSync(indexFile);
  if (created) writeIndexFile(indexFile, emptyIndex());
  try {
    await switchTree(view, headId, fromHex(newOid)!, options);
  } catch (e) {
    if (created) fs.rmSync(indexFile, { force: true });
    ctx.message(`error: ${(e as Error).message}\n`);
    return 'Could not update working tree to new HEAD';
  }
  return null;
}
