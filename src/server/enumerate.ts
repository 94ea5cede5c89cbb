// The objects a fetch sends: everything reachable from the wants that is not reachable from what
// the client has (common haves, unshallowed boundaries), with shallow commits already cut from
// their parents. Without a filter the walk enumerates in `git rev-list --objects` order; with one,
// commits come from the same walk and trees are visited here, depth-first, applying
// blob:none / blob:limit / tree:<depth> the way git's list-objects-filter does (objects the client
// named itself are always sent). include-tag then adds annotated tags whose target is being sent,
// and the result is put in git's write order.
import { CorruptError, GitError } from '../core/errors.js';
import { OID_BYTES } from '../core/oid.js';
import { parseTag } from '../object/tag.js';
import { TreeCursor } from '../object/tree.js';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../object/type.js';
import { writeOrder } from '../packing/write/order.js';
import type { PackContents } from '../packing/write/write.js';
import type { FilterSpec } from '../protocol/index.js';
import { boundReadsForWalk, SHOWN, UNINTERESTING } from '../walk/object-walk.js';
import { ensureCapacity } from '../walk/oid-map.js';
import { packNameHash } from '../pack/name-hash.js';
import { hadVersionsOf, MAX_PATHS_KEPT, type ObjectPath } from './have-versions.js';
import type { Session } from './session.js';

export interface PackRequest {
  readonly wants: readonly number[];
  /** Objects the client has: common haves and unshallowed boundary commits. */
  readonly haves: readonly number[];
  readonly filter: FilterSpec | null;
  readonly includeTag: boolean;
  /** The client is shallow or deepens: its boundary cuts the history (bitmaps cannot answer that). */
  readonly shallow: boolean;
}

/** A filter reduced to two limits: combine: takes the tightest of each. */
interface Limits {
  /** Trees and blobs at this depth or deeper are left out (the root tree is depth 0). */
  treeDepth: number;
  /** Blobs of this size or more are left out (0: every blob). */
  blobLimit: number;
}

const MAX_TREE_DEPTH = 2048;

function limitsOf(filter: FilterSpec): Limits {
  switch (filter.kind) {
    case 'blob:none': return { treeDepth: Infinity, blobLimit: 0 };
    case 'blob:limit': return { treeDepth: Infinity, blobLimit: filter.bytes };
    case 'tree': return { treeDepth: filter.depth, blobLimit: Infinity };
    case 'combine': {
      const all = filter.filters.map(limitsOf);
      return { treeDepth: Math.min(...all.map(l => l.treeDepth)), blobLimit: Math.min(...all.map(l => l.blobLimit)) };
    }
    default:
      throw new GitError('server', 'filter-not-allowed', `filter '${filter.kind}' not supported`);
  }
}

/** Checks a filter can be applied before any answer is written. */
export function checkFilterSupported(filter: FilterSpec): void {
  limitsOf(filter);
}

export function enumerateObjects(s: Session, req: PackRequest, onObject: (count: number) => void): PackContents {
  const walk = s.walk;
  boundReadsForWalk(s.odb);
  let list: Int32Array = new Int32Array(1024);
  // By walk index, for the writer's delta search: what git's pack-objects sorts candidates by.
  let nameHash = new Uint32Array(0);
  let paths: Map<number, ObjectPath> | null = null;
  let n = 0;
  const add = (idx: number) => {
    if (n === list.length) list = ensureCapacity(list, n + 1);
    list[n++] = idx;
    if ((n & 255) === 0) onObject(n);
  };
  if (req.filter) {
    enumerateFiltered(s, req, limitsOf(req.filter), add);
  } else {
    for (const w of req.wants) walk.add(s.oid(w), '', false);
    for (const h of req.haves) walk.add(s.oid(h), '', true);
    // A fetch: its objects' paths, to find the versions the client has (have-versions.ts).
    if (req.haves.length > 0) paths = new Map();
    // A clone (nothing had, nothing cut): the wants' whole history, most of the repository.
    if (req.haves.length === 0 && !req.shallow) walk.wholeRepository(true);
    walk.enumerate({
      commit: (_ids, _off, index) => add(index),
      // The walk hands out its own id table, where an id's offset is its index times 20.
      object: (type, ids, off, path, pathLength) => {
        const idx = ids === walk.ids.keys ? off / OID_BYTES : walk.ids.get(ids, off);
        add(idx);
        if (idx >= nameHash.length) nameHash = ensureCapacity(nameHash, idx + 1);
        nameHash[idx] = packNameHash(path, 0, pathLength);
        if (paths && (pathLength > 0 || type === OBJ_TREE) && paths.size < MAX_PATHS_KEPT) paths.set(idx, { path: path.slice(0, pathLength), tree: type === OBJ_TREE });
      },
    });
  }
  onObject(n);
  let sending: Uint8Array = new Uint8Array(walk.ids.size);
  const isSent = (idx: number) => idx < sending.length && sending[idx] === 1;
  for (let i = 0; i < n; i++) sending[list[i]!] = 1;
  const tagged = new Set<number>();
  for (const r of s.refs.refs) {
    if (!r.name.startsWith('refs/tags/')) continue;
    const tagIdx = s.index(r.oid);
    tagged.add(tagIdx);
    if (r.peeled === undefined) continue;
    const peeled = s.index(r.peeled);
    tagged.add(peeled);
    if (!req.includeTag || !isSent(peeled)) continue;
    for (let t = tagIdx; !isSent(t);) {
      add(t);
      sending = ensureCapacity(sending, walk.ids.size);
      sending[t] = 1;
      const tag = parseTag(s.odb.mustRead(s.oid(t), 0, OBJ_TAG).data, () => `tag ${s.hex(t)}`);
      const next = s.indexOf(tag.object, 0);
      if (s.typeOf(next) !== OBJ_TAG) break;
      t = next;
    }
  }
  const objects = list.subarray(0, n);
  const filtering = req.filter !== null;
  const { order, restFrom } = writeOrder(objects, idx => s.typeOf(idx), idx => tagged.has(idx));
  return {
    ids: walk.ids,
    order,
    storageOrderFrom: restFrom,
    // A partial clone may lack the blobs of commits it has, so they are no base for it there.
    receiverHas: idx => (walk.flags[idx]! & UNINTERESTING) !== 0 && !(filtering && walk.types[idx] === OBJ_BLOB),
    // The filtered enumeration does not keep paths: its objects are not searched.
    nameHash: filtering ? undefined : (idx) => nameHash[idx] ?? 0,
    hadVersions: paths ? hadVersionsOf(s.odb, () => req.haves.map((h) => s.oid(h)), paths) : undefined,
  };
}

