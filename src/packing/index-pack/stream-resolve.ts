// Delta resolution while the pack arrives. An OFS_DELTA's base always precedes it, and git writes
// a pack so that a base's deltas mostly follow it closely (pack-objects' write order: a delta
// family together, a base before its deltas). So the resolver thread that takes the first pass's
// ring (first-pass-ring.ts) keeps the recent whole trees and blobs and the recent delta results,
// each in a ring of a few megabytes (oldest out first), and resolves each delta as it comes:
// applied to its base, hashed, checked with --strict, marked STREAMED in the table. A base that
// has left the rings is read back from the pack file along its chain (chain-rebuild.ts), once the
// parser has written it there (on large, the whole trees come long before their deltas: each is
// read back once).
//
// Whatever this thread cannot do now (the ring was full because this thread is behind, the base
// is unresolved or not yet in the file, a corrupt delta, a result too large to hold here) is left
// unresolved, and the second pass does it as before (and reports what is wrong with the offsets
// it knows). That is also why a corrupt delta is not an error here. An fsck error is an error
// wherever it is found, and found the same way: a tree delta against a clean base has only the
// entries it does not copy checked (as resolve.ts does), the others were checked in the base.
//
// Before this, the thread hashed the first pass's whole objects and was idle 85% of a clone of
// large from git daemon; the second pass then did all of the resolving after the last byte.
import { sha1 } from '../../core/hash.js';
import { OID_BYTES } from '../../core/oid.js';
import { TreeLayout, type FsckOptions, type TreeDeltaBase } from '../../object/fsck.js';
import { OBJ_BLOB, OBJ_OFS_DELTA, OBJ_TREE } from '../../object/type.js';
import { applyDeltaWithSizes, DeltaCopies, readDeltaSizes } from '../../pack/delta.js';
import { ChainRebuilder } from './chain-rebuild.js';
import { againstCleanBase, ObjectChecker, type ReferenceList } from './check.js';
import { ContentRing } from './content-ring.js';
import { EntryReader } from './entry-reader.js';
import { objectHeaderLength, putObjectHeader } from './object-header.js';
import { consumeFirstPassRing, writtenTo, type FirstPassRingBuffers } from './first-pass-ring.js';
import { SharedIdIndex } from './id-index.js';
import { ObjectTable, STREAMED, type TableBuffers } from './tables.js';

/** Larger results are left to the second pass, which holds big objects as it always has. */
const RESULT_MAX = 16 << 20;

/** What the parsing thread sends the ring's thread. */
export interface StreamRequest {
  ring: FirstPassRingBuffers;
  table: TableBuffers;
  name: string;
  /** The pack file as it is written. */
  packPath: string;
  maxDepth: number;
  /** Bytes of bases kept: half for whole trees and blobs, half for delta results. */
  cacheLimit: number;
  strict: FsckOptions | null;
  /**
   * With strict and the connectivity check: the id index (id-index.ts) for the objects resolved
   * here, sized for the pack header's count; objects beyond `indexCapacity` are not added.
   */
  idSlots: SharedArrayBuffer | null;
  indexCapacity: number;
  /** As ResolveShared.parentless. */
  parentless: Uint8Array | null;
}

export interface StreamResult {
  /** Deltas resolved. */
  resolved: number;
  /** With strict: the references still to be checked, as a resolver's checker gives them. */
  refs: ReferenceList | null;
}

/**
 * How many trees' layouts --strict keeps (a tree delta's base was among the last 64 trees for 92%
 * of large's tree deltas): a delta against one of them checks only the entries it does not copy.
 */
const LAYOUTS = 64;

/**
 * The layouts of the last trees checked clean, by object number, reused oldest first. Few enough
 * that a lookup scans their owners.
 */
class LayoutRing {
  private readonly layouts = Array.from({ length: LAYOUTS }, () => new TreeLayout());
  private readonly owner = new Int32Array(LAYOUTS).fill(-1);
  private next = 0;

  get(i: number): TreeLayout | null {
    const s = this.owner.indexOf(i);
    return s < 0 ? null : this.layouts[s]!;
  }

  /** A layout to check a tree with, never `keep`'s (the base being read). */
  take(keep: TreeLayout | null): number {
    let s = this.next;
    if (this.layouts[s] === keep) s = (s + 1) % LAYOUTS;
    this.next = (s + 1) % LAYOUTS;
    this.owner[s] = -1;
    return s;
  }

  layout(s: number): TreeLayout {
    return this.layouts[s]!;
  }

  /** Keeps slot `s`'s layout as object `i`'s if its check found it clean. */
  keep(i: number, s: number): void {
    if (this.layouts[s]!.clean) this.owner[s] = i;
  }
}

export class StreamResolver {
  private readonly table: ObjectTable;
  private readonly reader: EntryReader;
  private readonly written: () => number;
  private readonly wholes: ContentRing;
  private readonly results: ContentRing;
  private readonly held = (i: number): Buffer | null => this.wholes.get(i) ?? this.results.get(i);
  private readonly chains: ChainRebuilder;
  private readonly index: SharedIdIndex | null;
  private indexed = 0;
  private readonly checker: ObjectChecker | null;
  private readonly layouts = new LayoutRing();
  private readonly copies = new DeltaCopies();
  private readonly treeBase: TreeDeltaBase = { layout: new TreeLayout(), runs: this.copies.runs, runCount: 0 };
  private resolved = 0;
  /** The delta being resolved, for messages (one closure for all). */
  private current = 0;
  private readonly where = (): string => `${this.r.name}: delta at offset ${this.table.offset[this.current]}`;

