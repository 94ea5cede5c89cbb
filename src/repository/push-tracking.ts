// `<branch>@{push}`: the remote-tracking ref a bare `git push` of the branch would update, as git's
// remote.c branch_get_push finds it. The push goes to branch.<name>.pushRemote, else
// remote.pushDefault, else the remote fetched from; the ref it updates there comes from that
// remote's push refspecs, else from push.default (a mirror remote pushes the branch to its own
// name); the fetch refspecs then say where that remote ref is kept here.
import { GitError } from '../core/errors.js';
import { parsePushRefspec, parseRefspec, trackingRefFor } from '../refs/refspec.js';
import { pushDefault } from './push-default.js';
import { pushRemoteOf, type Remote } from './remotes.js';
import type { Repository } from './repository.js';
import { currentBranchNamed, upstreamOf } from './upstream.js';

/** The full name of the ref `branch@{push}` names ('' or HEAD: the branch checked out), or git's error for why there is none. */
export function pushTrackingOf(repo: Repository, branch: string, env: NodeJS.ProcessEnv = process.env): string {
  const config = repo.remotesConfig(env);
  const name = currentBranchNamed(repo, branch);
  const refname = `refs/heads/${name}`;
  const remote = pushRemoteOf(config, repo.commonDir, name);
  if (remote.push.length > 0) {
    const dst = trackingRefFor(remote.push.map(parsePushRefspec), refname);
    if (dst === null) throw new GitError('refs', 'no-push', `push refspecs for '${remote.name}' do not include '${name}'`);
    return trackingForPushDest(remote, dst);
  }
  if (remote.mirror) return trackingForPushDest(remote, refname);
  switch (pushDefault(config)) {
    case 'nothing': throw new GitError('refs', 'no-push', 'push has no destination (push.default is \'nothing\')');
    case 'matching': case 'current': return trackingForPushDest(remote, refname);
    case 'upstream': return upstreamOf(repo, name, env);
    case 'simple': {
      // git 2.39 asks for the upstream first, whichever remote the push goes to.
      const upstream = upstreamOf(repo, name, env);
      const tracking = trackingForPushDest(remote, refname);
      if (tracking !== upstream) throw new GitError('refs', 'no-push', 'cannot resolve \'simple\' push to a single destination');
      return tracking;
    }
  }
}

/** git's tracking_for_push_dest: where the remote's fetch refspecs keep its ref `dst`. */
function trackingForPushDest(remote: Remote, dst: string): string {
  const tracking = trackingRefFor(remote.fetch.map(parseRefspec), dst);
  if (tracking === null) throw new GitError('refs', 'no-push', `push destination '${dst}' on remote '${remote.name}' has no local tracking branch`);
  return tracking;
}
