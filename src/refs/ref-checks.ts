// The checks of store.ts's contract that do not depend on where refs are kept: a name before it
// is read or written, a new value before it is written, and an expected old value against the
// value held (under the ref's lock).
import { GitError } from '../core/errors.js';
import { isHexOid, ZERO_HEX } from '../core/oid.js';
import { checkRefPath } from './check-ref-format.js';

export function checkName(name: string, action: string): void {
  const reason = checkRefPath(name);
  if (reason !== null) throw new GitError('refs', 'invalid-ref', `cannot ${action} ref '${name}': the name ${reason}`);
}

/** `newOid` in lower case; the zero id is refused, as removing a ref is a delete. */
export function checkNewOid(name: string, newOid: string): string {
  if (!isHexOid(newOid) || newOid === ZERO_HEX) {
    throw new GitError('refs', 'invalid-oid', `cannot update ref '${name}': '${newOid}' is not a 40-hex object id (use delete to remove a ref)`);
  }
  return newOid.toLowerCase();
}

export function checkOld(name: string, current: string | null, oldOid: string | null | undefined): void {
  if (oldOid === undefined) return;
  const fail = (why: string) => new GitError('refs', 'ref-changed', `cannot lock ref '${name}': ${why}`);
  if (oldOid === null || oldOid === ZERO_HEX) {
    if (current !== null) throw fail('reference already exists');
    return;
  }
  if (!isHexOid(oldOid)) throw new GitError('refs', 'invalid-oid', `cannot lock ref '${name}': expected value '${oldOid}' is not a 40-hex object id`);
  if (current === null) throw fail(`unable to resolve reference '${name}'`);
  if (current !== oldOid.toLowerCase()) throw fail(`is at ${current} but expected ${oldOid.toLowerCase()}`);
}
