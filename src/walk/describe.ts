// Naming a commit after refs, as `git describe` (builtin/describe.c) and `git name-rev`
// (builtin/name-rev.c) do: the other direction of rev/resolve.ts.
//
// describe: the nearest ref *behind* the commit. Each ref names the commit it peels to (annotated
// tags first, then lightweight tags, then, with `all`, any ref; the first ref in name order wins
// a tie, the newer tagger date among annotated tags). An exact match is the name itself; else the
// history is walked newest first (by commit date) collecting up to 10 candidates and counting,
// for each, the commits not behind it: `<name>-<count>-g<abbreviated id>` for the fewest.
// name-rev (describe --contains): the nearest tag *ahead* of the commit, as `<tag>~<n>^<p>...`,
// every tag's history walked from the oldest tag first, a better name replacing a worse one.
// Commits older than a day before the commit being named are not walked (git's cutoff).
import { fromHex, OID_BYTES, toHex } from '../core/oid.js';
import { parseCommit, parseIdentTime } from '../object/commit.js';
import { parseTag } from '../object/tag.js';
import { OBJ_COMMIT, OBJ_TAG } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import type { RefEntry } from '../refs/store.js';
import { CommitQueue } from './commit-queue.js';
import { OidMap, ensureCapacity } from './oid-map.js';

const MAX_CANDIDATES = 10;
const SEEN = 1;
/** In the queue now (candidate flags are bits 1 to MAX_CANDIDATES, so this one is free). */
const QUEUED = 1 << 30;
const CUTOFF_DATE_SLOP = 86400;
const MERGE_TRAVERSAL_WEIGHT = 65535;
const MAX_TAG_CHAIN = 64;

/**
 * The commits met, by dense index: date, parents and flags, each commit read once. A shallow
 * commit ($GIT_DIR/shallow) has no parents here, as for git.
 */
class CommitGraph {
  readonly ids = new OidMap(256);
  dates = new Float64Array(256);
  flags = new Uint32Array(256);
  /** Insertion numbers for CommitQueue's tie-break (equal dates leave in the order they came). */
  seq = new Int32Array(256);
  private parents: (Int32Array | undefined)[] = [];
  private readonly shallow = new Set<number>();

  constructor(readonly odb: ObjectStore, shallow: Iterable<Uint8Array>) {
    for (const id of shallow) this.shallow.add(this.intern(id));
  }

  intern(id: Uint8Array, off = 0): number {
    let idx = this.ids.addOrGet(id, off);
    if (idx < 0) {
      idx = ~idx;
      this.dates = ensureCapacity(this.dates, idx + 1);
      this.flags = ensureCapacity(this.flags, idx + 1);
      this.seq = ensureCapacity(this.seq, idx + 1);
    }
    return idx;
  }

  /** Parents of commit `idx` (reading it on first use); a missing commit has none, as in a shallow clone. */
  parentsOf(idx: number): Int32Array {
    let ps = this.parents[idx];
    if (ps) return ps;
    const o = this.odb.read(this.ids.keys, idx * OID_BYTES);
    if (!o || o.type !== OBJ_COMMIT) {
      ps = new Int32Array(0);
    } else {
      const c = parseCommit(o.data, () => `commit ${this.hex(idx)}`);
      this.dates[idx] = c.time;
      ps = new Int32Array(this.shallow.has(idx) ? 0 : c.parents.length);
      for (let i = 0; i < ps.length; i++) ps[i] = this.intern(c.parents[i]!);
    }
    this.parents[idx] = ps;
    return ps;
  }

  date(idx: number): number {
    this.parentsOf(idx);
    return this.dates[idx]!;
  }

  hex(idx: number): string {
    return toHex(this.ids.keys, idx * OID_BYTES);
  }
}

/**
 * What a ref leads to: the commit, and for an annotated tag the outermost tag's name and date (what
 * describe shows and compares) and the innermost tag's date (what name-rev compares).
 */
interface Peeled {
  commit: Uint8Array | null;
  tag: { name: string; date: number } | null;
  innerDate: number;
}

function peel(odb: ObjectStore, hex: string): Peeled {
  let id = fromHex(hex)!;
  const out: Peeled = { commit: null, tag: null, innerDate: 0 };
  for (let depth = 0; depth < MAX_TAG_CHAIN; depth++) {
    const info = odb.info(id);
    if (!info || (info.type !== OBJ_COMMIT && info.type !== OBJ_TAG)) return out;
    if (info.type === OBJ_COMMIT) {
      out.commit = id;
      return out;
    }
    const o = odb.mustRead(id);
    const t = parseTag(o.data, () => `tag ${toHex(id)}`);
    out.innerDate = taggerDate(o.data);
    out.tag ??= { name: t.name, date: out.innerDate };
    id = t.object;
  }
  return out;
}

