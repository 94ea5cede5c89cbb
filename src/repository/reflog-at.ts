// Revisions read from reflogs. `<ref>@{<n>}`, as git's get_oid_basic reads a reflog: the ref is
// found by git's search rules among those that have a reflog (dwim_log), '' meaning the branch
// checked out (HEAD when detached); entry n counts back from the newest, and a reflog with no more
// entries is an error. `@{-<n>}`, the branch checked out before, from HEAD's reflog.
import { GitError } from '../core/errors.js';
import type { ReflogEntry } from '../refs/reflog.js';
import { expandAbbreviation } from '../refs/refspec.js';
import type { Repository } from './repository.js';


/** The value `ref` had `n` updates ago, as hex; null when no ref of that name has a reflog. */
export function reflogAt(repo: Repository, ref: string, n: number): string | null {
  let full: string | null = null;
  let entries: ReflogEntry[] = [];
  if (ref === '') {
    const head = repo.refs.headTarget();
    full = head?.startsWith('refs/heads/') ? head : 'HEAD';
    entries = repo.refs.reflog(full);
  } else {
    search: for (const name of expandAbbreviation(ref)) {
      const found = repo.resolveRefChain(name);
      if (found === null) continue;
      // The name itself, or the ref it is a symbolic ref to, with a reflog.
      for (const logged of new Set([name, found.chain.at(-1)!])) {
        entries = repo.refs.reflog(logged);
        if (entries.length > 0) {
          full = logged;
          break search;
        }
      }
    }
  }
  if (full === null || entries.length === 0) return null;
  if (n >= entries.length) {
    const shown = ref !== '' ? ref : full.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : 'HEAD';
    throw new GitError('refs', 'reflog-short', `log for '${shown}' only has ${entries.length} entries`);
  }
  return entries[entries.length - 1 - n]!.newOid;
}

/**
 * `@{-<n>}`: the branch (or commit id) HEAD moved away from at the n-th last checkout, read from
 * HEAD's reflog as git's interpret_nth_prior_checkout does; null when there were fewer.
 */
export function priorCheckout(repo: Repository, n: number): string | null {
  const entries = repo.refs.reflog('HEAD');
  let seen = 0;
  for (let k = entries.length - 1; k >= 0; k--) {
    const m = /^checkout: moving from (\S+) to \S+$/.exec(entries[k]!.message);
    if (m && ++seen === n) return m[1]!;
  }
  return null;
}
