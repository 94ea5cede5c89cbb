// A max-heap of commits by committer time; among equal times, the one inserted first comes out
// first. That is the order of git's date-sorted commit list, so walks print commits in git's order.
export class CommitQueue {
  private heap = new Int32Array(64);
  private n = 0;
  private seqCounter = 0;

  /** time and seq are read through these arrays, indexed by object index. */
  constructor(private time: () => Float64Array, private seq: () => Int32Array) {}

  get size(): number { return this.n; }

  push(idx: number): void {
    this.seq()[idx] = this.seqCounter++;
    if (this.n === this.heap.length) {
      const bigger = new Int32Array(this.heap.length * 2);
      bigger.set(this.heap);
      this.heap = bigger;
    }
    let i = this.n++;
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(idx, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = idx;
  }

  pop(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap[--this.n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      const c = r < this.n && this.before(heap[r]!, heap[l]!) ? r : l;
      if (!this.before(heap[c]!, last)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    return top;
  }

  /** Iterates the queued commits in no particular order. */
  forEach(fn: (idx: number) => boolean): boolean {
    for (let i = 0; i < this.n; i++) if (!fn(this.heap[i]!)) return false;
    return true;
  }

  private before(a: number, b: number): boolean {
    const t = this.time(), ta = t[a]!, tb = t[b]!;
    if (ta !== tb) return ta > tb;
    const s = this.seq();
    return s[a]! < s[b]!;
  }
}
