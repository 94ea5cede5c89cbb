// git's check_connected for a push: everything the new tips reach, short of what the refs already
// there reach, must be in the repository (the quarantine included). Three ways, cheapest first:
//   - index-pack --strict has shown that every object the pack's commits, trees and tags name is
//     in the pack or the repository: when none is outside the pack and every tip is inside it,
//     the pack is closed and nothing needs walking (a push into an empty repository);
//   - connectedThroughBases: the pack's own commits and trees are walked from the tips, and each
//     object they name outside the pack must be a ref's commit, or sit at the same path in the
//     tree of such a commit (what an ordinary push on top of a branch looks like). Objects a ref
//     reaches are complete, which is the trust git's `--not --all` places in them too;
//   - otherwise the objects are walked as `rev-list --objects <tips> --not <refs>` walks them
//     (walk/connectivity.ts).
import { OID_BYTES, toHex } from '../../core/oid.js';
import { parseCommit } from '../../object/commit.js';
import { TreeCursor } from '../../object/tree.js';
import { OBJ_COMMIT, OBJ_TREE } from '../../object/type.js';
import type { ObjectDatabase } from '../../odb/database.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { ObjectWalk } from '../../walk/object-walk.js';

/** Base commits (outside the pack) whose trees are searched; more than this and the walk decides. */
const MAX_BASES = 16;

/**
 * True when every object `tips` reach is in the quarantine (`q`, whose alternate is the
 * repository) or provably reachable from `refTips` (hex ids of the refs' commits); false when it
 * cannot tell (the full walk then decides).
 */
export function connectedThroughBases(q: ObjectDatabase, tips: readonly Uint8Array[], refTips: ReadonlySet<string>): boolean {
  const inPack = (id: Uint8Array): boolean => q.hasOwnKnown(id);
  const commits: Uint8Array[] = [];
  const seen = new Set<string>();
  const baseRoots: Uint8Array[] = [];
  for (const t of tips) {
    const hex = toHex(t);
    if (inPack(t)) { if (!seen.has(hex)) { seen.add(hex); commits.push(t); } } else if (!refTips.has(hex)) return false;
  }
  // The pack's commits, from the tips down to the refs' commits they build on.
  const roots: Uint8Array[] = [];
  for (let i = 0; i < commits.length; i++) {
    const o = q.read(commits[i]!);
    if (!o || o.type !== OBJ_COMMIT) return false;
    const c = parseCommit(o.data, () => `commit ${toHex(commits[i]!)}`);
    roots.push(c.tree);
    for (const p of c.parents) {
      const hex = toHex(p);
      if (seen.has(hex)) continue;
      seen.add(hex);
      if (inPack(p)) { commits.push(p); continue; }
      if (!refTips.has(hex) || baseRoots.length === MAX_BASES) return false;
      const base = q.read(p);
      if (!base || base.type !== OBJ_COMMIT) return false;
      baseRoots.push(parseCommit(base.data, () => `commit ${hex}`).tree);
    }
  }
  const bases = new BaseTrees(q, baseRoots);
  const walked = new Set<string>();
  const visit = (tree: Uint8Array, path: string): boolean => {
    const hex = toHex(tree);
    if (walked.has(hex)) return true;
    walked.add(hex);
    if (!inPack(tree)) return bases.has(path, hex);
    const o = q.read(tree);
    if (!o || o.type !== OBJ_TREE) return false;
    const data = o.data;
    const cur = new TreeCursor(data, 0, data.length, () => `tree ${hex}`);
    while (cur.next()) {
      if (cur.isGitlink()) continue;
      const id = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      const name = Buffer.from(data.buffer, data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1');
      const at = path === '' ? name : `${path}/${name}`;
      if (cur.isTree()) {
        if (!visit(id, at)) return false;
      } else if (!inPack(id) && !bases.has(at, toHex(id))) {
        return false;
      }
    }
    return true;
  };
  return roots.every((r) => visit(r, ''));
}

/** Paths looked up in the base commits' trees; each tree read once. */
class BaseTrees {
  private readonly entries = new Map<string, Map<string, string>>();

  constructor(private readonly odb: ObjectStore, private readonly roots: readonly Uint8Array[]) {}

  /** Is `hex` at `path` (a root tree when '') in one of the base trees? */
  has(path: string, hex: string): boolean {
    const parts = path === '' ? [] : path.split('/');
    for (const root of this.roots) {
      let at: string | undefined = toHex(root);
      for (let i = 0; i < parts.length && at !== undefined; i++) at = this.names(at).get(parts[i]!);
      if (at === hex) return true;
    }
    return false;
  }

  private names(tree: string): Map<string, string> {
    let names = this.entries.get(tree);
    if (names) return names;
    names = new Map();
    this.entries.set(tree, names);
    const o = this.odb.read(Buffer.from(tree, 'hex'));
    if (o && o.type === OBJ_TREE) {
      const cur = new TreeCursor(o.data, 0, o.data.length, () => `tree ${tree}`);
      while (cur.next()) {
        names.set(Buffer.from(o.data.buffer, o.data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1'),
          toHex(o.data, cur.oidOffset));
      }
    }
    return names;
  }
}

/** Is `newOid` a descendant of `oldOid` (both commits)? git's in_merge_bases, as rev-list old --not new. */
export function isFastForward(odb: ObjectStore, oldOid: Uint8Array, newOid: Uint8Array): boolean {
  if (Buffer.compare(oldOid, newOid) === 0) return true;
  const walk = new ObjectWalk(odb, 256);
  walk.add(oldOid, '');
  walk.add(newOid, '', true);
  return walk.commits().length === 0;
}
