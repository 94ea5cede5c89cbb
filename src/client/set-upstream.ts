// fetch --set-upstream (git's do_fetch, after the refs are stored): the one ref fetched only into
// FETCH_HEAD, for merging, becomes the current branch's upstream. What git refuses it warns of
// and leaves the configuration alone: several such refs, none, no branch checked out, or a ref
// that is no branch.
import type { Config } from '../config/index.js';
import { installBranchConfig } from '../repository/upstream.js';
import { branchOf, shortBranchName } from '../refs/branch-name.js';

/**
 * Sets the upstream of the branch `headRef` names to `sources`' one ref on `remote` (a remote's
 * name, or the address fetched from), and returns git's warnings, empty when it was set.
 */
export function setUpstream(config: Config, headRef: string | null, remote: string, sources: readonly string[]): string {
  if (sources.length > 1) return 'warning: multiple branches detected, incompatible with --set-upstream\n';
  const source = sources[0];
  if (source === undefined) return 'warning: no source branch found;\nyou need to specify exactly one branch with the --set-upstream option\n';
  const branch = branchOf(headRef);
  if (branch === null) {
    return `warning: could not set upstream of HEAD to '${shortBranchName(source)}' from '${remote}' when it does not point to any branch.\n`;
  }
  if (source === 'HEAD' || branchOf(source) !== null) {
    installBranchConfig(config, branch, remote, [source]);
    return '';
  }
  if (source.startsWith('refs/remotes/')) return 'warning: not setting upstream for a remote remote-tracking branch\n';
  if (source.startsWith('refs/tags/')) return 'warning: not setting upstream for a remote tag\n';
  return 'warning: unknown branch type\n';
}
