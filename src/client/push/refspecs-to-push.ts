// Which refspecs a push takes (git's builtin/push.c): the command line's, read as set_refspecs
// reads them (`tag <name>`, --delete, a branch name mapped where the push would send it), else
// the remote's remote.<name>.push, else push.default's for the current branch, checked in git
// 2.39's order (setup_default_push_refspecs, get_upstream_ref, die_push_simple), with whether
// push.autoSetupRemote has the push set the branch's upstream.
import type { Config } from '../../config/index.js';
import { GitError } from '../../core/errors.js';
import { parsePushRefspec, pushDestinationFor, type PushRefspec } from '../../refs/refspec.js';
import { pushDefault, type PushDefault } from '../../repository/push-default.js';
import { defaultRemoteName, type Remote } from '../../repository/remotes.js';
import type { PushOptions } from './push.js';
import { refspecMatches, type LocalRef } from './refspec.js';
import { shortBranchName } from '../../refs/branch-name.js';

/**
 * git's push refspec choice: --tags' and the command line's (with --delete), remote.<name>.push,
 * else push.default's; `setUpstream` when push.autoSetupRemote has the default push set an
 * upstream. `refsNamed` gives the local refs a name may abbreviate (those that exist among its
 * expansions).
 */
export function refspecsToPush(config: Config, remote: Remote, o: Pick<PushOptions, 'refspecs' | 'delete' | 'tags'>,
  branch: string | null, refsNamed: (name: string) => readonly LocalRef[]): { specs: PushRefspec[]; setUpstream: boolean } {
  const given = o.refspecs ?? [];
  if (o.delete && given.length === 0) throw new GitError('cli', 'usage', '--delete doesn\'t make sense without any refs');
  const mode = pushDefault(config);
  // git appends --tags' refspec as it reads the option, before the command line's: the first
  // pattern that maps a tag decides where it goes and whether it is forced.
  const texts = [...o.tags ? ['refs/tags/*'] : [],
    ...commandLineRefspecs(given, o.delete ?? false, (name) => mapped(config, remote, mode, name, refsNamed))];
  if (texts.length > 0 || remote.push.length > 0) return { specs: (texts.length > 0 ? texts : remote.push).map(parsePushRefspec), setUpstream: false };
  const chosen = defaultRefspec(config, mode, remote.name, branch);
  return { specs: [parsePushRefspec(chosen.text)], setUpstream: chosen.setUpstream };
}

/**
 * git's set_refspecs: `tag <name>` is refs/tags/<name>; with --delete each is a name to delete
 * (no colon, not empty); any other refspec without a colon goes through `map`.
 */
function commandLineRefspecs(given: readonly string[], del: boolean, map: (name: string) => string): string[] {
  const out: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const text = given[i]!;
    if (text === 'tag') {
      const tag = given[++i];
      if (tag === undefined) throw new GitError('cli', 'usage', 'tag shorthand without <tag>');
      out.push(`${del ? ':' : ''}refs/tags/${tag}`);
    } else if (del) {
      if (text.includes(':') || text === '') throw new GitError('cli', 'usage', '--delete only accepts plain target ref names');
      out.push(`:${text}`);
    } else out.push(text.includes(':') ? text : map(text));
  }
  return out;
}

/**
 * git's refspec_append_mapped: a name that is one local ref (HEAD is none) goes where the first
 * remote.<name>.push refspec that maps it sends it (forced if that one is); else, under
 * push.default=upstream, a branch goes to its one upstream (branch.<name>.merge, of whichever
 * remote: git does not check). Anything else stays as written.
 */
function mapped(config: Config, remote: Remote, mode: PushDefault, name: string, refsNamed: (name: string) => readonly LocalRef[]): string {
  const found = refspecMatches(name, refsNamed(name).filter((r) => r.name !== 'HEAD'));
  if (found.length !== 1) return name;
  const ref = found[0]!.name;
  const dst = remote.push.length > 0 ? pushDestinationFor(remote.push.map(parsePushRefspec), ref) : null;
  if (dst) return `${dst.force ? '+' : ''}${ref}:${dst.name}`;
  if (mode === 'upstream' && ref.startsWith('refs/heads/')) {
    const merges = upstreamMerges(config, ref.slice(11));
    if (merges.length === 1) return `${name}:${merges[0]}`;
  }
  return name;
}

/** git's set_merge: branch.<name>.merge's values, which count for nothing without branch.<name>.remote. */
function upstreamMerges(config: Config, branch: string): string[] {
  return config.get('branch', branch, 'remote') === undefined ? [] : config.getAll('branch', branch, 'merge');
}

/**
 * git's setup_default_push_refspecs (push.default, default "simple"), in its order: the mode, the
 * current branch, whether the push goes where a bare fetch fetches from, then the upstream.
 */
function defaultRefspec(config: Config, mode: PushDefault, remoteName: string, branch: string | null): { text: string; setUpstream: boolean } {
  if (mode === 'matching') return { text: ':', setUpstream: false };
  if (mode === 'nothing') throw new GitError('client', 'no-refspec', 'You didn\'t specify any refspecs to push, and push.default is "nothing".');
  if (branch === null) {
    throw new GitError('client', 'detached', `You are not currently on a branch.
To push the history leading to the current (detached HEAD)
state now, use

    git push ${remoteName} HEAD:<name-of-remote-branch>
`);
  }
  const current = `refs/heads/${branch}`;
  const merges = upstreamMerges(config, branch);
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

    git push ${remoteName} HEAD:${shortBranchName(merge)}

To push to the branch of the same name on the remote, use

    git push ${remoteName} HEAD
${pushDefaultAdvice}${autoSetupAdvice}`);
}
