// `tsgit remote prune [-n] <name>...`, as git 2.39's prune_remote: the remote's refs listed, and
// every local ref its fetch refspecs map to a remote ref that is no longer there (git's
// get_stale_heads) deleted, or with -n only named; symbolic refs left pointing at one are warned of.
import { remoteGet } from '../repository/remotes.js';
import { GitError } from '../core/errors.js';
import { parseRefspec, trackedSourcesFor } from '../refs/refspec.js';
import { Output, writeStderr } from './output.js';
import { remoteRefs, type RemoteSetup } from './remote-edit.js';
import { shortBranchName } from '../refs/branch-name.js';

export async function pruneRemote(setup: RemoteSetup, name: string, dryRun: boolean): Promise<number> {
  // git's get_remote_ref_states: remote_get, configured in the repository or not.
  const remote = remoteGet(setup.config, setup.repo.commonDir, name);
  const specs = remote.fetch.map(parseRefspec);
  const advertised = new Set((await remoteRefs(setup, name)).map((r) => r.name));
  const refs = setup.repo.openRefs(setup.ctx.env, setup.config);
  const local = refs.list('refs/');
  const stale = local.filter((r) => {
    if (r.symref !== undefined) return false;
    const sources = trackedSourcesFor(specs, r.name);
    return sources.length > 0 && !sources.some((s) => advertised.has(s));
  }).map((r) => r.name);
  if (stale.length === 0) return 0;
  const gone = new Set(stale);
  // Found before the deletions, while they still resolve.
  const dangling = local.filter((r) => r.symref !== undefined && gone.has(r.symref)).map((r) => r.name);
  const out = new Output();
  out.text(`Pruning ${name}\nURL: ${remote.urls[0]}\n`);
  let result = 0;
  if (!dryRun) {
    for (const ref of stale) {
      try {
        refs.delete(ref);
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        writeStderr(`error: ${e.message}\n`);
        result = 1;
      }
    }
  }
  const shown = (ref: string) => (ref.startsWith('refs/remotes/') ? ref.slice('refs/remotes/'.length) : ref);
  for (const ref of [...stale].sort((a, b) => compare(shortBranchName(a), shortBranchName(b)))) {
    out.text(` * [${dryRun ? 'would prune' : 'pruned'}] ${shown(ref)}\n`);
  }
  for (const ref of dangling) out.text(` ${ref} ${dryRun ? 'will become' : 'has become'} dangling!\n`);
  out.flush();
  return result;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
