// Revisions read from reflogs. `<ref>@{<n>}` and `<ref>@{<date>}`, as git's get_oid_basic reads a
// reflog: the ref is found by git's search rules among those that have a reflog (dwim_log), ''
// meaning the branch checked out (HEAD when detached); the entry is found as refs.c read_ref_at
// finds it, counting back n updates or going back to the last update at or before the date. A
// count past the reflog's start is an error; a date before it gives the oldest value known, with
// git's warning. `@{-<n>}`, the branch checked out before, from HEAD's reflog.
import { parseApproxDate } from '../core/approxidate.js';
import { GitError } from '../core/errors.js';
import { ZERO_HEX } from '../core/oid.js';
import { rfc2822Date } from '../core/show-date.js';
import type { ReflogEntry } from '../refs/reflog.js';
import { expandAbbreviation } from '../refs/refspec.js';
import type { Repository } from './repository.js';
import { branchOf } from '../refs/branch-name.js';

/**
 * The value `ref` had at `when` (the text between the braces: a count of updates back, or a date),
 * as hex; null when no ref of that name has a reflog or `when` is no date tsgit reads. `warn` is
 * told what git warns of on the way.
 */
export function reflogAt(repo: Repository, ref: string, when: string, warn: ((text: string) => void) | null): string | null {
  const log = dwimLog(repo, ref);
  if (log === null) return null;
  // git's get_oid_basic: digits are a count, unless there are enough of them to be a Unix time.
  let count = -1;
  let atTime = 0;
  if (/^[0-9]+$/.test(when)) {
    const n = Number(when);
    if (n >= 100000000) atTime = n;
    else count = n;
  } else {
    try {
      atTime = parseApproxDate(when);
    } catch (e) {
      if (e instanceof GitError && e.code === 'bad-date') return null;
      throw e;
    }
  }
  if (log.entries.length === 0) {
    // git's read_ref_at on a reflog without entries: @{0} is the ref's value now; anything else dies.
    if (count === 0) return repo.resolveRef(log.full);
    throw new GitError('refs', 'reflog-short', `log for ${log.full} is empty`);
  }
  const at = readRefAt(log, atTime, count, repo.resolveRef(log.full), warn);
  if (at.found) return at.oid;
  const shown = ref !== '' ? ref : branchOf(log.full) ?? 'HEAD';
  if (count < 0) {
    warn?.(`warning: log for '${shown}' only goes back to ${rfc2822Date(at.cutoff.time, at.cutoff.tz)}\n`);
    return at.oid;
  }
  throw new GitError('refs', 'reflog-short', `log for '${shown}' only has ${log.entries.length} entries`);
}

interface Reflog {
  /** The ref whose reflog it is. */
  full: string;
  /** Oldest first; none for an empty reflog file, or a branch checked out that has no reflog. */
  entries: ReflogEntry[];
}

/**
 * git's dwim_log: the first ref `ref` can name, or the ref it is a symbolic ref to, that has a
 * reflog, even an empty one. '' is the ref HEAD resolves to (git's dwim_ref of HEAD), reflog or none.
 */
function dwimLog(repo: Repository, ref: string): Reflog | null {
  if (ref === '') {
    const full = repo.resolveRefChain('HEAD')?.chain.at(-1);
    return full === undefined ? null : { full, entries: repo.refs.reflog(full) ?? [] };
  }
  for (const name of expandAbbreviation(ref)) {
    const found = repo.resolveRefChain(name);
    if (found === null) continue;
    for (const logged of new Set([name, found.chain.at(-1)!])) {
      const entries = repo.refs.reflog(logged);
      if (entries !== null) return { full: logged, entries };
    }
  }
  return null;
}

/**
 * git's read_ref_at over `log`, newest entry first: with `count` >= 0 the value before the
 * count-th newest update (an update that created the ref counts, but is not stopped at); else the
 * value after the newest update made at or before `atTime`. Not found: the oldest value the log
 * knows, with the oldest entry (`cutoff`) for the warning. `current` is the ref's value now, which
 * the newest entry should agree with.
 */
function readRefAt(log: Reflog, atTime: number, count: number, current: string | null, warn: ((text: string) => void) | null):
  { oid: string; found: boolean; cutoff: ReflogEntry } {
  const { full, entries } = log;
  const newest = entries.at(-1)!;
  if (count === 0) return { oid: newest.newOid, found: true, cutoff: newest };
  // The old value of the entry met before this one (git's cb->ooid): none yet.
  let laterOld: string | null = null;
  for (let k = entries.length - 1; k >= 0; k--) {
    const e = entries[k]!;
    if (count > 0) count--;
    const reachedCount = count === 0 && e.oldOid !== ZERO_HEX;
    if (e.time > atTime && !reachedCount) {
      laterOld = e.oldOid;
      continue;
    }
    const when = rfc2822Date(e.time, e.tz);
    const later = laterOld !== null && laterOld !== ZERO_HEX;
    if (later && laterOld !== e.newOid) warn?.(`warning: log for ref ${full} has gap after ${when}\n`);
    let oid = current ?? newest.newOid;
    if (reachedCount) oid = e.oldOid;
    else if (later || e.time === atTime) oid = e.newOid;
    else if (e.newOid !== oid) warn?.(`warning: log for ref ${full} unexpectedly ended on ${when}\n`);
    return { oid, found: true, cutoff: e };
  }
  const oldest = entries[0]!;
  return { oid: oldest.oldOid !== ZERO_HEX ? oldest.oldOid : oldest.newOid, found: false, cutoff: oldest };
}

/**
 * `@{-<n>}`: the branch (or commit id) HEAD moved away from at the n-th last checkout, read from
 * HEAD's reflog as git's interpret_nth_prior_checkout does; null when there were fewer.
 */
export function priorCheckout(repo: Repository, n: number): string | null {
  const entries = repo.refs.reflog('HEAD') ?? [];
  let seen = 0;
  for (let k = entries.length - 1; k >= 0; k--) {
    const m = /^checkout: moving from (\S+) to \S+$/.exec(entries[k]!.message);
    if (m && ++seen === n) return m[1]!;
  }
  return null;
}
