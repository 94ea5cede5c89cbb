// Negotiation state, as upload-pack.c keeps it: which of the client's haves exist here
// (got_oid), and whether every want is already reachable from something the client has, so the
// server can say "ready" (ok_to_give_up / can_all_from_reach_with_flag): a depth-first search from
// each want that does not look at commits older than the oldest have.
import { OBJ_COMMIT } from '../object/type.js';
import { ensureCapacity } from '../walk/oid-map.js';
import { COMMON_KNOWN, THEY_HAVE, type Session } from './session.js';

export class Negotiation {
  /** What the client has that we have too, in the order it said so (git's have_obj). */
  readonly haves: number[] = [];
  private oldestHave = 0;
  private stamp = 0;
  private visited = new Int32Array(1024);

  constructor(private readonly s: Session, private readonly wants: readonly number[]) {}

  /**
   * Records a have: -1 when we do not have the object, 1 when it is news, 0 when we already
   * knew the client has it (a parent of an earlier have).
   */
  gotOid(idx: number): -1 | 0 | 1 {
    const s = this.s;
    if (!s.exists(idx)) return -1;
    if (s.typeOf(idx) === OBJ_COMMIT) {
      const knew = s.has(idx, THEY_HAVE);
      s.mark(idx, THEY_HAVE);
      const t = s.time(idx);
      if (!this.oldestHave || t < this.oldestHave) this.oldestHave = t;
      for (const p of s.parents(idx)) s.mark(p, THEY_HAVE);
      if (knew) return 0;
    }
    this.haves.push(idx);
    return 1;
  }

  /** Every want can reach a commit the client has. */
  okToGiveUp(): boolean {
    if (this.haves.length === 0) return false;
    const s = this.s;
    this.stamp++;
    for (const want of this.wants) {
      if (s.has(want, COMMON_KNOWN)) continue;
      const c = s.peel(want);
      if (c < 0 || s.typeOf(c) !== OBJ_COMMIT) {
        // Ancestry cannot tell whether a tree or blob is covered; git stops worrying about it.
        s.mark(want, COMMON_KNOWN);
        continue;
      }
      if (!this.reaches(c)) return false;
    }
    return true;
  }

  private reaches(start: number): boolean {
    const s = this.s;
    if (s.has(start, THEY_HAVE)) return true;
    const stack = [start];
    this.visit(start);
    while (stack.length) {
      const c = stack.pop()!;
      for (const p of s.parents(c)) {
        if (s.has(p, THEY_HAVE)) return true;
        if (this.seen(p) || s.time(p) < this.oldestHave) continue;
        this.visit(p);
        stack.push(p);
      }
    }
    return false;
  }

  private seen(idx: number): boolean {
    return idx < this.visited.length && this.visited[idx] === this.stamp;
  }

  private visit(idx: number): void {
    if (idx >= this.visited.length) this.visited = ensureCapacity(this.visited, idx + 1);
    this.visited[idx] = this.stamp;
  }
}
