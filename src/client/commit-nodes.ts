// The commits a fetch negotiator walks (negotiator.ts, skipping-negotiator.ts): one node for each,
// read from the object store only when the walk reaches it, with the negotiator's flags on it.
import { fromHex, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { OBJ_COMMIT, OBJ_TAG } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';

export interface CommitNode {
  readonly hex: string;
  flags: number;
  /** The commit date once read, 0 before. */
  time: number;
  /** null until the commit is read; empty for roots and shallow boundaries. */
  parents: CommitNode[] | null;
  /** Insertion order, for a queue that gives commits of equal date first-in first-out, as git's prio_queue. */
  seq: number;
}

export class CommitNodes {
  private readonly nodes = new Map<string, CommitNode>();

  /**
   * `shallow` lists the commits whose parents this repository does not have (its shallow file):
   * the walk stops there, as git's grafts make it.
   */
  constructor(private readonly odb: ObjectStore, private readonly shallow: ReadonlySet<string>) {}

  get(hex: string): CommitNode | undefined {
    return this.nodes.get(hex);
  }

  node(hex: string): CommitNode {
    let n = this.nodes.get(hex);
    if (!n) {
      n = { hex, flags: 0, time: 0, parents: null, seq: 0 };
      this.nodes.set(hex, n);
    }
    return n;
  }

  /** The commit's parents, reading it (and its date) the first time. */
  parse(c: CommitNode): CommitNode[] {
    if (c.parents !== null) return c.parents;
    const o = this.odb.read(fromHex(c.hex)!);
    if (!o || o.type !== OBJ_COMMIT) {
      c.parents = [];
      return c.parents;
    }
    const header = parseCommit(o.data, () => `commit ${c.hex}`);
    c.time = header.time;
    c.parents = this.shallow.has(c.hex) ? [] : header.parents.map((p) => this.node(toHex(p)));
    return c.parents;
  }

  /** The commit a ref points at, peeling tags; null for anything we do not have or is not a commit. */
  commitOf(hex: string): CommitNode | null {
    let id = fromHex(hex);
    for (let depth = 0; id && depth < 20; depth++) {
      const existing = this.nodes.get(toHex(id));
      if (existing) return existing;
      const o = this.odb.read(id);
      if (!o) return null;
      if (o.type === OBJ_COMMIT) return this.node(toHex(id));
      if (o.type !== OBJ_TAG) return null;
      id = parseTag(o.data, () => `tag ${toHex(id!)}`).object;
    }
    return null;
  }
}
