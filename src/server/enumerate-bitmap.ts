// The objects a fetch sends, answered with the repository's reachability bitmap instead of a walk
// (pack-objects' get_object_list_from_bitmap): wants and haves become bitmaps, the objects to send
// are wants minus haves, blob:none masks out the blob type bitmap, and include-tag adds the tags of
// what is sent. Of those, the ones stored in the bitmapped pack that can be copied as they are
// (packing/write/reuse.ts) go out verbatim; the rest are planned by the ordinary pack writer, told
// where each is stored, which delta bases the receiver has, and which objects the receiver has are
// other versions of an object's path, so that one the writer would compress whole can go as a
// delta against them instead: for an object in the pack, those near it with its name hash; for one
// outside it (loose, as a small push leaves it, or in a newer pack), the versions of the path the
// bitmap walk met it at in the client's commits (have-versions.ts, git's preferred bases, which
// git's own bitmap answer goes without).
//
// Like git, bitmaps are not used for shallow requests or a shallow repository, nor for filters the
// type bitmaps cannot answer, nor when none of the haves is in the bitmapped pack; any of these,
// or a bitmap that cannot be read, returns null and the caller walks.
import { DerivedKey } from '../core/derived.js';
import { OID_BYTES, toHex } from '../core/oid.js';
import { CorruptError } from '../core/errors.js';
import { parseTag } from '../object/tag.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../object/type.js';
import { Bitset } from '../pack/bitmap/bitset.js';
import type { PackBitmap } from '../pack/bitmap/read.js';
import type { BitmapObjects, BitmappedPack, ExtraObject } from '../packing/bitmap/walk.js';
import { writeOrder } from '../packing/write/order.js';
import type { PackLayout } from '../packing/write/pack-layout.js';
import { PackReuse } from '../packing/write/reuse.js';
import type { PackContents } from '../packing/write/write.js';
import type { PackFile } from '../pack/pack-file.js';
import { OidMap } from '../walk/oid-map.js';
import type { PackRequest } from './enumerate.js';
import type { ServedRef } from './refs.js';
import type { Session } from './session.js';
import { openBitmap } from './bitmap-cache.js';
import { hadVersionsOf, MAX_PATHS_KEPT, type ObjectPath } from './have-versions.js';

/** Delta bases the writer may try for an object it would otherwise compress whole. */
const SIMILAR_BASES = 2;
/** How far from an object, in pack positions either way, other versions of its path are looked for. */
const NEARBY = 64;

/** An object sent from outside the bitmapped pack (`path` as the walk found it, if kept). */
type Extra = Pick<ExtraObject, 'oid' | 'type' | 'path'>;

export interface BitmapPack {
  /** Objects copied verbatim from the bitmapped pack (null: pack reuse is off, or none can be). */
  readonly reuse: PackReuse | null;
  /** Everything else, for the ordinary writer. */
  readonly contents: PackContents;
  /** All objects sent. */
  readonly count: number;
}

export interface BitmapPackOptions {
  /** The client understands OFS_DELTA (reused deltas otherwise become REF_DELTAs). */
  readonly ofsDelta: boolean;
}

/** Whether a request can be answered with bitmaps at all (before any bitmap is read). */
function bitmapsApply(s: Session, req: PackRequest): boolean {
  if (!s.policy.useBitmaps || req.shallow) return false;
  if (req.filter && req.filter.kind !== 'blob:none') return false;
  return s.repo.shallowCommits().length === 0;
}

/** The pack's contents from the bitmap, or null when the request must be walked. */
export function enumerateWithBitmap(s: Session, req: PackRequest, opts: BitmapPackOptions): BitmapPack | null {
  if (!bitmapsApply(s, req)) return null;
  const opened = openBitmap(s.repo);
  if (!opened) return null;
  const { walk: bitmaps, layout } = opened;
  const repeat = answeredBefore(s);
  const wants = req.wants.map(i => s.oid(i));
  const haves = req.haves.map(i => s.oid(i));
  // A fetch keeps the paths of what lies outside the pack, to look up the client's versions of
  // them; a partial clone may lack the blobs of commits it has, so it is not offered them.
  const found = bitmaps.reachableIfCovered(wants, haves, { paths: haves.length > 0 && !req.filter ? MAX_PATHS_KEPT : 0 });
  if (!found) return null;
  // Filters and include-tag change the positions: work on a copy of what the walk returned.
  const result: BitmapObjects = { ...found, positions: found.positions.clone() };
  const { pack } = result;
  const filtering = req.filter !== null;
  const extras: Extra[] = [...result.extra];
  if (filtering) dropBlobs(result, extras, wants);
  if (req.includeTag) addTags(s, result, extras, repeat);
  const reuse = s.policy.allowPackReuse ? PackReuse.select(layout, result.positions, { ofsDelta: opts.ofsDelta }) : null;
  const rest = reuse && reuse.count > 0 ? reuse.rest(result.positions) : result.positions;
  // A partial clone may lack the blobs of commits it has, so they are no base for it there.
  const hasPosition = (pos: number): boolean =>
    found.excluded?.has(pos) === true && !(filtering && pack.bitmap.typeBitmaps.blobs.has(pos));
  const receiverHas = (file: PackFile, indexPos: number): boolean =>
    file.path === pack.file.path && hasPosition(pack.order.position(indexPos));
  const contents = restContents(s, pack, layout, rest, extras, receiverHas, repeat);
  const positions = contents.stored?.positions;
  if (found.excluded && pack.bitmap.hasHashCache && positions) {
    contents.similarHad = idx => (positions[idx]! < 0 ? [] : nearbyVersions(pack.bitmap, positions[idx]!, hasPosition));
  }
  const paths = extraPaths(contents.ids, extras);
  if (paths.size > 0) contents.hadVersions = hadVersionsOf(s.odb, () => haves, paths);
  return {
    reuse: reuse && reuse.count > 0 ? reuse : null,
    contents,
    count: result.positions.count() + extras.length,
  };
}