function taggerDate(data: Uint8Array): number {
  const b = Buffer.from(data.buffer, data.byteOffset, data.length);
  let p = 0;
  while (p < b.length && b[p] !== 0x0a) {
    const end = b.indexOf(0x0a, p);
    const e = end < 0 ? b.length : end;
    if (b.toString('latin1', p, p + 7) === 'tagger ') return parseIdentTime(b, p, e);
    p = e + 1;
  }
  return 0;
}

export interface DescribeOptions {
  /** Lightweight tags too (--tags). */
  tags?: boolean;
  /** Any ref, named with its refs/ prefix taken off (--all). */
  all?: boolean;
  /** The abbreviated id when nothing describes the commit (--always). */
  always?: boolean;
  /** Hex digits of an abbreviated id (git's core.abbrev=auto for the repository). */
  abbrev: number;
  /** The repository's shallow commits, whose parents are not there. */
  shallow?: Iterable<Uint8Array>;
}

interface Name {
  prio: number;
  path: string;
  /** For an annotated tag: the name inside it and its tagger date. */
  tag: { name: string; date: number } | null;
}

/** git describe <commit>; null when git would fail ("No names found", "No tags can describe"). */
export function describe(odb: ObjectStore, refs: readonly RefEntry[], commit: Uint8Array, o: DescribeOptions): string | null {
  const graph = new CommitGraph(odb, o.shallow ?? []);
  const names = new Map<number, Name>();
  for (const ref of refs) {
    const isTag = ref.name.startsWith('refs/tags/');
    if (!isTag && !o.all) continue;
    const p = peel(odb, ref.oid);
    if (!p.commit) continue;
    const prio = p.tag ? 2 : isTag ? 1 : 0;
    const idx = graph.intern(p.commit);
    const e = names.get(idx);
    const replace = !e || e.prio < prio || (e.prio === 2 && prio === 2 && e.tag!.date < p.tag!.date);
    if (replace) names.set(idx, { prio, path: ref.name.slice(o.all ? 5 : 10), tag: p.tag });
  }
  const start = graph.intern(commit);
  // An annotated tag is shown by the name inside it, as git's append_name.
  const nameOf = (n: Name) => (n.tag ? `${o.all ? 'tags/' : ''}${n.tag.name}` : n.path);
  const exact = names.get(start);
  if (exact && (o.tags || o.all || exact.prio === 2)) {
    // A tag whose own name differs from its ref's is "misnamed": git then shows the suffix too.
    const misnamed = exact.tag !== null && exact.tag.name !== (o.all ? exact.path.slice(5) : exact.path);
    return misnamed ? `${nameOf(exact)}-0-g${graph.hex(start).slice(0, o.abbrev)}` : nameOf(exact);
  }

  interface Candidate { name: Name; depth: number; flag: number; order: number }
  const matches: Candidate[] = [];
  let annotated = 0;
  let gaveUpOn = -1;
  let seenCommits = 0;
  // git keeps this list sorted by commit date (commit_list_insert_by_date, a commit going after
  // those of its date), a walk along the list per insertion; the heap gives the same order.
  const queue = new CommitQueue(() => graph.dates, () => graph.seq);
  const push = (idx: number) => {
    graph.date(idx);
    queue.push(idx);
    graph.flags[idx]! |= QUEUED;
  };
  const pop = () => {
    const c = queue.pop();
    graph.flags[c]! &= ~QUEUED;
    return c;
  };
  push(start);
  graph.flags[start]! |= SEEN;
  while (queue.size > 0) {
    const c = pop();
    seenCommits++;
    const n = names.get(c);
    if (n) {
      if (!o.tags && !o.all && n.prio < 2) {
        // Lightweight tags only count toward git's hint.
      } else if (matches.length < MAX_CANDIDATES) {
        const flag = 1 << (matches.length + 1);
        matches.push({ name: n, depth: seenCommits - 1, flag, order: matches.length + 1 });
        graph.flags[c]! |= flag;
        if (n.prio === 2) annotated++;
      } else {
        gaveUpOn = c;
        break;
      }
    }
    for (const m of matches) if (!(graph.flags[c]! & m.flag)) m.depth++;
    if (annotated > 0 && queue.size === 0) {
      let bestDepth = Infinity, bestWithin = 0;
      for (const m of matches) {
        if (m.depth < bestDepth) { bestDepth = m.depth; bestWithin = m.flag; }
        else if (m.depth === bestDepth) bestWithin |= m.flag;
      }
      if ((graph.flags[c]! & bestWithin) === bestWithin) break;
    }
    for (const p of graph.parentsOf(c)) {
      if (!(graph.flags[p]! & SEEN)) push(p);
      graph.flags[p]! |= graph.flags[c]!;
    }
  }
  if (matches.length === 0) return o.always ? graph.hex(start).slice(0, o.abbrev) : null;
  matches.sort((a, b) => a.depth - b.depth || a.order - b.order);
  const best = matches[0]!;
  if (gaveUpOn >= 0) push(gaveUpOn);
  // finish_depth_computation: keep counting until everything left is behind the best name. git
  // looks along the whole list for a commit that is not, after each commit that is; a count of
  // the queued commits that are not, kept as flags spread, gives the same answer in one step.
  const lacking = (idx: number) => ((graph.flags[idx]! & (QUEUED | best.flag)) === QUEUED ? 1 : 0);
  let unflagged = 0;
  queue.forEach(idx => { unflagged += lacking(idx); return true; });
  while (queue.size > 0) {
    const c = pop();
    if (graph.flags[c]! & best.flag) {
      if (unflagged === 0) break;
    } else {
      unflagged--;
      best.depth++;
    }
    for (const p of graph.parentsOf(c)) {
      const before = lacking(p);
      if (!(graph.flags[p]! & SEEN)) push(p);
      graph.flags[p]! |= graph.flags[c]!;
      unflagged += lacking(p) - before;
    }
  }
  return `${nameOf(best.name)}-${best.depth}-g${graph.hex(start).slice(0, o.abbrev)}`;
}

