// A branch's upstream, as git's remote.c finds it for `<branch>@{upstream}` (branch_get_upstream):
// the first branch.<name>.merge, on branch.<name>.remote, mapped through that remote's fetch
// refspecs to the remote-tracking ref that stores it, or, for the remote ".", the merge ref itself.
import { parseBool, type Config, type ConfigEntry } from '../config/index.js';
import { displayName } from '../config/config.js';
import { GitError } from '../core/errors.js';
import { parseRefspec, trackingRefFor } from '../refs/refspec.js';
import { remoteGet } from './remotes.js';
import type { Repository } from './repository.js';
import { branchOf, shortBranchName } from '../refs/branch-name.js';

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
  const name = branchOf(head);
  if (name === null) throw new GitError('refs', 'no-branch', 'HEAD does not point to a branch');
  return name;
}

/** What installBranchConfig says: `out` the lines git prints on stdout when asked to be verbose, `err` its warning. */
export interface BranchConfigNote {
  readonly out: string;
  readonly err: string;
}

/**
 * git's install_branch_config_multiple_remotes: `branch` follows `merges` (full ref names) on
 * `remote`, or on this repository (null, written "."), and rebases onto them when
 * branch.autoSetupRebase says so for such an upstream ("."'s name counts as a remote's, as in
 * git). Saved at once, as git writes each key. A branch of this repository is not made its own
 * upstream, and several upstreams with rebasing are git's fatal error (after the branch is made).
 */
export function installBranchConfig(config: Config, branch: string, remote: string | null, merges: readonly string[]): BranchConfigNote {
  const rebasing = shouldSetupRebase(config, remote);
  if (merges.length > 1 && rebasing) throw new GitError('refs', 'multiple-upstreams', 'cannot inherit upstream tracking configuration of multiple refs when rebasing is requested');
  if (remote === null && branchOf(merges[0]!) === branch) {
    return { out: '', err: `warning: not setting branch '${branch}' as its own upstream\n` };
  }
  config.set('branch', branch, 'remote', remote ?? '.');
  config.unset('branch', branch, 'merge');
  for (const merge of merges) config.add('branch', branch, 'merge', merge);
  if (rebasing) config.set('branch', branch, 'rebase', 'true');
  config.save();
  const names = merges.map((m) => remote === null ? shortBranchName(m) : `${remote}/${shortBranchName(m)}`);
  const out = names.length === 1 ? `branch '${branch}' set up to track '${names[0]}'${rebasing ? ' by rebasing' : ''}.\n`
    : `branch '${branch}' set up to track:\n${names.map((n) => `  ${n}\n`).join('')}`;
  return { out, err: '' };
}

/**
 * git_default_branch_config's death on a branch.autoSetupMerge `entry` (each one given, in every
 * file and on the command line): anything but always, inherit, simple and a boolean, on which
 * git_config_bool dies at once, without the configuration's error path. null for a value it
 * takes or another variable.
 */
export function autoSetupMergeFatal(entry: ConfigEntry): string | null {
  if (entry.section !== 'branch' || entry.subsection !== null || entry.key !== 'autosetupmerge') return null;
  if (['always', 'inherit', 'simple'].includes(entry.value ?? '') || parseBool(entry.value) !== null) return null;
  return `bad boolean config value '${entry.value}' for '${displayName(entry)}'`;
}

/**
 * git_default_branch_config's complaint about a branch.autoSetupRebase `entry` (it judges each one
 * given, in every file and on the command line, not only the last): anything but never, local,
 * remote and always, spelled so. null for a value it takes or another variable.
 */
export function autoSetupRebaseComplaint(entry: ConfigEntry): string[] | null {
  if (entry.section !== 'branch' || entry.subsection !== null || entry.key !== 'autosetuprebase') return null;
  if (['never', 'local', 'remote', 'always'].includes(entry.value ?? '')) return null;
  return [entry.value === null ? "missing value for 'branch.autosetuprebase'" : 'malformed value for branch.autosetuprebase'];
}

/** git's should_setup_rebase: branch.autoSetupRebase for an upstream on `remote` (null: this repository). */
function shouldSetupRebase(config: Config, remote: string | null): boolean {
  switch (config.get('branch', null, 'autosetuprebase')) {
    case 'always': return true;
    case 'local': return remote === null;
    case 'remote': return remote !== null;
    default: return false;
  }
}
