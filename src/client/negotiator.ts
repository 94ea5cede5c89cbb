// git's default ("consecutive") fetch negotiator, negotiator/default.c: walk the local history
// from every ref tip newest commit first and offer each commit as a "have"; once the server
// acknowledges a commit, its ancestors are common too and are no longer offered. Commits at the
// tips of refs the server advertised that we already have are known to be common from the start:
// they are offered once (so the server learns it) and their ancestors are skipped.
import type { ObjectStore } from '../odb/object-store.js';
import { CommitNodes, type CommitNode } from './commit-nodes.js';

const COMMON = 1;
const COMMON_REF = 2;
const SEEN = 4;
const POPPED = 8;

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
  private readonly commits: CommitNodes;
  private readonly heap: CommitNode[] = [];
  private seq = 0;
  private nonCommon = 0;

  /**
   * `shallow` lists the commits whose parents this repository does not have (its shallow file):
   * the walk stops there, as git's grafts make it.
   */
  constructor(odb: ObjectStore, shallow: ReadonlySet<string> = new Set()) {
    this.commits = new CommitNodes(odb, shallow);
  }

  /** A ref the server advertised and we have: common, offered once, its history skipped. */
  knownCommon(hex: string): void {
    const c = this.commits.commitOf(hex);
    if (!c || c.flags & SEEN) return;
    this.push(c, COMMON_REF | SEEN);
    this.markCommon(c, true);
  }

  /** A local ref tip to start walking from. */
  addTip(hex: string): void {
    const c = this.commits.commitOf(hex);
    if (c) this.push(c, SEEN);
  }

  /** The next commit to offer, or null when nothing uncommon remains. */
  next(): string | null {
    for (;;) {
      if (this.heap.length === 0 || this.nonCommon === 0) return null;
      const c = this.pop();
      const parents = this.commits.parse(c);
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
    const c = this.commits.get(hex);
    if (!c) return false;
    const known = (c.flags & COMMON) !== 0;
    this.markCommon(c, false);
    return known;
  }

  /** git's mark_common: `c` (unless ancestorsOnly) and everything below it becomes common. */
  private markCommon(start: CommitNode, ancestorsOnly: boolean): void {
    // Iterative, since histories are deeper than the stack: [node, ancestorsOnly] pairs.
    const stack: [CommitNode, boolean][] = [[start, ancestorsOnly]];
    while (stack.length) {
      const [c, onlyAncestors] = stack.pop()!;
      if (c.flags & COMMON) continue;
      if (!onlyAncestors) c.flags |= COMMON;
      if (!(c.flags & SEEN)) {
        this.push(c, SEEN);
        continue;
      }
      if (!onlyAncestors && !(c.flags & POPPED)) this.nonCommon--;
      for (const p of this.commits.parse(c)) stack.push([p, false]);
    }
  }

  private push(c: CommitNode, mark: number): void {
    if (c.flags & mark) return;
    c.flags |= mark;
    this.commits.parse(c);
    c.seq = this.seq++;
    this.heap.push(c);
    this.siftUp(this.heap.length - 1);
    if (!(c.flags & COMMON)) this.nonCommon++;
  }

  // A binary max-heap on (time, then earlier insertion).
  private before(a: CommitNode, b: CommitNode): boolean {
    return a.time > b.time || (a.time === b.time && a.seq < b.seq);
  }

  private pop(): CommitNode {
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
