// The upstream of a branch checkout makes (-b, -B, --track, or a remote-tracking branch's name
// checked out), as git's branch.c create_branch sets it up: the start point must name a branch or
// a remote's remote-tracking branch (dwim_branch_start), the mode comes from --[no-]track or else
// branch.autoSetupMerge, and a remote-tracking branch is followed back through the remotes' fetch
// refspecs to the remote's branch (setup_tracking).
import type { Config } from '../config/index.js';
import { GitError } from '../core/errors.js';
import { parseRefspec, trackedSourcesFor } from '../refs/refspec.js';
import { configuredRemotes } from '../repository/remotes.js';
import type { Repository } from '../repository/repository.js';
import { installBranchConfig, type BranchConfigNote } from '../repository/upstream.js';
import { fatal } from './context.js';
import { dwimRef } from './ref-names.js';
import { shortBranchName } from '../refs/branch-name.js';

/**
 * git's enum branch_track: `remote` tracks remote-tracking branches only (autoSetupMerge's
 * default), `always` local branches too, `simple` only a remote's branch of the new branch's own
 * name, `inherit` copies the start branch's upstream, and `explicit` (--track) tracks what the
 * start point names or dies.
 */
export type TrackMode = 'never' | 'remote' | 'always' | 'simple' | 'inherit' | 'explicit';

/** branch.autoSetupMerge as git_default_branch_config reads it: its three words, else a boolean. */
export function configuredTrackMode(config: Config): TrackMode {
  const value = config.get('branch', null, 'autosetupmerge');
  if (value === 'always' || value === 'inherit' || value === 'simple') return value;
  return config.getBool('branch', null, 'autosetupmerge') ?? true ? 'remote' : 'never';
}

/**
 * git's dwim_branch_start: the ref the start point `start` names (the end of its symbolic chain)
 * when that is a branch or a configured remote's remote-tracking branch, else null; with
 * --track, anything else is git's fatal error.
 */
export function trackableStart(repo: Repository, config: Config, start: string, mode: TrackMode): string | null {
  const { full } = dwimRef(repo, start);
  if (full !== null && (full.startsWith('refs/heads/') || trackingRemotes(config, full).length > 0)) return full;
  if (mode === 'explicit') throw fatal(`cannot set up tracking information; starting point '${start}' is not a branch`);
  return null;
}

/**
 * git's setup_tracking: `branch` (new, at `startRef`) made to follow what `mode` says, written
 * by installBranchConfig; what git says of it, or of why it did not.
 */
export function setupTracking(config: Config, branch: string, startRef: string, mode: TrackMode): BranchConfigNote {
  const none = { out: '', err: '' };
  if (mode === 'never') return none;
  if (mode === 'inherit') {
    const from = shortBranchName(startRef);
    const remote = config.get('branch', from, 'remote');
    if (remote === undefined) return { out: '', err: `warning: asked to inherit tracking from '${from}', but no remote is set\n` };
    const merges = config.getAll('branch', from, 'merge');
    if (merges.length === 0 || merges[0] === '') {
      return { out: '', err: `warning: asked to inherit tracking from '${from}', but no merge configuration is set\n` };
    }
    return installBranchConfig(config, branch, remote, merges);
  }
  const found = trackingRemotes(config, startRef);
  if (found.length > 1) throw ambiguousTracking(startRef, found.map((f) => f.remote));
  const match = found[0];
  // A local branch is tracked only when asked to be, always or by --track.
  if (!match && mode !== 'always' && mode !== 'explicit') return none;
  if (mode === 'simple' && match?.source !== `refs/heads/${branch}`) return none;
  return match ? installBranchConfig(config, branch, match.remote, [match.source]) : installBranchConfig(config, branch, null, [startRef]);
}

/** The configured remotes whose fetch refspecs store a ref in `ref`, with the first remote ref each stores there (git's find_tracked_branch). */
function trackingRemotes(config: Config, ref: string): { remote: string; source: string }[] {
  return configuredRemotes(config).flatMap((r) => {
    const source = trackedSourcesFor(r.fetch.map(parseRefspec), ref)[0];
    return source === undefined ? [] : [{ remote: r.name, source }];
  });
}

/** git's fatal error, and its advice, for a remote-tracking ref that several remotes fetch into. */
function ambiguousTracking(ref: string, remotes: readonly string[]): GitError {
  const hint = [
    'There are multiple remotes whose fetch refspecs map to the remote', `tracking ref '${ref}':`, ...remotes.map((r) => `  ${r}`), '',
    'This is typically a configuration error.', '', 'To support setting up tracking branches, ensure that',
    "different remotes' fetch refspecs map into different", 'tracking namespaces.',
  ];
  return fatal(`not tracking: ambiguous information for ref '${ref}'\n${hint.map((l) => `hint: ${l}`).join('\n')}`);
}