interface RevName {
  tip: string;
  generation: number;
  distance: number;
}

/**
 * git name-rev --tags --name-only --no-undefined <commit> (what describe --contains runs): the
 * name, or null when no tag contains the commit.
 */
export function nameRev(odb: ObjectStore, refs: readonly RefEntry[], commit: Uint8Array,
  shallow: Iterable<Uint8Array> = []): string | null {
  const graph = new CommitGraph(odb, shallow);
  const start = graph.intern(commit);
  const cutoff = graph.date(start) - CUTOFF_DATE_SLOP;
  const tips: { idx: number; name: string; date: number; deref: boolean; order: number }[] = [];
  for (const ref of refs) {
    if (!ref.name.startsWith('refs/tags/')) continue;
    const p = peel(odb, ref.oid);
    if (!p.commit) continue;
    const idx = graph.intern(p.commit);
    tips.push({ idx, name: ref.name.slice(10), date: p.tag ? p.innerDate : graph.date(idx), deref: p.tag !== null, order: tips.length });
  }
  // Older tags first, so that the names of newer ones spread less (git's cmp_by_tag_and_age).
  tips.sort((a, b) => a.date - b.date || a.order - b.order);
  const names = new Map<number, RevName>();
  // Among tags the nearer name wins, a merge counting as MERGE_TRAVERSAL_WEIGHT steps.
  const effective = (n: { distance: number; generation: number }) => n.distance + (n.generation > 0 ? MERGE_TRAVERSAL_WEIGHT : 0);
  const update = (idx: number, next: RevName): boolean => {
    const n = names.get(idx);
    if (n && effective(n) <= effective(next)) return false;
    names.set(idx, next);
    return true;
  };
  for (const t of tips) {
    if (graph.date(t.idx) < cutoff) continue;
    if (!update(t.idx, { tip: t.deref ? `${t.name}^0` : t.name, generation: 0, distance: 0 })) continue;
    // Depth first, first parents first (git uses its prio_queue as a stack here).
    const stack = [t.idx];
    while (stack.length > 0) {
      const c = stack.pop()!;
      const name = names.get(c)!;
      const ps = graph.parentsOf(c);
      const queued: number[] = [];
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        if (graph.date(p) < cutoff) continue;
        const next: RevName = i === 0
          ? { tip: name.tip, generation: name.generation + 1, distance: name.distance + 1 }
          : {
            tip: name.generation > 0 ? `${stripDeref(name.tip)}~${name.generation}^${i + 1}` : `${stripDeref(name.tip)}^${i + 1}`,
            generation: 0, distance: name.distance + MERGE_TRAVERSAL_WEIGHT,
          };
        if (update(p, next)) queued.push(p);
      }
      for (let i = queued.length - 1; i >= 0; i--) stack.push(queued[i]!);
    }
  }
  const n = names.get(start);
  if (!n) return null;
  if (n.generation === 0) return n.tip;
  return `${stripDeref(n.tip)}~${n.generation}`;
}

function stripDeref(tip: string): string {
  return tip.endsWith('^0') ? tip.slice(0, -2) : tip;
}