/**
 * Objects near pack position `pos` with its type and name hash (the hash cache's hash of the path
 * git met it at) that `has` accepts, nearest first, at most SIMILAR_BASES. A git-written pack keeps
 * each delta family together, so the other versions of a directory or file sit a few positions
 * away; looking only there costs a fetch nothing up front (an index of the whole hash cache took
 * 0.1 s to build).
 */
function nearbyVersions(bitmap: PackBitmap, pos: number, has: (pos: number) => boolean): number[] {
  const hash = bitmap.nameHashAt(pos), type = bitmap.typeAt(pos);
  const found: number[] = [];
  const look = (p: number) => {
    if (found.length < SIMILAR_BASES && p >= 0 && p < bitmap.count && has(p) && bitmap.nameHashAt(p) === hash && bitmap.typeAt(p) === type) found.push(p);
  };
  for (let d = 1; d <= NEARBY && found.length < SIMILAR_BASES; d++) {
    look(pos - d);
    look(pos + d);
  }
  return found;
}

/** The kept paths of the objects outside the pack, by their index in `ids` (root trees' are empty). */
function extraPaths(ids: OidMap, extras: readonly Extra[]): Map<number, ObjectPath> {
  const paths = new Map<number, ObjectPath>();
  for (const e of extras) {
    if (e.path && (e.path.length > 0 || e.type === OBJ_TREE)) paths.set(ids.get(e.oid, 0), { path: e.path, tree: e.type === OBJ_TREE });
  }
  return paths;
}

/** blob:none: no blobs but those the client named itself (git's filter_bitmap_blob_none). */
function dropBlobs(result: BitmapObjects, extras: Extra[], wants: Uint8Array[]): void {
  const { pack, positions } = result;
  const named = new Bitset(pack.bitmap.count);
  const namedExtra = new Set<string>();
  for (const w of wants) {
    const pos = pack.bitmap.position(w);
    if (pos >= 0) named.add(pos);
    else namedExtra.add(Buffer.from(w).toString('hex'));
  }
  positions.andNot(pack.bitmap.typeBitmaps.blobs.clone().andNot(named));
  for (let i = extras.length - 1; i >= 0; i--) {
    if (extras[i]!.type === OBJ_BLOB && !namedExtra.has(Buffer.from(extras[i]!.oid).toString('hex'))) extras.splice(i, 1);
  }
}

/** A tag ref with the pack positions of its id and of what it peels to (-1: not in the pack). */
interface TagRef {
  readonly ref: ServedRef;
  readonly pos: number;
  readonly peeledPos: number;
}

/** The tag refs of a snapshot placed in the bitmapped pack, and what they name or peel to. */
interface SnapshotTags {
  readonly pack: BitmappedPack;
  /** Each tag ref with its and its peeled object's pack positions. */
  readonly byRef: ReadonlyMap<ServedRef, TagRef>;
  /** Pack positions of the objects the tags name or peel to. */
  readonly inPack: ReadonlySet<number>;
  /** Ids (hex) of those outside the pack. */
  readonly outside: readonly string[];
}

const SNAPSHOT_TAGS = new DerivedKey<SnapshotTags>('tag positions');

/** The snapshot's tag refs by id, with no object looked up: what a small fetch checks its objects against. */
interface TagIds {
  /** Ids (hex) of the objects the tag refs name or peel to. */
  readonly named: ReadonlySet<string>;
  /** The annotated tag refs by the id they peel to. */
  readonly byPeeled: ReadonlyMap<string, ServedRef[]>;
  /** The number of tag refs. */
  readonly count: number;
}

const TAG_IDS = new DerivedKey<TagIds>('tag ids');