function enumerateFiltered(s: Session, req: PackRequest, limits: Limits, add: (idx: number) => void): void {
  const walk = s.walk;
  const userTrees: number[] = [];
  const show = (idx: number) => {
    if (walk.flags[idx]! & SHOWN) return;
    walk.flags[idx]! |= SHOWN;
    add(idx);
  };
  for (const w of req.wants) {
    let idx = w;
    while (s.typeOf(idx) === OBJ_TAG) {
      show(idx);
      const tag = parseTag(s.odb.mustRead(s.oid(idx), 0, OBJ_TAG).data, () => `tag ${s.hex(idx)}`);
      idx = s.indexOf(tag.object, 0);
    }
    const type = s.typeOf(idx);
    if (type === OBJ_COMMIT) walk.add(s.oid(idx), '', false);
    else if (type === OBJ_TREE) userTrees.push(idx);
    else if (type === OBJ_BLOB) show(idx);
  }
  for (const h of req.haves) {
    const type = s.typeOf(h);
    if (type === OBJ_COMMIT || type === OBJ_TAG) walk.add(s.oid(h), '', true);
    else if (type === OBJ_TREE) walk.markTreeUninteresting(h);
    else walk.flags[h]! |= UNINTERESTING;
  }
  const commits = walk.commits();
  for (let i = 0; i < commits.length; i++) {
    for (const p of walk.parents[commits[i]!]!) {
      if (!(walk.flags[p]! & UNINTERESTING)) continue;
      walk.parseCommitAt(p);
      walk.markTreeUninteresting(walk.trees[p]!);
    }
  }
  for (let i = 0; i < commits.length; i++) add(commits[i]!);
  let minDepth: Int32Array = new Int32Array(walk.ids.size).fill(MAX_TREE_DEPTH + 1);
  const visitTree = (idx: number, depth: number, userGiven: boolean): void => {
    if (walk.flags[idx]! & UNINTERESTING) return;
    if (depth > MAX_TREE_DEPTH) throw new CorruptError('server', `tree ${s.hex(idx)} is nested more than ${MAX_TREE_DEPTH} levels deep`);
    if (idx >= minDepth.length) minDepth = growFilled(minDepth, walk.ids.size);
    // A tree seen before at this depth or above has nothing more to give; with no depth limit,
    // one visit is enough.
    if (minDepth[idx]! <= depth || (limits.treeDepth === Infinity && walk.flags[idx]! & SHOWN)) return;
    minDepth[idx] = depth;
    if (!userGiven && depth >= limits.treeDepth) return;
    show(idx);
    const data = s.odb.mustRead(s.oid(idx), 0, OBJ_TREE).data;
    const cur = new TreeCursor(data, 0, data.length, `tree ${s.hex(idx)}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const isTree = cur.isTree();
      const child = walk.intern(data, cur.oidOffset, isTree ? OBJ_TREE : OBJ_BLOB);
      if (isTree) {
        visitTree(child, depth + 1, false);
        continue;
      }
      if (walk.flags[child]! & (UNINTERESTING | SHOWN) || depth + 1 >= limits.treeDepth) continue;
      if (limits.blobLimit !== Infinity) {
        const size = limits.blobLimit === 0 ? Infinity : s.odb.info(walk.ids.keys, child * OID_BYTES)?.size ?? Infinity;
        if (size >= limits.blobLimit) continue;
      }
      show(child);
    }
  };
  // A tree the client named (or reached by peeling a tag it named) is sent whatever the filter,
  // and git's filter never sees it (list_objects_filter__filter_object passes USER_GIVEN objects
  // by): its entries are the filter's depth 0, one above a commit's root tree's entries.
  for (const t of userTrees) visitTree(t, -1, true);
  for (let i = 0; i < commits.length; i++) visitTree(walk.trees[commits[i]!]!, 0, false);
}

function growFilled(arr: Int32Array, n: number): Int32Array {
  const bigger = new Int32Array(Math.max(n, arr.length * 2)).fill(MAX_TREE_DEPTH + 1);
  bigger.set(arr);
  return bigger;
}
