// Whether each update may be sent, decided before anything is (git's remote.c
// set_ref_status_for_push and the --force-with-lease checks of apply_push_cas): up to date when the
// remote already has it; "stale info" when a lease names a value the remote ref no longer holds;
// then, unless forced (by --force, a `+` refspec or a lease that held), a tag that exists is
// "already exists", an old value we lack is "fetch first", a non-commit on either side "needs
// force", and an update that is not a descendant "non-fast-forward".
import { GitError } from '../../core/errors.js';
import { fromHex, toHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import type { Repository } from '../../repository/repository.js';
import { isAncestor } from '../ancestry.js';
import { peeledValue } from '../peel.js';
import { expandAbbreviation } from '../refspec.js';
import type { PushTarget } from './refspec.js';

export type PushStatus =
  | 'pending' | 'ok' | 'up-to-date' | 'non-fast-forward' | 'already-exists' | 'fetch-first' | 'needs-force' | 'stale'
  | 'no-delete' | 'remote-rejected' | 'expecting-report' | 'atomic-failed';

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

/** git's apply_cas: the value a lease expects for `dst`, undefined when no lease covers it. */
export function leaseExpectation(repo: Repository, leases: readonly Lease[], dst: string, tracking: (dst: string) => string | null): string | undefined {
  const explicit = leases.find((l) => l.ref !== null && expandAbbreviation(l.ref).includes(dst));
  const lease = explicit ?? leases.find((l) => l.ref === null);
  if (!lease) return undefined;
  if (lease.expect === null) return tracking(dst) ?? ZERO_HEX;
  if (lease.expect === '') return ZERO_HEX;
  const id = repo.revs().tryResolve(lease.expect);
  if (!id) throw new GitError('client', 'bad-lease', `cannot parse expected object name '${lease.expect}'`);
  return toHex(id);
}

function commitOf(repo: Repository, oid: string): string | null {
  const peeled = peeledValue(repo.odb, oid) ?? oid;
  return repo.odb.info(fromHex(peeled)!)?.type === OBJ_COMMIT ? peeled : null;
}

export function pushStatus(repo: Repository, t: PushTarget, expect: string | undefined): PushRef {
  const ref: PushRef = { ...t, status: 'pending', forcedUpdate: false, remoteMessage: null };
  const deletion = t.newOid === ZERO_HEX;
  if (!deletion && t.oldOid === t.newOid) {
    ref.status = 'up-to-date';
    return ref;
  }
  let force = t.force;
  let reject: PushStatus | null = null;
  if (expect !== undefined) {
    if (expect !== t.oldOid) reject = 'stale';
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
