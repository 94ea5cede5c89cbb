// git's check_connected (connected.c) for fetch and clone: before a ref points at what a remote
// sent, everything the ref's new value reaches, short of what the refs here reach already, must
// be here. As git decides it:
//   - in a repository with a promisor remote (a partial clone), a value a promisor pack holds is
//     taken as it is: what it lacks was promised. When every value is, nothing is walked;
//   - a value in a pack stored closed (PackStored.closed) needs no walk (git's
//     self_contained_and_connected);
//   - the others are walked (walk/connectivity.ts), as rev-list --objects <values> --not --all
//     with the alternates' refs, with the shallow file in effect and with promised objects
//     excluded. After a fetch that deepened, without --not --all: deepening gave commits our refs
//     reach new parents, whose history must be here too (git's is_deepening_fetch).
// The same check, quietly, is git's quickfetch: a ref value already here whose history is not
// is fetched again rather than believed (incompleteTips).
import { GitError } from '../core/errors.js';
import { fromHex } from '../core/oid.js';
import type { RefStore } from '../refs/index.js';
import type { Repository } from '../repository/repository.js';
import { connectivityGap } from '../walk/connectivity.js';
import { PromisorObjects } from '../walk/promisor-objects.js';

export interface ConnectedOptions {
  /** The shallow file in effect: after a fetch, the one it leaves. */
  readonly shallow: Iterable<string>;
  /** After a fetch that deepened: our refs' history is walked too. */
  readonly deepening: boolean;
  /**
   * The repository has a promisor remote (git's has_promisor_remote): true, or the promised
   * objects already gathered, so that several checks read the promisor packs once.
   */
  readonly promisor: boolean | PromisorObjects;
  /** Names of the packs just stored closed (PackStored). */
  readonly closedPacks?: readonly string[];
  /** The ref values of the repositories whose objects are borrowed (git's --alternate-refs). */
  readonly alternateTips?: readonly string[];
}

/** null when what `tips` (hex ids) reach is here, or promised; else what is missing, as the walk says it. */
export function missingHistory(repo: Repository, refStore: RefStore, tips: readonly string[], o: ConnectedOptions): string | null {
  const odb = repo.odb;
  const existing = o.deepening ? [] : [...localTips(repo, refStore), ...(o.alternateTips ?? [])];
  // A value a ref here has already is excluded as soon as the walk starts: the walk of a fetch
  // that changed nothing would still parse every such commit.
  const known = new Set(existing);
  let rest = [...new Set(tips)].filter((oid) => !known.has(oid)).map((oid) => fromHex(oid)!);
  const promisor = o.promisor === true ? new PromisorObjects(odb) : o.promisor || null;
  if (promisor) rest = rest.filter((id) => !promisor.holds(id));
  const closed = odb.allPacks().filter((p) => o.closedPacks?.includes(p.name));
  if (closed.length > 0) rest = rest.filter((id) => !closed.some((p) => p.index.find(id) >= 0));
  if (rest.length === 0) return null;
  return connectivityGap(odb, rest, existing.map((oid) => fromHex(oid)!), {
    shallow: [...o.shallow].map((oid) => fromHex(oid)!), ...(promisor ? { promisor } : {}),
  });
}

/**
 * Refuses the transfer as git does when `missing` (missingHistory's answer) says something is,
 * first saying what, as git's rev-list does. `who` is 'remote' for a clone and for a fetch that
 * deepened (the check of fetch-pack), the remote's URL for another fetch (that of
 * store_updated_refs, whose text ends in a newline of its own).
 */
export function refuseIfMissing(missing: string | null, who: string, log: (text: string) => void): void {
  if (missing === null) return;
  log(`fatal: ${missing}\n`);
  throw new GitError('client', 'missing-objects', who === 'remote'
    ? 'remote did not send all necessary objects' : `${who} did not send all necessary objects\n`);
}

/**
 * The ref values among `tips` that are here but whose history is not (a ref rejected for the
 * shallow file left its objects, and so does a fetch refused by the check above): git's quickfetch,
 * check_connected on them. They are to be fetched again, not claimed as common.
 */
export function incompleteTips(repo: Repository, refStore: RefStore, tips: readonly string[],
  o: { shallow: ReadonlySet<string>; promisor: boolean }): Set<string> {
  const ours = new Set(localTips(repo, refStore));
  const present = [...new Set(tips)].filter((oid) => !ours.has(oid) && repo.odb.has(fromHex(oid)!));
  // One gathering of the promised objects for every check below, tip by tip when some fail.
  const promisor = o.promisor ? new PromisorObjects(repo.odb) : false;
  const complete = (some: readonly string[]) =>
    missingHistory(repo, refStore, some, { shallow: o.shallow, deepening: false, promisor }) === null;
  if (present.length === 0 || complete(present)) return new Set();
  return new Set(present.filter((oid) => !complete([oid])));
}

/** What our refs and HEAD point at, when it is here (git's mark_uninteresting skips the rest). */
export function localTips(repo: Repository, refStore: RefStore): string[] {
  const oids = refStore.list().map((r) => r.oid);
  const head = refStore.head().oid;
  if (head !== null) oids.push(head);
  return [...new Set(oids)].filter((oid) => repo.odb.has(fromHex(oid)!));
}
