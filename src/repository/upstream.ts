// A branch's upstream, as git's remote.c finds it for `<branch>@{upstream}` (branch_get_upstream):
// the first branch.<name>.merge, on branch.<name>.remote, mapped through that remote's fetch
// refspecs to the remote-tracking ref that stores it, or, for the remote ".", the merge ref itself.
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { parseRefspec, trackingRefFor } from '../refs/refspec.js';
import { remoteGet } from './remotes.js';
import type { Repository } from './repository.js';

/**
 * The full ref name of the upstream of `branch` (a branch's short name; '' or HEAD for the one
 * checked out), or git's error for why there is none.
 */
export function upstreamOf(repo: Repository, branch: string, env: NodeJS.ProcessEnv = process.env): string {
  // git's branch_get reads the remotes first, whatever it then finds.
  const config = repo.remotesConfig(env);
  const name = currentBranchNamed(repo, branch);
  const remote = config.get('branch', name, 'remote');
  const merge = remote === undefined ? undefined : config.getAll('branch', name, 'merge')[0];
  if (remote === undefined || merge === undefined) {
    if (repo.resolveRef(`refs/heads/${name}`) === null) throw new GitError('refs', 'no-upstream', `no such branch: '${name}'`);
    throw new GitError('refs', 'no-upstream', `no upstream configured for branch '${name}'`);
  }
  if (remote === '.') return merge;
  const tracking = trackingRefFor(remoteGet(config, repo.commonDir, remote).fetch.map(parseRefspec), merge);
  if (tracking !== null) return tracking;
  throw new GitError('refs', 'no-upstream', `upstream branch '${merge}' not stored as a remote-tracking branch`);
}

/**
 * The branch `branch` names for `@{upstream}` and `@{push}` (git's branch_get): itself, or for ''
 * or HEAD the branch checked out; a detached HEAD is git's error.
 */
export function currentBranchNamed(repo: Repository, branch: string): string {
  if (branch !== '' && branch !== 'HEAD') return branch;
  const head = repo.refs.headTarget();
  if (!head?.startsWith('refs/heads/')) throw new GitError('refs', 'no-branch', 'HEAD does not point to a branch');
  return head.slice('refs/heads/'.length);
}

/**
 * git's install_branch_config for one upstream: `branch` follows `merge` (a ref's full name) on
 * `remote`, and rebases onto it when branch.autoSetupRebase says so for a remote's branch
 * (`remote` or `always`). Saved at once, as git writes each key.
 */
export function installBranchConfig(config: Config, branch: string, remote: string, merge: string): void {
  config.set('branch', branch, 'remote', remote);
  config.set('branch', branch, 'merge', merge);
  const rebase = config.get('branch', null, 'autosetuprebase');
  if (rebase === 'remote' || rebase === 'always') config.set('branch', branch, 'rebase', 'true');
  config.save();
}