  constructor(private readonly r: StreamRequest) {
    this.table = ObjectTable.following(r.table);
    this.wholes = new ContentRing(Math.max(r.cacheLimit >>> 1, 1024));
    this.results = new ContentRing(Math.max(r.cacheLimit >>> 1, 1024));
    this.written = writtenTo(r.ring);
    this.reader = new EntryReader(r.name, r.packPath, this.table, () => this.written());
    this.chains = new ChainRebuilder(this.reader, {
      held: this.held,
      room: (i, n, base) => this.ringFor(i)?.room(n, base),
      kept: (i, data) => this.ringFor(i)!.keep(i, data),
    });
    this.index = r.idSlots ? new SharedIdIndex(new Int32Array(r.idSlots), this.table.ids) : null;
    this.checker = r.strict ? new ObjectChecker(r.strict, r.name, this.index, this.table, r.parentless) : null;
  }

  /** Takes the ring's jobs until it is closed. */
  run(): StreamResult {
    try {
      consumeFirstPassRing(this.r.ring, (i, data, at, length) => {
        if (this.table.type[i]! >= OBJ_OFS_DELTA) this.delta(i, data, at, length);
        else this.whole(i, data, at, length);
      });
    } finally {
      this.reader.close();
    }
    return { resolved: this.resolved, refs: this.checker?.references() ?? null };
  }

  /** A whole object with its header: hashed, checked, kept as a base if it may be one. */
  private whole(i: number, data: Uint8Array, at: number, length: number): void {
    const t = this.table;
    t.ids.set(sha1(data.subarray(at, at + length)), i * OID_BYTES);
    const type = t.type[i]!;
    const size = t.size[i]!;
    const content = data.subarray(at + length - size, at + length);
    this.check(i, type, content, null);
    Atomics.store(t.state, i, STREAMED);
    const ring = this.ringFor(i);
    const room = ring?.room(size, null);
    if (room) {
      room.set(content);
      ring!.keep(i, room);
    }
  }

  /** An OFS_DELTA's data: resolved if its base can be had now, else left for the second pass. */
  private delta(i: number, data: Uint8Array, at: number, length: number): void {
    const t = this.table;
    const b = t.base[i]!;
    const depth = t.depth[b]! + 1;
    if (t.state[b] === 0 || depth > this.r.maxDepth) return;
    this.current = i;
    let content: Buffer;
    let against: TreeDeltaBase | null = null;
    try {
      const base = this.content(b);
      if (!base) return;
      const sizes = readDeltaSizes(data, at, at + length, 'pack', this.where);
      if (sizes.resultSize > RESULT_MAX) return;
      const type = t.realType[b]!;
      const prefixLength = objectHeaderLength(type, sizes.resultSize);
      const need = prefixLength + sizes.resultSize;
      const room = this.results.room(need, base);
      const out = room ?? Buffer.allocUnsafe(need);
      putObjectHeader(out, 0, type, sizes.resultSize, prefixLength);
      content = applyDeltaWithSizes(base, data, sizes, at + length, 'pack', this.where, out, prefixLength);
      t.ids.set(sha1(out.subarray(0, need)), i * OID_BYTES);
      t.realType[i] = type;
      t.depth[i] = depth;
      if (room) this.results.keep(i, content);
      // With --strict, what a tree delta copies from a clean base needs no second look (as in resolve.ts).
      const baseLayout = this.checker && type === OBJ_TREE ? this.layouts.get(b) : null;
      against = againstCleanBase(this.treeBase, this.copies, baseLayout, data, sizes.pos, at + length, base.length, sizes.resultSize);
    } catch {
      // A corrupt delta: the second pass meets it again and says where it is.
      return;
    }
    this.check(i, t.realType[i]!, content, against);
    Atomics.store(t.state, i, STREAMED);
    this.resolved++;
  }

  /** --strict's checks of a resolved object (a tree against its base's layout), and its place in the id index. */
  private check(i: number, type: number, content: Uint8Array, base: TreeDeltaBase | null): void {
    if (this.checker && type === OBJ_TREE) {
      const s = this.layouts.take(base?.layout ?? null);
      this.checker.check(type, content, this.table.ids, i * OID_BYTES, this.layouts.layout(s), base);
      this.layouts.keep(i, s);
    } else {
      this.checker?.check(type, content, this.table.ids, i * OID_BYTES);
    }
    if (this.index && this.indexed < this.r.indexCapacity) {
      this.index.insert(i);
      this.indexed++;
    }
  }

  /**
   * The content of resolved object `b`: kept, or rebuilt from the pack file along its chain from
   * the nearest kept ancestor; null when a link of the chain is not in the file yet.
   */
  private content(b: number): Buffer | null {
    const kept = this.held(b);
    // b is the last of its chain in the pack: once it is in the file, all of the chain is.
    if (kept || this.table.offset[b + 1]! > this.written()) return kept;
    return this.chains.content(b);
  }

  /** The ring that keeps object `i`'s content, if one does: `results` for a delta, `wholes` for a whole tree or blob. */
  private ringFor(i: number): ContentRing | null {
    const t = this.table;
    if (t.isDelta(i)) return this.results;
    return t.type[i] === OBJ_TREE || t.type[i] === OBJ_BLOB ? this.wholes : null;
  }
}
