// The refs upload-pack shows a client, read once per request: HEAD (and what it names), then every
// ref under refs/ in git's order, each with what an annotated tag peels to. Like git, a ref whose
// object is missing is left out rather than advertised.
// A repository kept open between requests (worker-repos.ts) keeps its last snapshot: when HEAD and
// the listing of refs (loose files read again, packed-refs re-parsed when its stat changed) are as
// they were, the snapshot is that same object, so what was derived from it (the ids advertised,
// the ls-refs answer, the tags' pack positions) need not be derived again. An object that was
// there stays there while the repository is open: its packs are the same (any change to them
// opens it anew), and a loose object a ref names is not pruned. A snapshot that left a ref out is
// not kept.
import { Derived, DerivedKey } from '../core/derived.js';
import { fromHex, toHex } from '../core/oid.js';
import { parseTag } from '../object/tag.js';
import { OBJ_TAG } from '../object/type.js';
import type { HeadState, RefEntry } from '../refs/store.js';
import type { Repository } from '../repository/repository.js';

export interface ServedRef {
  readonly name: string;
  readonly oid: string;
  /** The first non-tag object an annotated tag leads to. */
  readonly peeled?: string;
  /** For a symbolic ref (HEAD, refs/remotes/origin/HEAD): the ref it names. */
  readonly symref?: string;
}

export interface RefSnapshot {
  /** What is computed once per snapshot (the advertised ids, ls-refs answers, tag positions). */
  readonly derived: Derived;
  /** HEAD when it resolves to an object. */
  readonly head: ServedRef | null;
  /** The ref HEAD names, even when that branch is unborn; null when HEAD is detached. */
  readonly headTarget: string | null;
  /** Every other ref, sorted by name. */
  readonly refs: ServedRef[];
}

/** Tag chains longer than this are treated as unpeelable (git's deref loop has no limit; a cycle is impossible with real ids). */
const MAX_TAG_CHAIN = 64;

/** The last snapshot of a repository's refs and what it was read from, kept until they change. */
const LAST_SNAPSHOT = new DerivedKey<{ head: HeadState; listed: RefEntry[]; snapshot: RefSnapshot }>('refs snapshot');
const ADVERTISED = new DerivedKey<Set<string>>('advertised ids');

export function snapshotRefs(repo: Repository): RefSnapshot {
  const state = repo.refs.head();
  const listed = repo.refs.list('refs/');
  const last = repo.derived.get(LAST_SNAPSHOT);
  if (last && sameHead(last.head, state) && sameListing(last.listed, listed)) return last.snapshot;
  const snapshot = readSnapshot(repo, state, listed);
  // A ref left out for a missing object is looked at again next time, in case the object came.
  const complete = snapshot.refs.length === listed.length && (snapshot.head !== null || state.oid === null);
  if (complete) repo.derived.set(LAST_SNAPSHOT, { head: state, listed, snapshot });
  else repo.derived.delete(LAST_SNAPSHOT);
  return snapshot;
}

function sameHead(a: HeadState, b: HeadState): boolean {
  return a.oid === b.oid && a.symref === b.symref;
}

function sameListing(a: readonly RefEntry[], b: readonly RefEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!, y = b[i]!;
    if (x.name !== y.name || x.oid !== y.oid || x.peeled !== y.peeled || x.symref !== y.symref) return false;
  }
  return true;
}

function readSnapshot(repo: Repository, state: HeadState, listed: readonly RefEntry[]): RefSnapshot {
  const odb = repo.odb;
  // packed-refs may already say: an id (an annotated tag's target) or null (not a tag).
  const peel = (hex: string, known?: string | null): string | undefined => {
    if (known === null) return undefined;
    if (known !== undefined) return known;
    let id = fromHex(hex)!;
    let peeled: Uint8Array | null = null;
    for (let i = 0; i < MAX_TAG_CHAIN; i++) {
      const info = odb.info(id);
      if (!info || info.type !== OBJ_TAG) break;
      const o = odb.mustRead(id, 0, OBJ_TAG);
      id = parseTag(o.data, () => `tag ${toHex(id)}`).object;
      peeled = id;
    }
    return peeled ? toHex(peeled) : undefined;
  };
  const served = (name: string, oid: string, known?: string | null, symref?: string): ServedRef | null => {
    if (!odb.has(fromHex(oid)!)) return null;
    const peeled = peel(oid, known);
    return { name, oid, ...(peeled === undefined ? {} : { peeled }), ...(symref === undefined ? {} : { symref }) };
  };
  const head = state.oid ? served('HEAD', state.oid, undefined, state.symref ?? undefined) : null;
  const refs: ServedRef[] = [];
  for (const r of listed) {
    const s = served(r.name, r.oid, r.peeled, r.symref);
    if (s) refs.push(s);
  }
  return { head, headTarget: state.symref, refs, derived: new Derived() };
}

/** HEAD first (when it resolves), then the rest: the order of git's advertisement. */
export function allRefs(snapshot: RefSnapshot): ServedRef[] {
  return snapshot.head ? [snapshot.head, ...snapshot.refs] : snapshot.refs;
}

/** Every id the refs name or peel to, as hex (computed once per snapshot). */
export function advertised(snapshot: RefSnapshot): Set<string> {
  return snapshot.derived.of(ADVERTISED, () => {
    const ids = new Set<string>();
    for (const r of allRefs(snapshot)) {
      ids.add(r.oid);
      if (r.peeled) ids.add(r.peeled);
    }
    return ids;
  });
}
