// git's "skipping" fetch negotiator, negotiator/skipping.c (fetch.negotiationAlgorithm=skipping,
// and feature.experimental): the local history newest commit first, as the consecutive one walks
// it, but offering fewer of a long run of commits the server does not acknowledge: after each
// commit offered it skips ever more of its ancestors (1, 2, 4, 7, 11, ... an entry's skip grows
// by half and one), so that a long history is crossed in few haves. An acknowledged commit, or one
// the server advertised, makes its ancestors common: never offered.
import { fromHex } from '../core/oid.js';
import { OBJ_COMMIT } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { CommitNodes, type CommitNode } from './commit-nodes.js';
import type { Negotiator } from './negotiator.js';

const COMMON = 1;
const ADVERTISED = 2;
const SEEN = 4;
const POPPED = 8;

/** A commit in the queue, with how many more of its ancestors to pass over (ttl) and the run it is in. */
interface Entry {
  readonly commit: CommitNode;
  originalTtl: number;
  ttl: number;
}

export class SkippingNegotiator implements Negotiator {
  private readonly commits: CommitNodes;
  // Newest first, equal dates first-in first-out, as git's prio_queue gives them. Entries are few
  // (the walk's frontier), so a sorted insert is cheap enough.
  private readonly queue: Entry[] = [];
  private nonCommon = 0;

  /** `shallow`: the commits whose parents are not here (the shallow file), where the walk stops. */
  constructor(private readonly odb: ObjectStore, shallow: ReadonlySet<string> = new Set()) {
    this.commits = new CommitNodes(odb, shallow);
  }

  /**
   * What git's fetch-pack parses before negotiating (mark_complete_and_common_ref): every local
   * ref's commit, and, newest first, the commits they reach dated no earlier than the newest of the
   * `advertised` ids that are commits here, with their parents. Their dates then order the queue.
   */
  parsedAhead(localTips: readonly string[], advertised: readonly string[]): void {
    let cutoff = 0;
    for (const hex of advertised) {
      // Its type from the object's header alone: parse() reads the commits whole, once.
      if (this.odb.info(fromHex(hex)!)?.type !== OBJ_COMMIT) continue;
      const c = this.commits.node(hex);
      this.commits.parse(c);
      cutoff = Math.max(cutoff, c.time);
    }
    const complete: CommitNode[] = [];
    for (const hex of localTips) {
      const c = this.commitOf(hex);
      if (c && !complete.includes(c)) complete.push(c);
    }
    if (cutoff === 0) return;
    const seen = new Set(complete);
    // Newest first; a parent goes in at its place, after those of its date already there.
    complete.sort((a, b) => b.time - a.time);
    for (;;) {
      const c = complete[0];
      if (!c || c.time < cutoff) return;
      complete.shift();
      for (const p of this.commits.parse(c)) {
        this.commits.parse(p);
        if (!seen.has(p)) {
          seen.add(p);
          const at = complete.findIndex((q) => q.time < p.time);
          complete.splice(at < 0 ? complete.length : at, 0, p);
        }
      }
    }
  }

  knownCommon(hex: string): void {
    const c = this.commitOf(hex);
    if (c && !(c.flags & SEEN)) this.push(c, ADVERTISED);
  }

  addTip(hex: string): void {
    const c = this.commitOf(hex);
    if (c && !(c.flags & SEEN)) this.push(c, 0);
  }

  next(): string | null {
    for (;;) {
      if (this.queue.length === 0 || this.nonCommon === 0) return null;
      const entry = this.queue.shift()!;
      const c = entry.commit;
      c.flags |= POPPED;
      if (!(c.flags & COMMON)) this.nonCommon--;
      let send = !(c.flags & COMMON) && entry.ttl === 0;
      let parentPushed = false;
      for (const p of this.commits.parse(c)) if (this.pushParent(entry, p)) parentPushed = true;
      // No parents, or all of them gone by already (clock skew): offered anyway.
      if (!(c.flags & COMMON) && !parentPushed) send = true;
      if (send) return c.hex;
    }
  }

  ack(hex: string): boolean {
    const c = this.commits.get(hex);
    if (!c) return false;
    const known = (c.flags & COMMON) !== 0;
    this.markCommon(c);
    return known;
  }

  /** git's push_parent: `parent` queued (false when it has been popped already), with the ttl its child passes on. */
  private pushParent(entry: Entry, parent: CommitNode): boolean {
    let parentEntry: Entry;
    if (parent.flags & SEEN) {
      if (parent.flags & POPPED) return false;
      parentEntry = this.queue.find((e) => e.commit === parent)!;
    } else {
      parentEntry = this.push(parent, 0);
    }
    if (entry.commit.flags & (COMMON | ADVERTISED)) {
      this.markCommon(parent);
    } else {
      const originalTtl = entry.ttl ? entry.originalTtl : Math.floor((entry.originalTtl * 3) / 2) + 1;
      const ttl = entry.ttl ? entry.ttl - 1 : originalTtl;
      if (parentEntry.originalTtl < originalTtl) {
        parentEntry.originalTtl = originalTtl;
        parentEntry.ttl = ttl;
      }
    }
    return true;
  }

  /** git's mark_common: `start` and its ancestors already queued become common. */
  private markCommon(start: CommitNode): void {
    if (start.flags & COMMON) return;
    start.flags |= COMMON;
    const stack = [start];
    while (stack.length) {
      const c = stack.pop()!;
      if (!(c.flags & POPPED)) this.nonCommon--;
      // git's mark_common goes no further than what it has parsed.
      for (const p of c.parents ?? []) {
        if (!(p.flags & SEEN) || p.flags & COMMON) continue;
        p.flags |= COMMON;
        stack.push(p);
      }
    }
  }

  private push(c: CommitNode, mark: number): Entry {
    c.flags |= mark | SEEN;
    const entry: Entry = { commit: c, originalTtl: 0, ttl: 0 };
    // After every entry as new or newer (and, on a tie, queued earlier).
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.commit.time < c.time) i--;
    this.queue.splice(i, 0, entry);
    if (!(mark & COMMON)) this.nonCommon++;
    return entry;
  }

  /** The commit a ref points at, peeling tags, read as git's parse_object reads it. */
  private commitOf(hex: string): CommitNode | null {
    const c = this.commits.commitOf(hex);
    if (c) this.commits.parse(c);
    return c;
  }
}
