// Which refspecs a push takes (git's builtin/push.c): the command line's, else the remote's
// remote.<name>.push, else push.default's for the current branch, checked in git 2.39's order
// (setup_default_push_refspecs, get_upstream_ref, die_push_simple), with whether
// push.autoSetupRemote has the push set the branch's upstream.
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { parsePushRefspec, type PushRefspec } from '../../refs/refspec.js';
import { defaultRemoteName, type Remote } from '../../repository/remotes.js';
import type { PushOptions } from './push.js';

/**
 * git's push refspec choice: the command line's (+ --tags, --delete), remote.<name>.push, else
 * push.default's; `setUpstream` when push.autoSetupRemote has the default push set an upstream.
 */
export function refspecsToPush(config: Config, remote: Remote, o: Pick<PushOptions, 'refspecs' | 'delete' | 'tags'>,
  branch: string | null): { specs: PushRefspec[]; setUpstream: boolean } {
  let texts = [...(o.refspecs ?? [])];
  if (o.delete) {
    if (texts.length === 0) throw new GitError('cli', 'usage', '--delete doesn\'t make sense without any refs');
    texts = texts.map((t) => (t.includes(':') ? t : `:${t}`));
    if (texts.some((t) => !t.startsWith(':'))) throw new GitError('cli', 'usage', '--delete only accepts plain target ref names');
  }
  if (o.tags) texts.push('refs/tags/*');
  if (texts.length > 0 || remote.push.length > 0) return { specs: (texts.length > 0 ? texts : remote.push).map(parsePushRefspec), setUpstream: false };
  const chosen = defaultRefspec(config, remote.name, branch);
  return { specs: [parsePushRefspec(chosen.text)], setUpstream: chosen.setUpstream };
}

/**
 * git's setup_default_push_refspecs (push.default, default "simple"), in its order: the mode, the
 * current branch, whether the push goes where a bare fetch fetches from, then the upstream.
 */
function defaultRefspec(config: Config, remoteName: string, branch: string | null): { text: string; setUpstream: boolean } {
  const mode = (config.get('push', null, 'default') ?? 'simple').toLowerCase();
  if (mode === 'matching') return { text: ':', setUpstream: false };
  if (mode === 'nothing') throw new GitError('client', 'no-refspec', 'You didn\'t specify any refspecs to push, and push.default is "nothing".');
  if (branch === null) {
    throw new GitError('client', 'detached', `You are not currently on a branch.
To push the history leading to the current (detached HEAD)
state now, use

    git push ${remoteName} HEAD:<name-of-remote-branch>
`);
  }
  if (mode !== 'simple' && mode !== 'upstream' && mode !== 'current') throw new GitError('config', 'bad-value', `invalid value for push.default: '${mode}'`);
  const current = `refs/heads/${branch}`;
  // git's set_merge: without branch.<name>.remote the branch.<name>.merge values count for nothing.
  const merges = config.get('branch', branch, 'remote') === undefined ? [] : config.getAll('branch', branch, 'merge');
  const autoSetup = config.getBool('push', null, 'autosetupremote') ?? false;
  // git's same_remote: the push goes where a bare fetch fetches from.
  const same = remoteName === defaultRemoteName(config, branch);
  let dst = current;
  if (mode === 'simple' && same) {
    const merge = upstreamRef(branch, remoteName, merges, autoSetup);
    if (merge !== current) throw pushSimpleMismatch(config, remoteName, merge);
  } else if (mode === 'upstream') {
    if (!same) {
      throw new GitError('client', 'not-upstream', `You are pushing to remote '${remoteName}', which is not the upstream of
your current branch '${branch}', without telling me what to push
to update which remote branch.`);
    }
    dst = upstreamRef(branch, remoteName, merges, autoSetup);
  }
  return { text: `${current}:${dst}`, setUpstream: autoSetup && merges.length === 0 };
}

/**
 * git's get_upstream_ref: the one branch.<name>.merge; with none, push.autoSetupRemote takes the
 * branch's own name (the push then sets it as the upstream).
 */
function upstreamRef(branch: string, remoteName: string, merges: readonly string[], autoSetup: boolean): string {
  if (merges.length === 0 && autoSetup) return `refs/heads/${branch}`;
  if (merges.length === 0) {
    throw new GitError('client', 'no-upstream', `The current branch ${branch} has no upstream branch.
To push the current branch and set the remote as upstream, use

    git push --set-upstream ${remoteName} ${branch}

To have this happen automatically for branches without a tracking
upstream, see 'push.autoSetupRemote' in 'git help config'.
`);
  }
  if (merges.length > 1) throw new GitError('client', 'no-upstream', `The current branch ${branch} has multiple upstream branches, refusing to push.`);
  return merges[0]!;
}

/**
 * git's die_push_simple: its advice only for who has not chosen push.default, or
 * branch.autoSetupMerge=simple; each piece ends in a newline, and die adds one more.
 */
function pushSimpleMismatch(config: Config, remoteName: string, merge: string): GitError {
  const pushDefaultAdvice = config.get('push', null, 'default') === undefined
    ? "\nTo choose either option permanently, see push.default in 'git help config'.\n" : '';
  const autoSetupAdvice = config.get('branch', null, 'autosetupmerge') === 'simple' ? ''
    : "\nTo avoid automatically configuring an upstream branch when its name\nwon't match the local branch, see option 'simple' of branch.autoSetupMerge\nin 'git help config'.\n";
  return new GitError('client', 'upstream-name', `The upstream branch of your current branch does not match
the name of your current branch.  To push to the upstream branch
on the remote, use

    git push ${remoteName} HEAD:${merge.replace(/^refs\/heads\//, '')}

To push to the branch of the same name on the remote, use

    git push ${remoteName} HEAD
${pushDefaultAdvice}${autoSetupAdvice}`);
}
