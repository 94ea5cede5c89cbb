// The part of a checkout plan a sparse checkout writes: the entries inside the sparse patterns,
// with the plan's directories (only those holding such an entry get created). The index is still
// written from the whole plan, the others marked skip-worktree.
import { OID_BYTES } from '../../core/oid.js';
import { isAttributesPath } from '../attributes/file-name.js';
import { entryPath, sharedColumns, type CheckoutPlan } from '../checkout/plan.js';
import type { SparseMatcher } from './matcher.js';

/** 1 for each entry of the plan outside the patterns (skip-worktree), else 0. */
export function skippedEntries(plan: CheckoutPlan, sparse: SparseMatcher): Uint8Array {
  const skip = new Uint8Array(plan.count);
  for (let i = 0; i < plan.count; i++) skip[i] = sparse.includesEntry(plan.root, entryPath(plan, i), plan.modes[i]!) ? 0 : 1;
  return skip;
}

/**
 * The plan of the entries `skip` leaves in, in the same order, reading only the .gitattributes git
 * reads for them.
 */
export function insidePlan(plan: CheckoutPlan, skip: Uint8Array): CheckoutPlan {
  let count = 0, pathBytes = 0;
  for (let i = 0; i < plan.count; i++) {
    if (skip[i]) continue;
    count++;
    pathBytes += plan.pathStart[i + 1]! - plan.pathStart[i]!;
  }
  const columns = sharedColumns(count, pathBytes);
  const { paths, pathStart, nameStart, oids, modes, dirOf, rawName } = columns;
  let k = 0, at = 0;
  for (let i = 0; i < plan.count; i++) {
    if (skip[i]) continue;
    const s = plan.pathStart[i]!, e = plan.pathStart[i + 1]!;
    pathStart[k] = at;
    nameStart[k] = at + plan.nameStart[i]! - s;
    plan.paths.copy(paths, at, s, e);
    at += e - s;
    plan.oids.copy(oids, k * OID_BYTES, i * OID_BYTES, (i + 1) * OID_BYTES);
    modes[k] = plan.modes[i]!;
    dirOf[k] = plan.dirOf[i]!;
    rawName[k] = plan.rawName[i]!;
    k++;
  }
  pathStart[count] = at;
  return withAttributesOf({ ...plan, count, ...columns }, () => true);
}

/**
 * The plan with no .gitattributes but those git reads for the entries `inside` says it may write:
 * of their directories and the directories above. Git looks up the attributes of a file as it
 * writes it; a directory holding nothing written is never read (and in a partial clone its blob
 * need not be there).
 */
export function withAttributesOf(plan: CheckoutPlan, inside: (i: number) => boolean): CheckoutPlan {
  const read = new Uint8Array(plan.dirs.length);
  for (let i = 0; i < plan.count; i++) {
    if (!inside(i)) continue;
    for (let d = plan.dirOf[i]!; d >= 0 && !read[d]; d = plan.dirs[d]!.parent) read[d] = 1;
  }
  return { ...plan, dirs: plan.dirs.map((d, k) => (d.attributes && !read[k] ? { ...d, attributes: null } : d)) };
}

/**
 * Tree or index entries (by path) with no .gitattributes that cone mode leaves out: git reads
 * none of those in either direction, so they do not count when a file is read back either.
 */
export function withConeAttributesOnly<T>(entries: ReadonlyMap<string, T>, sparse: SparseMatcher | null): ReadonlyMap<string, T> {
  if (!sparse?.cone) return entries;
  const outside = [...entries.keys()].filter((key) => {
    const p = Buffer.from(key, 'latin1');
    return isAttributesPath(p) && !sparse.includes(p);
  });
  if (!outside.length) return entries;
  const out = new Map(entries);
  for (const key of outside) out.delete(key);
  return out;
}
