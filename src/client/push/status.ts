// Whether each update may be sent, decided before anything is (git's remote.c
// set_ref_status_for_push and the --force-with-lease checks of apply_push_cas): up to date when the
// remote already has it; "stale info" when a lease names a value the remote ref no longer holds,
// and with --force-if-includes "remote ref updated since checkout" when the remote-tracking value a
// lease took was never integrated here;
// then, unless forced (by --force, a `+` refspec or a lease that held), a tag that exists is
// "already exists", an old value we lack is "fetch first", a non-commit on either side "needs
// force", and an update that is not a descendant "non-fast-forward".
import { GitError } from '../../core/errors.js';
import { fromHex, toHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import type { RefStore } from '../../refs/index.js';
import type { Repository } from '../../repository/repository.js';
import { isAncestor } from '../ancestry.js';
import { peeledValue } from '../peel.js';
import { expandAbbreviation } from '../../refs/refspec.js';
import type { PushTarget } from './refspec.js';

export type PushStatus =
  | 'pending' | 'ok' | 'up-to-date' | 'non-fast-forward' | 'already-exists' | 'fetch-first' | 'needs-force' | 'stale'
  | 'remote-updated' | 'no-delete' | 'remote-rejected' | 'expecting-report' | 'atomic-failed';

export interface PushRef extends PushTarget {
  status: PushStatus;
  /** Forced past a rejection ("+ old...new (forced update)"). */
  forcedUpdate: boolean;
  /** The remote's reason for refusing it. */
  remoteMessage: string | null;
}

/** --force-with-lease[=<ref>[:<expect>]]: an expected old value, or "the remote-tracking ref's". */
export interface Lease {
  /** null: every ref (a bare --force-with-lease). */
  readonly ref: string | null;
  /** A revision, '' for "must not exist", or null for the remote-tracking ref's value. */
  readonly expect: string | null;
}

export function parseLease(value: string | null): Lease {
  if (value === null) return { ref: null, expect: null };
  const colon = value.indexOf(':');
  return colon < 0 ? { ref: value, expect: null } : { ref: value.slice(0, colon), expect: value.slice(colon + 1) };
}

/** What a lease asks of one ref. */
export interface LeaseCheck {
  /** The value the remote ref must hold. */
  readonly expect: string;
  /** The remote-tracking ref `expect` was taken from, when it was (git's use_tracking); else null. */
  readonly tracking: string | null;
}

/** git's apply_cas: what a lease asks of `dst`, undefined when no lease covers it. */
export function leaseExpectation(repo: Repository, leases: readonly Lease[], dst: string,
  tracking: (dst: string) => { name: string; oid: string } | null): LeaseCheck | undefined {
  const explicit = leases.find((l) => l.ref !== null && expandAbbreviation(l.ref).includes(dst));
  const lease = explicit ?? leases.find((l) => l.ref === null);
  if (!lease) return undefined;
  if (lease.expect === null) {
    const t = tracking(dst);
    return t ? { expect: t.oid, tracking: t.name } : { expect: ZERO_HEX, tracking: null };
  }
  if (lease.expect === '') return { expect: ZERO_HEX, tracking: null };
  const id = repo.revs().tryResolve(lease.expect);
  if (!id) throw new GitError('client', 'bad-lease', `cannot parse expected object name '${lease.expect}'`);
  return { expect: toHex(id), tracking: null };
}

/**
 * git's is_reachable_in_reflog, for --force-if-includes: whether the remote's tip `remoteOid`
 * (its remote-tracking ref `tracking` holds it too) has been integrated here: it is, or is an
 * ancestor of, a value local ref `local` has had since `tracking` last changed, by its reflog.
 */
function integrated(repo: Repository, refs: RefStore, local: string, tracking: string, remoteOid: string): boolean {
  const remoteCommit = commitOf(repo, remoteOid);
  if (!remoteCommit) return false;
  const since = refs.reflog(tracking)?.at(-1)?.time ?? 0;
  const entries = refs.reflog(local) ?? [];
  const commits: string[] = [];
  for (let k = entries.length - 1; k >= 0; k--) {
    const e = entries[k]!;
    if (e.newOid === remoteCommit) return true;
    const c = commitOf(repo, e.newOid);
    if (c) commits.push(c);
    if (e.time < since) break;
  }
  return commits.some((c) => isAncestor(repo.odb, remoteCommit, c));
}

function commitOf(repo: Repository, oid: string): string | null {
  const peeled = peeledValue(repo.odb, oid) ?? oid;
  return repo.odb.info(fromHex(peeled)!)?.type === OBJ_COMMIT ? peeled : null;
}

/**
 * `lease`: what a --force-with-lease asks of the ref; with `forceIfIncludes`, a lease taken from a
 * remote-tracking ref also needs the remote's tip integrated here (git's check_reachable).
 */
export function pushStatus(repo: Repository, refs: RefStore, t: PushTarget, lease: LeaseCheck | undefined, forceIfIncludes: boolean): PushRef {
  const ref: PushRef = { ...t, status: 'pending', forcedUpdate: false, remoteMessage: null };
  const deletion = t.newOid === ZERO_HEX;
  if (!deletion && t.oldOid === t.newOid) {
    ref.status = 'up-to-date';
    return ref;
  }
  let force = t.force;
  let reject: PushStatus | null = null;
  if (lease !== undefined) {
    if (lease.expect !== t.oldOid) reject = 'stale';
    else if (forceIfIncludes && lease.tracking !== null && !integrated(repo, refs, t.dst, lease.tracking, t.oldOid)) reject = 'remote-updated';
    else force = true;
  }
  if (!reject && !deletion && t.oldOid !== ZERO_HEX) {
    if (t.dst.startsWith('refs/tags/')) reject = 'already-exists';
    else if (!repo.odb.has(fromHex(t.oldOid)!)) reject = 'fetch-first';
    else {
      const oldCommit = commitOf(repo, t.oldOid), newCommit = commitOf(repo, t.newOid);
      if (!oldCommit || !newCommit) reject = 'needs-force';
      else if (!isAncestor(repo.odb, oldCommit, newCommit)) reject = 'non-fast-forward';
    }
  }
  if (reject && !force) ref.status = reject;
  else if (reject) ref.forcedUpdate = true;
  return ref;
}

/** A status that makes the push fail (git's push_had_errors). */
export function isFailure(status: PushStatus): boolean {
  return status !== 'ok' && status !== 'up-to-date' && status !== 'pending';
}
