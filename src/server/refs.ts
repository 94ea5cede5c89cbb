// The refs upload-pack shows a client, read once per request: HEAD (and what it names), then every
// ref under refs/ in git's order, each with what an annotated tag peels to. Like git, a ref whose
// object is missing is left out rather than advertised.
import { fromHex, toHex } from '../core/oid.js';
import { parseTag } from '../object/tag.js';
import { OBJ_TAG } from '../object/type.js';
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
  /** HEAD when it resolves to an object. */
  readonly head: ServedRef | null;
  /** The ref HEAD names, even when that branch is unborn; null when HEAD is detached. */
  readonly headTarget: string | null;
  /** Every other ref, sorted by name. */
  readonly refs: ServedRef[];
}

/** Tag chains longer than this are treated as unpeelable (git's deref loop has no limit; a cycle is impossible with real ids). */
const MAX_TAG_CHAIN = 64;

export function snapshotRefs(repo: Repository): RefSnapshot {
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
  const state = repo.refs.head();
  const head = state.oid ? served('HEAD', state.oid, undefined, state.symref ?? undefined) : null;
  const refs: ServedRef[] = [];
  for (const r of repo.refs.list('refs/')) {
    const s = served(r.name, r.oid, r.peeled, r.symref);
    if (s) refs.push(s);
  }
  return { head, headTarget: state.symref, refs };
}

/** HEAD first (when it resolves), then the rest: the order of git's advertisement. */
export function allRefs(snapshot: RefSnapshot): ServedRef[] {
  return snapshot.head ? [snapshot.head, ...snapshot.refs] : snapshot.refs;
}