function tagIds(s: Session): TagIds {
  return s.refs.derived.of(TAG_IDS, () => {
    const named = new Set<string>();
    const byPeeled = new Map<string, ServedRef[]>();
    let count = 0;
    for (const ref of s.refs.refs) {
      if (!ref.name.startsWith('refs/tags/')) continue;
      count++;
      named.add(ref.oid);
      if (ref.peeled === undefined) continue;
      named.add(ref.peeled);
      const same = byPeeled.get(ref.peeled);
      if (same) same.push(ref);
      else byPeeled.set(ref.peeled, [ref]);
    }
    return { named, byPeeled, count };
  });
}

/** The fetches a snapshot has answered from the bitmap in this process (a serving worker keeps it). */
const FETCHES = new DerivedKey<{ count: number }>('bitmap fetches');

/** Counts a fetch the snapshot answers from the bitmap: whether it has answered one before. */
function answeredBefore(s: Session): boolean {
  return s.refs.derived.of(FETCHES, () => ({ count: 0 })).count++ > 0;
}

/**
 * Whether to check the objects sent against the tag refs' ids rather than place every tag ref in
 * the pack: a fresh process (upload-pack over ssh) pays each lookup in the .idx at its coldest,
 * some 5 us for the 2,600 tag and peeled ids of 1,700 tag refs (before V8 optimizes the search),
 * while an id turned to hex and looked up in a Map costs less than a lookup; past as many objects as
 * tag refs, the positions are cheaper. So are they once placed: a snapshot that answers a second
 * fetch keeps them (the ids cost a warm worker ~1 ms of every small fetch, the placing ~2 ms once):
 * `repeat` says this fetch is not the snapshot's first (answeredBefore).
 */
function fewerObjectsThanTags(s: Session, objects: number, pack: BitmappedPack, repeat: boolean): boolean {
  if (repeat || s.refs.derived.get(SNAPSHOT_TAGS)?.pack === pack) return false;
  return objects < tagIds(s).count;
}

/** The snapshot's tags, looked up once per snapshot and pack (a serving worker keeps both). */
function tagsIn(s: Session, pack: BitmappedPack): SnapshotTags {
  const known = s.refs.derived.get(SNAPSHOT_TAGS);
  if (known && known.pack === pack) return known;
  const position = (hex: string | undefined) => (hex === undefined ? -1 : pack.bitmap.position(Buffer.from(hex, 'hex')));
  const byRef = new Map<ServedRef, TagRef>();
  const inPack = new Set<number>();
  const outside: string[] = [];
  for (const ref of s.refs.refs) {
    if (!ref.name.startsWith('refs/tags/')) continue;
    const tag = { ref, pos: position(ref.oid), peeledPos: position(ref.peeled) };
    byRef.set(ref, tag);
    if (tag.pos >= 0) inPack.add(tag.pos);
    else outside.push(ref.oid);
    if (tag.peeledPos >= 0) inPack.add(tag.peeledPos);
    else if (ref.peeled !== undefined) outside.push(ref.peeled);
  }
  const found = { pack, byRef, inPack, outside };
  s.refs.derived.set(SNAPSHOT_TAGS, found);
  return found;
}

/**
 * include-tag: every annotated tag (and the tags it points through) whose peeled object is sent,
 * as pack-objects' add_ref_tag does.
 */
function addTags(s: Session, result: BitmapObjects, extras: Extra[], repeat: boolean): void {
  const { pack, positions } = result;
  const extraIds = new Set(extras.map(e => Buffer.from(e.oid).toString('hex')));
  const sent = (pos: number, hex: string): boolean => (pos >= 0 ? positions.has(pos) : extraIds.has(hex));
  const added = new Set<string>();
  const tags = tagChecks(s, result, extraIds, added, repeat);
  for (const ref of s.refs.refs) {
    if (ref.peeled === undefined || !ref.name.startsWith('refs/tags/') || !tags.peeledSent(ref)) continue;
    for (let hex = ref.oid, at = tags.position(ref); !sent(at, hex);) {
      const id = Buffer.from(hex, 'hex');
      if (at >= 0) positions.add(at);
      else {
        extras.push({ oid: id, type: OBJ_TAG });
        extraIds.add(hex);
      }
      added.add(hex);
      const tag = parseTag(s.odb.mustRead(id, 0, OBJ_TAG).data, () => `tag ${hex}`);
      if (s.odb.info(tag.object)?.type !== OBJ_TAG) break;
      hex = Buffer.from(tag.object).toString('hex');
      at = pack.bitmap.position(tag.object);
    }
  }
}

/** For include-tag: whether an annotated tag ref's peeled object is sent, and where the tag is in the pack. */
interface TagChecks {
  peeledSent(ref: ServedRef): boolean;
  /** Pack position of the ref's tag object, or -1. */
  position(ref: ServedRef): number;
}

