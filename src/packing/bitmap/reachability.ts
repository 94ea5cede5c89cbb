// Reachability of commits inside one pack, as bitsets of pack positions: what a bitmap entry
// stores. Commits are filled oldest first; a walk that meets a commit whose bitmap is already
// known ORs it in and goes no further, and a tree whose bit is already set is skipped with all it
// contains (every bitset here is closed under reachability). So each commit's walk only reads the
// commits and trees that are new since its bitmapped ancestors, like git's bitmap writer.
//
// Objects are read through a callback (the object database's read fits), parsed in place, and
// located in the pack through its index; nothing is keyed by hex strings.
import { CorruptError, GitError, NotFoundError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { parseCommit } from '../../object/commit.js';
import { TreeCursor } from '../../object/tree.js';
import { OBJ_COMMIT, OBJ_TREE, typeName, type RawObject } from '../../object/type.js';
import type { PackIndex } from '../../pack/idx/read.js';
import { Bitset } from '../../pack/bitmap/bitset.js';
import type { PackOrder } from '../../pack/bitmap/pack-order.js';

export type ReadObject = (oid: Uint8Array, offset: number) => RawObject | null;

const NONE = new Int32Array(0);

export class PackReachability {
  private readonly parsed: Uint8Array;
  private readonly treeOf: Int32Array;
  private readonly dateOf: Float64Array;
  private readonly parentsOf = new Map<number, Int32Array>();

  constructor(readonly index: PackIndex, readonly order: PackOrder, private readonly read: ReadObject) {
    const n = index.count;
    this.parsed = new Uint8Array(n);
    this.treeOf = new Int32Array(n);
    this.dateOf = new Float64Array(n);
  }

  /** Committer date of the commit at a pack position. */
  date(pos: number): number {
    this.parse(pos);
    return this.dateOf[pos]!;
  }

  /** Parents of the commit at a pack position, as pack positions. */
  parents(pos: number): Int32Array {
    this.parse(pos);
    return this.parentsOf.get(pos) ?? NONE;
  }

  /**
   * The objects reachable from each commit (pack positions in, bitsets of pack positions out, in
   * the same order). Throws a GitError with code 'incomplete' when something reachable is not in
   * the pack: a bitmap must describe a closed pack.
   */
  reachable(commits: ArrayLike<number>): Bitset[] {
    const order: number[] = [];
    for (let k = 0; k < commits.length; k++) order.push(k);
    // Oldest first, so ancestors are done before their descendants meet them.
    order.sort((a, b) => this.date(commits[a]!) - this.date(commits[b]!) || b - a);
    const done = new Map<number, Bitset>();
    const out: Bitset[] = new Array(commits.length);
    for (const k of order) {
      const c = commits[k]!;
      let bits = done.get(c);
      if (!bits) {
        bits = this.fill(c, done);
        done.set(c, bits);
      }
      out[k] = bits;
    }
    return out;
  }

  private fill(start: number, done: Map<number, Bitset>): Bitset {
    const bits = new Bitset(this.index.count);
    const commits = [start];
    const trees: number[] = [];
    while (commits.length) {
      const c = commits.pop()!;
      if (bits.has(c)) continue;
      const known = done.get(c);
      if (known) {
        bits.or(known);
        continue;
      }
      bits.add(c);
      this.parse(c);
      trees.push(this.treeOf[c]!);
      const ps = this.parentsOf.get(c);
      if (ps) for (let i = 0; i < ps.length; i++) if (!bits.has(ps[i]!)) commits.push(ps[i]!);
    }
    while (trees.length) {
      const t = trees.pop()!;
      if (bits.has(t)) continue;
      bits.add(t);
      const data = this.load(t, OBJ_TREE).data;
      const cur = new TreeCursor(data, 0, data.length, `tree ${this.hexAt(t)}`);
      while (cur.next()) {
        if (cur.isGitlink()) continue;
        const child = this.positionOf(data, cur.oidOffset, t);
        if (cur.isTree()) {
          if (!bits.has(child)) trees.push(child);
        } else {
          bits.add(child);
        }
      }
    }
    return bits;
  }

  private parse(pos: number): void {
    if (this.parsed[pos]) return;
    const o = this.load(pos, OBJ_COMMIT);
    const c = parseCommit(o.data, () => `commit ${this.hexAt(pos)}`);
    this.treeOf[pos] = this.positionOf(c.tree, 0, pos);
    this.dateOf[pos] = c.time;
    if (c.parents.length) {
      const ps = new Int32Array(c.parents.length);
      for (let i = 0; i < ps.length; i++) ps[i] = this.positionOf(c.parents[i]!, 0, pos);
      this.parentsOf.set(pos, ps);
    }
    this.parsed[pos] = 1;
  }

  private load(pos: number, type: number): RawObject {
    const i = this.order.positionToIndex[pos]!;
    const o = this.read(this.index.buf, this.index.oidAt(i));
    if (!o) throw new NotFoundError('pack', `${this.index.path}: object ${this.hexAt(pos)} is in the index but cannot be read`);
    if (o.type !== type) {
      throw new CorruptError('pack', `object ${this.hexAt(pos)} is a ${typeName(o.type)}, but is used as a ${typeName(type)}`);
    }
    return o;
  }

  private positionOf(buf: Uint8Array, off: number, from: number): number {
    const i = this.index.find(buf, off);
    if (i < 0) {
      throw new GitError('pack', 'incomplete', `${this.index.path}: object ${toHex(buf, off)} (reached from ${this.hexAt(from)}) is not in the pack, so it cannot have a bitmap`);
    }
    return this.order.position(i);
  }

  private hexAt(pos: number): string {
    return toHex(this.index.buf, this.index.oidAt(this.order.positionToIndex[pos]!));
  }
}
