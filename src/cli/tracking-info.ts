// How a branch stands against its upstream, in the words of git's remote.c format_tracking_info
// (which `git checkout` prints after a switch): up to date, ahead, behind, diverged (counted as
// stat_tracking_info counts), or based on an upstream that is gone; with advice.statusHints off,
// without the "(use ...)" lines.
import { aheadBehind } from '../client/ancestry.js';
import { peeledValue } from '../client/peel.js';
import { GitError } from '../core/errors.js';
import { fromHex } from '../core/oid.js';
import { OBJ_COMMIT } from '../object/type.js';
import type { Repository } from '../repository/repository.js';
import { upstreamOf } from '../repository/upstream.js';
import { shortenRef } from './ref-names.js';

/** The full name of the upstream of `branch` (a short name), null when git's branch_get_upstream finds none. */
export function configuredUpstream(repo: Repository, branch: string, env: NodeJS.ProcessEnv): string | null {
  try {
    return upstreamOf(repo, branch, env);
  } catch (e) {
    if (e instanceof GitError && e.code === 'no-upstream') return null;
    throw e;
  }
}

/** What git says of `branch` (a short name) following `upstream` (a full ref name). */
export function trackingInfo(repo: Repository, branch: string, upstream: string, hints: boolean): string {
  const base = shortenRef(repo, upstream, false);
  const hint = (command: string, why: string): string => hints ? `  (use "${command}" ${why})\n` : '';
  const theirs = commitOf(repo, upstream);
  const ours = theirs && commitOf(repo, `refs/heads/${branch}`);
  // git's stat_branch_pair fails alike when the branch itself cannot be read.
  if (!theirs || !ours) return `Your branch is based on '${base}', but the upstream is gone.\n${hint('git branch --unset-upstream', 'to fixup')}`;
  if (theirs === ours) return `Your branch is up to date with '${base}'.\n`;
  const { ahead, behind } = aheadBehind(repo.odb, fromHex(ours)!, fromHex(theirs)!, repo.shallowCommits());
  const commits = (n: number): string => `${n} commit${n === 1 ? '' : 's'}`;
  if (behind === 0) return `Your branch is ahead of '${base}' by ${commits(ahead)}.\n${hint('git push', 'to publish your local commits')}`;
  if (ahead === 0) {
    return `Your branch is behind '${base}' by ${commits(behind)}, and can be fast-forwarded.\n${hint('git pull', 'to update your local branch')}`;
  }
  // Both counts are at least 1 here, so git's plural.
  return `Your branch and '${base}' have diverged,\nand have ${ahead} and ${behind} different commits each, respectively.\n`
    + hint('git pull', 'to merge the remote branch into yours');
}

/** The commit `ref` peels to (git's lookup_commit_reference), as hex; null when it has none. */
function commitOf(repo: Repository, ref: string): string | null {
  const hex = repo.resolveRef(ref);
  if (hex === null) return null;
  const peeled = peeledValue(repo.odb, hex) ?? hex;
  return repo.odb.info(fromHex(peeled)!)?.type === OBJ_COMMIT ? peeled : null;
}