/**
 * The checks from the tags' pack positions (kept with the snapshot), or, for a fetch of fewer
 * objects than tag refs, from the ids of the objects sent, looking up only the tags that go. A
 * peeled object is a tag only in a hand-made packed-refs, where it may be one that an earlier ref
 * added (`added`): git's add_ref_tag sees it sent then, and so do both checks.
 */
function tagChecks(s: Session, result: BitmapObjects, extraIds: ReadonlySet<string>, added: ReadonlySet<string>,
  repeat: boolean): TagChecks {
  const { pack, positions } = result;
  if (!fewerObjectsThanTags(s, positions.count() + extraIds.size, pack, repeat)) {
    const { byRef } = tagsIn(s, pack);
    return {
      peeledSent: ref => {
        const { peeledPos } = byRef.get(ref)!;
        return peeledPos >= 0 ? positions.has(peeledPos) : extraIds.has(ref.peeled!);
      },
      position: ref => byRef.get(ref)!.pos,
    };
  }
  const { byPeeled } = tagIds(s);
  const matched = new Set<ServedRef>();
  const match = (hex: string) => { for (const ref of byPeeled.get(hex) ?? []) matched.add(ref); };
  const { index } = pack, toIndex = pack.order.positionToIndex;
  positions.forEach(pos => {
    const at = index.oidAt(toIndex[pos]!);
    match(index.buf.toString('hex', at, at + OID_BYTES));
  });
  for (const hex of extraIds) match(hex);
  return {
    peeledSent: ref => matched.has(ref) || added.has(ref.peeled!),
    position: ref => pack.bitmap.position(Buffer.from(ref.oid, 'hex')),
  };
}

/**
 * The objects left for the ordinary writer: the pack positions not reused, in git's bitmap
 * traversal order (commits, trees, blobs, tags, each by position), then the objects outside the
 * pack; put in git's write order, with each one's pack position known.
 */
function restContents(s: Session, pack: BitmappedPack, layout: PackLayout, rest: Bitset,
  extras: readonly Extra[], receiverHasStored: (file: PackFile, indexPos: number) => boolean,
  repeat: boolean): PackContents {
  const n = rest.count() + extras.length;
  const ids = new OidMap(n);
  if (n === 0) return { ids, order: new Int32Array(0) };
  const types = new Uint8Array(n);
  const positions = new Int32Array(n);
  const objects = new Int32Array(n);
  let k = 0;
  const index = pack.index, toIndex = pack.order.positionToIndex;
  // One pass over the bits (a fetch leaves a few hundred of hundreds of thousands), sorted by type.
  const byType: number[][] = [[], [], [], [], []];
  rest.forEach(pos => {
    const type = pack.bitmap.typeAt(pos);
    if (type === 0) throw new CorruptError('pack', `${pack.bitmap.path}: no type bitmap has pack position ${pos}`);
    byType[type]!.push(pos);
  });
  for (const type of [OBJ_COMMIT, OBJ_TREE, OBJ_BLOB, OBJ_TAG]) {
    for (const pos of byType[type]!) {
      const idx = ~ids.addOrGet(index.buf, index.oidAt(toIndex[pos]!));
      types[idx] = type;
      positions[idx] = pos;
      objects[k++] = idx;
    }
  }
  for (const e of extras) {
    const got = ids.addOrGet(e.oid, 0);
    if (got >= 0) continue;
    const idx = ~got;
    types[idx] = e.type;
    positions[idx] = -1;
    objects[k++] = idx;
  }
  const tagged = taggedObjects(s, pack, ids, positions, repeat);
  const { order, restFrom } = writeOrder(objects.subarray(0, k), idx => types[idx]!, idx => tagged.has(idx));
  return { ids, order, storageOrderFrom: restFrom, stored: { layout, positions }, receiverHasStored };
}

/** Indices in `ids` of objects a tag ref names or peels to (they lead git's write order). */
function taggedObjects(s: Session, pack: BitmappedPack, ids: OidMap, positions: Int32Array, repeat: boolean): Set<number> {
  const out = new Set<number>();
  if (fewerObjectsThanTags(s, ids.size, pack, repeat)) {
    const { named } = tagIds(s);
    for (let idx = 0; idx < ids.size; idx++) if (named.has(toHex(ids.keys, idx * OID_BYTES))) out.add(idx);
    return out;
  }
  const { inPack, outside } = tagsIn(s, pack);
  for (let idx = 0; idx < ids.size; idx++) {
    if (positions[idx]! >= 0 && inPack.has(positions[idx]!)) out.add(idx);
  }
  for (const hex of outside) {
    const idx = ids.get(Buffer.from(hex, 'hex'), 0);
    if (idx >= 0) out.add(idx);
  }
  return out;
}
