// git's default ("consecutive") fetch negotiator, negotiator/default.c: walk the local history
// from every ref tip newest commit first and offer each commit as a "have"; once the server
// acknowledges a commit, its ancestors are common too and are no longer offered. Commits at the
// tips of refs the server advertised that we already have are known to be common from the start:
// they are offered once (so the server learns it) and their ancestors are skipped.
import { fromHex, toHex } from '../core/oid.js';
import { parseCommit } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { OBJ_COMMIT, OBJ_TAG } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';

const COMMON = 1;
const COMMON_REF = 2;
const SEEN = 4;
const POPPED = 8;

interface Node {
  readonly hex: string;
  flags: number;
  time: number;
  /** null until the commit is read; empty for roots and shallow boundaries. */
  parents: Node[] | null;
  /** Insertion order, so commits of equal date come out first-in first-out, as in git's prio_queue. */
  seq: number;
}

/** What fetch-pack asks of a negotiator (git's struct fetch_negotiator). */
export interface Negotiator {
  /** A ref the server advertised that we have. */
  knownCommon(hex: string): void;
  /** A local ref tip to start walking from. */
  addTip(hex: string): void;
  /** The next commit to offer, or null when there is none left. */
  next(): string | null;
  /** The server acknowledged `hex`; returns whether it was known to be common already. */
  ack(hex: string): boolean;
}

export class ConsecutiveNegotiator implements Negotiator {
  private readonly nodes = new Map<string, Node>();
  private readonly heap: Node[] = [];
  private seq = 0;
  private nonCommon = 0;

  /**
   * `shallow` lists the commits whose parents this repository does not have (its shallow file):
   * the walk stops there, as git's grafts make it.
   */
  constructor(private readonly odb: ObjectStore, private readonly shallow: ReadonlySet<string> = new Set()) {}

  /** A ref the server advertised and we have: common, offered once, its history skipped. */
  knownCommon(hex: string): void {
    const c = this.commitOf(hex);
    if (!c || c.flags & SEEN) return;
    this.push(c, COMMON_REF | SEEN);
    this.markCommon(c, true);
  }

  /** A local ref tip to start walking from. */
  addTip(hex: string): void {
    const c = this.commitOf(hex);
    if (c) this.push(c, SEEN);
  }

  /** The next commit to offer, or null when nothing uncommon remains. */
  next(): string | null {
    for (;;) {
      if (this.heap.length === 0 || this.nonCommon === 0) return null;
      const c = this.pop();
      const parents = this.parse(c);
      c.flags |= POPPED;
      if (!(c.flags & COMMON)) this.nonCommon--;
      let mark: number;
      let send = true;
      if (c.flags & COMMON) {
        send = false;
        mark = COMMON | SEEN;
      } else if (c.flags & COMMON_REF) {
        mark = COMMON | SEEN;
      } else {
        mark = SEEN;
      }
      for (const p of parents) {
        if (!(p.flags & SEEN)) this.push(p, mark);
        if (mark & COMMON) this.markCommon(p, true);
      }
      if (send) return c.hex;
    }
  }

  /** The server acknowledged `hex`; returns whether we already knew it was common. */
  ack(hex: string): boolean {
    const c = this.nodes.get(hex);
    if (!c) return false;
    const known = (c.flags & COMMON) !== 0;
    this.markCommon(c, false);
    return known;
  }

  /** git's mark_common: `c` (unless ancestorsOnly) and everything below it becomes common. */
  private markCommon(start: Node, ancestorsOnly: boolean): void {
    // Iterative, since histories are deeper than the stack: [node, ancestorsOnly] pairs.
    const stack: [Node, boolean][] = [[start, ancestorsOnly]];
    while (stack.length) {
      const [c, onlyAncestors] = stack.pop()!;
      if (c.flags & COMMON) continue;
      if (!onlyAncestors) c.flags |= COMMON;
      if (!(c.flags & SEEN)) {
        this.push(c, SEEN);
        continue;
      }
      if (!onlyAncestors && !(c.flags & POPPED)) this.nonCommon--;
      for (const p of this.parse(c)) stack.push([p, false]);
    }
  }

  private push(c: Node, mark: number): void {
    if (c.flags & mark) return;
    c.flags |= mark;
    this.parse(c);
    c.seq = this.seq++;
    this.heap.push(c);
    this.siftUp(this.heap.length - 1);
    if (!(c.flags & COMMON)) this.nonCommon++;
  }

  /** The commit a ref points at, peeling tags; null for anything we do not have or is not a commit. */
  private commitOf(hex: string): Node | null {
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

  private node(hex: string): Node {
    let n = this.nodes.get(hex);
    if (!n) {
      n = { hex, flags: 0, time: 0, parents: null, seq: 0 };
      this.nodes.set(hex, n);
    }
    return n;
  }

  private parse(c: Node): Node[] {
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

  // A binary max-heap on (time, then earlier insertion).
  private before(a: Node, b: Node): boolean {
    return a.time > b.time || (a.time === b.time && a.seq < b.seq);
  }

  private pop(): Node {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let best = i;
      if (l < heap.length && this.before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && this.before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
}
