// The object database of one repository: its packs (newest first, as git searches them), its
// loose objects, and its alternates. Reads resolve delta chains from the base up, caching each
// intermediate base in a byte-bounded cache, so walking a chain of depth 50 inflates each base once.
//
// A lookup goes as git's does (object-file.c, do_oid_object_info_extended()): every pack, this
// repository's and then its alternates', before any loose object; then the loose objects, ours and
// then the alternates'. A pack that fails git's checks when opened (a truncated pack under its
// intact index, one whose trailer no longer matches the index) is passed over, and an entry that
// fails to read is marked bad and the object read from another copy (unusable-pack.ts,
// recover-entry.ts): damage matters only where no other copy exists, as in git.
import buffer from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError, GitError, NotFoundError } from '../core/errors.js';
import { OID_BYTES, compareOid, toHex } from '../core/oid.js';
import { beyondInflateRatio, Inflater, deflateBound } from '../core/zlib.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA, OBJ_TREE, typeName, type ObjectTypeCode, type RawObject } from '../object/type.js';
import { applyDeltaWithSizes, peekDeltaSizes, readDeltaSizes } from '../pack/delta.js';
import { EntryHeader } from '../pack/entry-header.js';
import { inflateEntry } from '../pack/inflate-entry.js';
import { PackIndex } from '../pack/idx/read.js';
import { PackFile } from '../pack/pack-file.js';
import { DeltaBaseCache, RECYCLE, SPECULATIVE } from './delta-base-cache.js';
import { LooseObjects } from './loose.js';
import type { ObjectInfo, ObjectStore, StoredPack } from './object-store.js';
import { ReadTrace } from './read-trace.js';
import { readRecovering, type RecoveryOps } from './recover-entry.js';
import { isFileError, problemOf, UnusablePack } from './unusable-pack.js';

/** git refuses nothing by depth when reading, but a cycle must not loop forever. */
const MAX_CHAIN = 10000;
const MAX_ALTERNATE_DEPTH = 5;

let packNumbers = 0;

/** The real path of `dir`, or `dir` when it cannot be resolved. */
function realpathOr(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The names in `dir` in the order the filesystem gives them, as git's readdir() sees them. */
function listUnsorted(dir: string): string[] {
  const names: string[] = [];
  const d = fs.opendirSync(dir);
  try {
    for (let e = d.readSync(); e !== null; e = d.readSync()) names.push(e.name);
  } finally {
    d.closeSync();
  }
  return names;
}

/** set() flags for a cached result: see ObjectDatabase.resultOut() for which buffers may be recycled. */
function cacheFlags(top: boolean, transient: boolean): number {
  return (!top || transient ? RECYCLE : 0) | (top ? SPECULATIVE : 0);
}

/** Where locate() found an object: the database holding it, and the pack and offset unless loose. */
interface Location {
  db: ObjectDatabase;
  pack: StoredPack | null;
  offset: number;
}

/** A pack this database opened: it knows which database, whose name for the directory its messages use. */
interface OwnedPack extends StoredPack {
  readonly owner: ObjectDatabase;
  /** Set again at every scan: the .promisor file may be written after the pack was first opened. */
  promisor: boolean;
}

/** What a database and its alternates share. */
class Shared {
  /** Where git's `error:` lines about damaged storage go; null says nothing. */
  warn: ((text: string) => void) | null = null;
  /** Set when a lookup reached a pack that failed its checks (see locate()). */
  reachedUnusable = false;
  /** What was found wrong before a warn hook was set (alternates that do not resolve), said when one is. */
  readonly pending: string[] = [];
}

export class ObjectDatabase implements ObjectStore {
  /** The packs lookups can read, newest first (most recently used first while all are usable). */
  packs: StoredPack[] = [];
  /**
   * Every pack in the order lookups search them, those that failed their checks included; null
   * while there are none of those, when `packs` is the order (the common case, kept to one loop).
   */
  private order: (StoredPack | UnusablePack)[] | null = null;
  /** Per pack, the ids of entries that failed to read (git's mark_bad_packed_object()); null while none. */
  private bad: Map<StoredPack, Set<string>> | null = null;
  readonly loose: LooseObjects;
  readonly alternates: ObjectDatabase[] = [];
  readonly inflater = new Inflater();
  /**
   * This objects directory as git names it in messages: `.git/objects` from the top of a work tree
   * (the CLI sets it), an alternate's absolute path. By default the path it was opened with.
   */
  shownDir: string;
  private readonly header = new EntryHeader();
  private packDirStamp = -1;
  private deltaScratch = Buffer.allocUnsafe(64 * 1024);
  private resultScratch = Buffer.allocUnsafe(0);
  /** Set by locate(): where the last found object lives. */
  private foundPack: StoredPack | null = null;
  private foundPos = -1;
  /** Set by entryAt(): where the parsed entry's data starts. */
  private dataOffset = 0;
  private labelPack: StoredPack | null = null;
  private labelOffset = 0;
  private readonly entryLabel = () => `${this.labelPack!.file.path}: entry at offset ${this.labelOffset}`;
  /** limitPackWindows()'s bound, for packs found later; 0 for none. */
  windowLimit = 0;
  /** [entryOffset, dataOffset, size] triples of the chain being resolved; reused across reads. */
  private chain: number[] = [];
  private recoveryOps: RecoveryOps | null = null;

  constructor(readonly objectsDir: string, readonly cache = new DeltaBaseCache(), depth = 0, readonly trace = new ReadTrace(),
    private readonly shared = new Shared()) {
    this.shownDir = objectsDir;
    this.loose = new LooseObjects(objectsDir, this.inflater);
    this.scanPacks();
    if (depth < MAX_ALTERNATE_DEPTH) this.loadAlternates(depth);
  }

  /**
   * Where git's `error:` lines about damaged storage go (a pack that does not match its index, a
   * bad zlib stream): the CLI's stderr; null, the default, says nothing. Alternates share it.
   */
  get warn(): ((text: string) => void) | null {
    return this.shared.warn;
  }

  set warn(fn: ((text: string) => void) | null) {
    this.shared.warn = fn;
    if (fn) for (const text of this.shared.pending.splice(0)) fn(text);
  }

  /**
   * Reads objects/info/alternates as git 2.39's link_alt_odb_entry() does: a relative entry is
   * joined to the real path of this directory, and each is taken by its real path (which git
   * names it by); one that does not resolve, or is no directory, is left out with git's error,
   * said when a warn hook is set (git says it when it first looks an object up).
   */
  private loadAlternates(depth: number): void {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.objectsDir, 'info', 'alternates'), 'utf8');
    } catch {
      return;
    }
    let base: string | null = null;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('#')) continue;
      const joined = path.isAbsolute(line) ? line : `${base ??= realpathOr(this.objectsDir)}/${line}`;
      let dir: string;
      try {
        dir = fs.realpathSync(joined);
      } catch {
        this.shared.pending.push(`error: unable to normalize alternate object path: ${joined}\n`);
        continue;
      }
      if (!isDirectory(dir)) {
        this.shared.pending.push(`error: object directory ${dir} does not exist; check .git/objects/info/alternates\n`);
        continue;
      }
      const alt = new ObjectDatabase(dir, this.cache, depth + 1, this.trace, this.shared);
      alt.shownDir = dir;
      this.alternates.push(alt);
    }
  }

  /**
   * (Re)reads objects/pack, keeping packs already open; newest first by mtime, as git orders them.
   * git compares whole seconds, and puts each pack it lists in front of those listed before it
   * before sorting them stably, so packs of one second come in the reverse of the directory's own
   * order: so here, listing the directory as it is (fs.readdirSync sorts the names).
   */
  private scanPacks(): void {
    const dir = path.join(this.objectsDir, 'pack');
    let names: string[];
    try {
      this.packDirStamp = fs.statSync(dir).mtimeMs;
      names = listUnsorted(dir);
    } catch {
      this.packDirStamp = 0;
      return;
    }
    const have = new Map<string, StoredPack | UnusablePack>();
    for (const p of this.order ?? this.packs) have.set(p.name, p);
    const promisors = new Set(names.filter((n) => n.endsWith('.promisor')).map((n) => n.slice(0, -'.promisor'.length)));
    const found: { entry: StoredPack | UnusablePack; mtime: number }[] = [];
    for (let i = names.length - 1; i >= 0; i--) {
      const n = names[i]!;
      if (!n.startsWith('pack-') || !n.endsWith('.idx')) continue;
      const base = n.slice(0, -4);
      const packPath = path.join(dir, base + '.pack');
      let st: fs.Stats;
      try {
        st = fs.statSync(packPath);
      } catch {
        continue;
      }
      // git's add_packed_git() passes over a pack that is not a regular file.
      if (!st.isFile()) continue;
      // A pack that failed its checks is opened anew: a long-lived store (a server's) would
      // otherwise never see it repaired, where git, opening the repository per request, does.
      const known = have.get(base);
      if (known instanceof UnusablePack) known.index?.close();
      const promisor = promisors.has(base);
      const entry = known && !(known instanceof UnusablePack) ? known : this.openPack(path.join(dir, n), packPath, base, st.size, promisor);
      if (!entry) continue;
      if (!(entry instanceof UnusablePack)) (entry as OwnedPack).promisor = promisor;
      found.push({ entry, mtime: Math.floor(st.mtimeMs / 1000) });
    }
    found.sort((a, b) => b.mtime - a.mtime);
    const order = found.map(f => f.entry);
    this.packs = order.filter((p): p is StoredPack => !(p instanceof UnusablePack));
    this.order = this.packs.length === order.length ? null : order;
  }

  /**
   * Opens a pack listed a moment ago and checks it (PackFile): the pack, an UnusablePack when it
   * fails git's checks, or null when it is gone: a concurrent repack deletes the packs it replaced,
   * and as git's add_packed_git() the scan goes on without them (their objects are in the new pack).
   * Like git, nothing is said here: only a lookup that needs the pack says why it cannot be used.
   */
  private openPack(idxPath: string, packPath: string, name: string, size: number, promisor: boolean): StoredPack | UnusablePack | null {
    let index: PackIndex | null = null;
    try {
      index = PackIndex.load(idxPath);
      return this.ownPack(name, index, new PackFile(packPath, index, size), promisor);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        index?.close();
        return null;
      }
      if (!(e instanceof CorruptError) && !isFileError(e)) {
        index?.close();
        throw e;
      }
      return new UnusablePack(name, idxPath, packPath, size, index, problemOf(e));
    }
  }

  private ownPack(name: string, index: PackIndex, file: PackFile, promisor: boolean): OwnedPack {
    if (this.windowLimit > 0) file.limitWindows(this.windowLimit);
    return { number: ++packNumbers, index, file, name, owner: this, promisor };
  }

  /**
   * Tries again to open a pack that failed its checks, as git does each time a lookup needs it
   * (is_pack_valid()): the pack when it opens now, else null after saying why not.
   */
  private reopen(u: UnusablePack): StoredPack | null {
    try {
      u.index ??= PackIndex.load(u.idxPath);
      const promisor = fs.existsSync(u.packPath.replace(/\.pack$/, '.promisor'));
      const pack = this.ownPack(u.name, u.index, new PackFile(u.packPath, u.index, u.listedSize), promisor);
      this.packs.push(pack);
      return pack;
    } catch (e) {
      if (!(e instanceof CorruptError) && !isFileError(e)) throw e;
      u.problem = problemOf(e);
      const warn = this.shared.warn;
      if (warn && u.problem) warn(`error: ${u.problem.describe(this.shownFile(u.problem.file))}\n`);
      return null;
    }
  }

  /** A file of objects/pack as git names it: under shownDir. */
  private shownFile(file: string): string {
    return `${this.shownDir}/pack/${path.basename(file)}`;
  }

  /** The pack's .pack file as git names it in messages. */
  private shownPack(pack: StoredPack): string {
    const owner = (pack as Partial<OwnedPack>).owner;
    return owner ? owner.shownFile(pack.file.path) : pack.file.path;
  }

  private packsChanged(): boolean {
    try {
      return fs.statSync(path.join(this.objectsDir, 'pack')).mtimeMs !== this.packDirStamp;
    } catch {
      return this.packDirStamp !== 0;
    }
  }

  /** Finds a packed object in this database (not alternates); sets foundPack/foundPos. */
  private locatePacked(oid: Uint8Array, off: number): boolean {
    return this.order !== null ? this.locatePackedChecking(oid, off) : this.locatePackedFast(oid, off);
  }

  /**
   * locatePacked() while every pack is usable, the hot path of has() and read(): false at once
   * otherwise, leaving the search to locate(), so that a pack that failed its checks is reached
   * (and reported) as often as git reaches it, not once more.
   */
  private locatePackedFast(oid: Uint8Array, off: number): boolean {
    if (this.order !== null) return false;
    const packs = this.packs;
    for (let i = 0; i < packs.length; i++) {
      const p = packs[i]!;
      const pos = p.index.find(oid, off);
      if (pos >= 0) {
        if (this.bad !== null && this.isBad(p, oid, off)) continue;
        if (i > 0) { packs.splice(i, 1); packs.unshift(p); } // the next lookup likely hits it again
        this.foundPack = p;
        this.foundPos = pos;
        return true;
      }
    }
    return false;
  }

  /**
   * locatePacked() while some pack failed its checks: git keeps such a pack in its list, and a
   * lookup that finds the object in its index tries to open it again and says why it cannot; the
   * pack that answers moves to the front, so it comes before the failed one from then on.
   */
  private locatePackedChecking(oid: Uint8Array, off: number): boolean {
    const order = this.order!;
    for (let i = 0; i < order.length; i++) {
      let p = order[i]!;
      if (p instanceof UnusablePack) {
        if (p.index !== null && p.index.find(oid, off) < 0) continue;
        this.shared.reachedUnusable = true;
        const opened = this.reopen(p);
        if (!opened) continue;
        order[i] = p = opened;
        // The last such pack opened at last: back to the plain search.
        if (!order.some(e => e instanceof UnusablePack)) {
          this.order = null;
          this.packs = order as StoredPack[];
        }
      }
      const pos = p.index.find(oid, off);
      if (pos < 0 || (this.bad !== null && this.isBad(p, oid, off))) continue;
      if (i > 0) { order.splice(i, 1); order.unshift(p); }
      this.foundPack = p;
      this.foundPos = pos;
      return true;
    }
    return false;
  }

  private isBad(pack: StoredPack, oid: Uint8Array, off: number): boolean {
    return this.bad!.get(pack)?.has(toHex(oid, off)) ?? false;
  }

  /** Marks the copy of an object in `pack` bad: lookups pass over it from now on. */
  private markBad(pack: StoredPack, oid: Uint8Array, off: number): void {
    const owner = (pack as Partial<OwnedPack>).owner ?? this;
    owner.bad ??= new Map();
    let ids = owner.bad.get(pack);
    if (!ids) owner.bad.set(pack, ids = new Set());
    ids.add(toHex(oid, off));
  }

  /**
   * locatePacked() over this database (unless `ownSearched`: a fast miss just searched its packs)
   * and then its alternates; the database that has it, or null.
   */
  private locatePackedAnywhere(oid: Uint8Array, off: number, ownSearched = false): ObjectDatabase | null {
    if (!ownSearched && this.locatePacked(oid, off)) return this;
    for (const alt of this.alternates) {
      const hit = alt.locatePackedAnywhere(oid, off);
      if (hit) return hit;
    }
    return null;
  }

  /** The database, this one or an alternate, holding the object loose; null if none does. */
  private looseAnywhere(oid: Uint8Array, off: number): ObjectDatabase | null {
    if (this.loose.has(oid, off)) return this;
    for (const alt of this.alternates) {
      const hit = alt.looseAnywhere(oid, off);
      if (hit) return hit;
    }
    return null;
  }

  /** Scans again each pack directory (ours, the alternates') that changed; whether any did. */
  private refreshChanged(): boolean {
    let changed = false;
    if (this.packsChanged()) {
      this.refresh();
      changed = true;
    }
    for (const alt of this.alternates) if (alt.refreshChanged()) changed = true;
    return changed;
  }

  /**
   * Where an object is stored: in which database, and for packed ones which pack and offset. As
   * git: every pack (ours, then the alternates'), then loose objects (ours, then the alternates').
   */
  locate(oid: Uint8Array, off = 0): Location | null {
    return this.search(oid, off, false);
  }

  /**
   * locate() after locatePackedFast() missed. It searched our packs only while all were usable
   * (order null), and a usable pack that misses now misses again: the first round starts at the
   * alternates' packs. After a rescan, every pack is searched again.
   */
  private locateAfterFastMiss(oid: Uint8Array, off: number): Location | null {
    return this.search(oid, off, this.order === null);
  }

  private search(oid: Uint8Array, off: number, ownSearched: boolean): Location | null {
    const shared = this.shared;
    shared.reachedUnusable = false;
    for (let attempt = 0; ; attempt++) {
      const db = this.locatePackedAnywhere(oid, off, attempt === 0 && ownSearched);
      if (db) return { db, pack: db.foundPack, offset: db.foundPack!.index.offset(db.foundPos) };
      const loose = this.looseAnywhere(oid, off);
      if (loose) return { db: loose, pack: null, offset: 0 };
      if (attempt > 0) return null;
      // git scans the pack directories again after every miss, for an object packed meanwhile
      // (a repack moving loose objects into a new pack); a directory that did not change holds
      // no new pack, so only those that did are scanned. A pack that failed its checks is tried
      // again on the second search too, as git's is (and says why it fails again).
      const changed = this.refreshChanged();
      if (!changed && !shared.reachedUnusable) return null;
    }
  }

  /** Bounds each pack's window cache (PackFile.limitWindows), of packs open now and found later. */
  limitPackWindows(bytes: number): void {
    this.windowLimit = bytes;
    for (const p of this.packs) p.file.limitWindows(bytes);
    for (const a of this.alternates) a.limitPackWindows(bytes);
  }

  /**
   * Objects in the packs of this database and its alternates (duplicates counted each time), those
   * of a pack that failed its checks included: git sizes abbreviations by every index it can read.
   */
  packedObjectCount(): number {
    let n = 0;
    for (const p of this.order ?? this.packs) n += p.index?.count ?? 0;
    for (const a of this.alternates) n += a.packedObjectCount();
    return n;
  }

  has(oid: Uint8Array, off = 0): boolean {
    return this.locatePackedFast(oid, off) || this.locateAfterFastMiss(oid, off) !== null;
  }

  hasKnown(oid: Uint8Array, off = 0): boolean {
    return this.hasOwnKnown(oid, off) || this.alternates.some((a) => a.hasKnown(oid, off));
  }

  /** hasKnown() without the alternates: what this directory itself holds (a quarantine's own objects). */
  hasOwnKnown(oid: Uint8Array, off = 0): boolean {
    for (const p of this.packs) if (p.index.find(oid, off) >= 0 && !(this.bad !== null && this.isBad(p, oid, off))) return true;
    return this.loose.has(oid, off);
  }

  isEmpty(): boolean {
    if ((this.order ?? this.packs).length || this.alternates.length) return false;
    try {
      return !fs.readdirSync(this.objectsDir).some((n) => /^[0-9a-f]{2}$/.test(n));
    } catch {
      return true;
    }
  }

  allPacks(): StoredPack[] {
    const out = [...this.packs];
    for (const alt of this.alternates) out.push(...alt.allPacks());
    return out;
  }

  refresh(): void {
    this.scanPacks();
    this.loose.refresh();
  }

  forgetLooseListings(): void {
    this.loose.refresh();
    for (const alt of this.alternates) alt.forgetLooseListings();
  }

  /**
   * The names in objects/pack with their inodes, sizes and mtimes, and the alternates file's: the
   * directory's mtime alone misses a change within its granularity (a push followed at once by a
   * fetch), and a pack rewritten in place under its name would keep it.
   */
  storageStamp(): string {
    const parts: string[] = [];
    const add = (file: string, name: string) => {
      try {
        const st = fs.statSync(file);
        parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}`);
      } catch {
        parts.push(`${name}:-`);
      }
    };
    add(path.join(this.objectsDir, 'info', 'alternates'), 'alternates');
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(this.objectsDir, 'pack')).sort();
    } catch {
      // No pack directory: an empty listing, until one appears.
    }
    for (const n of names) {
      if (n.endsWith('.pack') || n.endsWith('.idx') || n.endsWith('.bitmap') || n.endsWith('.rev')) add(path.join(this.objectsDir, 'pack', n), n);
    }
    for (const alt of this.alternates) parts.push(alt.storageStamp());
    return parts.join('\n');
  }

  readInPieces(oid: Uint8Array, off: number, sink: (piece: Uint8Array) => void): ObjectTypeCode | null {
    const where = this.locate(oid, off);
    if (!where) return null;
    if (!where.pack) return where.db.loose.readInPieces(oid, off, sink);
    const h = this.header;
    this.entryAt(where.pack, where.offset);
    if (h.type >= OBJ_OFS_DELTA) return null;
    const type = h.type as ObjectTypeCode;
    inflateEntry(where.pack.file, where.offset, this.dataOffset, where.pack.file.dataEnd, h.size, this.inflater, sink);
    return type;
  }

  /**
   * Reads an object, or returns null if it does not exist anywhere. With `transient`, the data may
   * live in a buffer this database reuses: it is valid only until the next read (cat-file's batch
   * output copies each object out at once, and allocating millions of results cost more than
   * reading them).
   */
  read(oid: Uint8Array, off = 0, transient = false): RawObject | null {
    // The common case, a hit in one of our packs, allocates no location record.
    if (this.locatePackedFast(oid, off)) {
      const pack = this.foundPack!, offset = pack.index.offset(this.foundPos);
      try {
        return this.readPacked(pack, offset, transient);
      } catch (e) {
        return this.readAfterFailure(e, oid, off, pack, offset, transient);
      }
    }
    const where = this.locateAfterFastMiss(oid, off);
    if (!where) return null;
    if (!where.pack) {
      this.trace.pack = 0;
      this.trace.baseOffset = -1;
      const loose = where.db.loose.read(oid, off);
      if (loose) return loose;
      const packed = this.repackedLoose(where.db, oid, off);
      if (!packed) return null;
      where.pack = packed.pack;
      where.offset = packed.offset;
    }
    // Any pack is read here, an alternate's too: a REF_DELTA base it lacks is then looked up
    // through this database's whole search, as git looks it up in the whole repository.
    try {
      return this.readPacked(where.pack, where.offset, transient);
    } catch (e) {
      return this.readAfterFailure(e, oid, off, where.pack, where.offset, transient);
    }
  }

  /**
   * After a packed read threw `e`: for damage (a CorruptError), the entry is read again as git's
   * unpack_entry() goes on, taking a base it cannot read here from another copy; failing that, the
   * entry is marked bad and the object read from wherever else it is. With no copy left, git's
   * `packed object <id> (stored in <pack>) is corrupt`, caused by the first failure.
   */
  private readAfterFailure(e: unknown, oid: Uint8Array, off: number, pack: StoredPack, offset: number, transient: boolean): RawObject {
    if (!(e instanceof CorruptError)) throw e;
    const recovered = readRecovering(this.recovery(), pack, offset);
    this.trace.pack = 0;
    this.trace.baseOffset = -1;
    if (recovered) return recovered;
    return this.readOtherCopy(pack, oid, off, transient, e);
  }

  readPastBadCrc(pack: StoredPack, oid: Uint8Array, off = 0): RawObject {
    this.shared.warn?.(`error: bad packed object CRC for ${toHex(oid, off)}\n`);
    return this.readOtherCopy(pack, oid, off, false);
  }

  /** The object from a copy other than the one in `pack`, which is marked bad; none: it is corrupt. */
  private readOtherCopy(pack: StoredPack, oid: Uint8Array, off: number, transient: boolean, cause?: unknown): RawObject {
    this.markBad(pack, oid, off);
    const other = this.read(oid, off, transient);
    if (other) return other;
    throw new CorruptError('odb', `packed object ${toHex(oid, off)} (stored in ${this.shownPack(pack)}) is corrupt`, cause === undefined ? {} : { cause });
  }

  /** What readRecovering() needs of this database, made once. */
  private recovery(): RecoveryOps {
    return this.recoveryOps ??= {
      entry: (pack, offset) => {
        const buf = this.entryAt(pack, offset), h = this.header;
        return {
          type: h.type, size: h.size, dataOffset: this.dataOffset, baseOffset: h.type === OBJ_OFS_DELTA ? h.baseOffset : -1,
          baseId: h.type === OBJ_REF_DELTA ? Buffer.from(buf.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES)) : null,
        };
      },
      inflate: (pack, entryOffset, dataOffset, size) => {
        const out = Buffer.allocUnsafe(size + 1);
        this.inflateAt(pack, entryOffset, dataOffset, size, out);
        return out.subarray(0, size);
      },
      readElsewhere: (id) => {
        // git looks the base up without dying of a corrupt copy (flags 0): none is no base.
        try {
          return this.read(id);
        } catch (e) {
          if (e instanceof CorruptError) return null;
          throw e;
        }
      },
      markBad: (pack, id) => this.markBad(pack, id, 0),
      shown: (pack) => this.shownPack(pack),
      warn: (text) => this.shared.warn?.(text),
    };
  }

  /**
   * A loose object listed but gone when read was packed meanwhile (a repack ran `prune-packed`):
   * the listings are read again (`listedIn`'s, where it was listed, and every pack directory that
   * changed) and the new pack found, as git's reprepare_packed_git() does on a miss. Where it is
   * packed now, or null.
   */
  private repackedLoose(listedIn: ObjectDatabase, oid: Uint8Array, off: number): { pack: StoredPack; offset: number } | null {
    listedIn.refresh();
    this.refreshChanged();
    const db = this.locatePackedAnywhere(oid, off);
    return db ? { pack: db.foundPack!, offset: db.foundPack!.index.offset(db.foundPos) } : null;
  }

  /** Reads an object that must exist (and, if given, be of `type`); `transient` as for read(). */
  mustRead(oid: Uint8Array, off = 0, type?: ObjectTypeCode, transient = false): RawObject {
    const o = this.read(oid, off, transient);
    if (!o) throw new NotFoundError('odb', `object ${toHex(oid, off)} not found in ${this.objectsDir}`);
    if (type && o.type !== type) {
      throw new CorruptError('odb', `object ${toHex(oid, off)} is a ${typeName(o.type)}, not a ${typeName(type)}`);
    }
    return o;
  }

  /** Type and size without inflating the whole object (for cat-file -t/-s and --batch-check). */
  info(oid: Uint8Array, off = 0): ObjectInfo | null {
    if (this.locatePackedFast(oid, off)) {
      const pack = this.foundPack!;
      try {
        return this.infoPacked(pack, pack.index.offset(this.foundPos));
      } catch (e) {
        return this.infoAfterFailure(e, oid, off, pack);
      }
    }
    const where = this.locateAfterFastMiss(oid, off);
    if (!where) return null;
    if (!where.pack) {
      const h = where.db.loose.header(oid, off);
      if (h) return { type: h.type, size: h.size };
      const packed = this.repackedLoose(where.db, oid, off);
      if (!packed) return null;
      where.pack = packed.pack;
      where.offset = packed.offset;
    }
    try {
      return this.infoPacked(where.pack, where.offset);
    } catch (e) {
      return this.infoAfterFailure(e, oid, off, where.pack);
    }
  }

  /**
   * After infoPacked() threw `e`: for damage, the entry is marked bad and the object's type and
   * size taken from another copy, as git's packed_object_info() failing does; with none, `e`.
   */
  private infoAfterFailure(e: unknown, oid: Uint8Array, off: number, pack: StoredPack): ObjectInfo {
    if (!(e instanceof CorruptError)) throw e;
    this.markBad(pack, oid, off);
    const other = this.info(oid, off);
    if (other) return other;
    throw e;
  }

  /**
   * Parses the entry header at `offset` into this.header; returns the buffer it was read from and
   * sets this.dataOffset to where the entry's zlib stream starts in the pack.
   */
  private entryAt(pack: StoredPack, offset: number): Buffer {
    const view = pack.file.read(offset, 64);
    if (!this.header.parse(view.buf, view.pos, view.end, offset, 'odb', pack.file.path)) {
      throw new CorruptError('odb', `${pack.file.path}: entry header at offset ${offset} is truncated`);
    }
    this.dataOffset = offset + (this.header.dataPos - view.pos);
    // The size is only the header's claim, and readers allocate it before inflating: a few bytes
    // of a corrupt pack could ask for gigabytes (or more than a Buffer can be, a RangeError).
    const room = pack.file.dataEnd - this.dataOffset;
    if (beyondInflateRatio(this.header.size, room)) {
      throw new CorruptError('odb', `${pack.file.path}: entry at offset ${offset} declares ${this.header.size} bytes, more than the ${room} bytes left in the pack can hold`);
    }
    if (this.header.size >= buffer.constants.MAX_LENGTH) {
      throw new GitError('odb', 'too-large', `${pack.file.path}: entry at offset ${offset} is an object of ${this.header.size} bytes, more than tsgit can hold in memory`);
    }
    return view.buf;
  }

  /** Inflates the zlib stream at `dataOffset` of the pack into out[0..size). */
  private inflateAt(pack: StoredPack, entryOffset: number, dataOffset: number, size: number, out: Buffer): void {
    let want = deflateBound(size);
    // The error label is one closure reading these fields, not a new closure per entry.
    this.labelPack = pack;
    this.labelOffset = entryOffset;
    for (;;) {
      const view = pack.file.read(dataOffset, want);
      const n = this.inflater.tryInflateInto(view.buf, view.pos, view.end, out, 0, size, 'odb', this.entryLabel);
      if (n >= 0) return;
      if (dataOffset + (view.end - view.pos) >= pack.file.dataEnd) {
        throw new CorruptError('odb', `${pack.file.path}: entry at offset ${entryOffset}: zlib stream runs past the end of the pack`);
      }
      want = Math.max(want * 2, view.end - view.pos + 1);
    }
  }

  /** A reused buffer of at least `size` bytes for transient results. */
  private resultBuffer(size: number): Buffer {
    if (this.resultScratch.length < size) this.resultScratch = Buffer.allocUnsafeSlow(Math.max(size, this.resultScratch.length * 2));
    return this.resultScratch;
  }

  /**
   * The buffer for an object resolved at one step of a chain (`top`: the object asked for).
   * `keep`: it goes into the cache. Intermediate results are bases by definition; a tree at the top
   * of a chain is kept too, as a likely base: walks read the newest version of a directory first,
   * and older versions are deltas against it. A kept buffer nobody else holds comes from the cache,
   * which may recycle it; a transient top result goes into the reused result buffer.
   */
  private resultOut(size: number, top: boolean, keep: boolean, transient: boolean): Buffer {
    if (keep && (!top || transient)) return this.cache.take(size);
    return top && transient ? this.resultBuffer(size) : Buffer.allocUnsafe(size);
  }

  /**
   * Reads the object stored at `offset` of `pack`, resolving its delta chain. With `transient`,
   * the result is valid only until the next read (see read()).
   */
  readPacked(pack: StoredPack, offset: number, transient = false): RawObject {
    const chain = this.chain;
    chain.length = 0;
    let cur = offset;
    /** The top delta's base, when it is in this pack. */
    let topBase = -1;
    let base: RawObject | null = null;
    const h = this.header, cache = this.cache;
    for (;;) {
      // A cached object handed to a caller that keeps it must never be recycled by the cache.
      const hit = cache.get(pack.number, cur, !transient && cur === offset);
      if (hit) { base = { type: hit.type, data: hit.data }; break; }
      const buf = this.entryAt(pack, cur);
      const dataOffset = this.dataOffset;
      if (h.type < 5) {
        const top = chain.length === 0, keep = !top || h.type === OBJ_TREE;
        const out = this.resultOut(h.size + 1, top, keep, transient);
        this.inflateAt(pack, cur, dataOffset, h.size, out);
        base = { type: h.type as ObjectTypeCode, data: out.subarray(0, h.size) };
        if (keep) cache.set(pack.number, cur, base.type, base.data, cacheFlags(top, transient));
        break;
      }
      chain.push(cur, dataOffset, h.size);
      if (chain.length > MAX_CHAIN * 3) {
        throw new CorruptError('odb', `${pack.file.path}: delta chain from offset ${offset} is deeper than ${MAX_CHAIN} (a cycle?)`);
      }
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
        if (chain.length === 3) topBase = cur;
        continue;
      }
      // REF_DELTA: the base is normally in this pack; if not, anywhere in the repository.
      const baseOid = buf.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES);
      const pos = pack.index.find(baseOid);
      if (pos >= 0) {
        cur = pack.index.offset(pos);
        if (chain.length === 3) topBase = cur;
        continue;
      }
      // Reading another pack's object reuses this.chain: keep ours.
      const saved = chain.slice();
      base = this.read(baseOid);
      this.chain = chain;
      chain.length = 0;
      chain.push(...saved);
      if (!base) {
        throw new NotFoundError('odb', `${pack.file.path}: delta at offset ${chain[chain.length - 3]} needs base ${toHex(baseOid)}, which does not exist`);
      }
      break;
    }
    const trace = this.trace;
    trace.pack = pack.number;
    trace.offset = offset;
    trace.baseOffset = -1;
    for (let i = chain.length - 3; i >= 0; i -= 3) {
      const entryOffset = chain[i]!, dataOffset = chain[i + 1]!, size = chain[i + 2]!;
      if (this.deltaScratch.length <= size) this.deltaScratch = Buffer.allocUnsafe(Math.max(size + 1, this.deltaScratch.length * 2));
      this.inflateAt(pack, entryOffset, dataOffset, size, this.deltaScratch);
      const sizes = readDeltaSizes(this.deltaScratch, 0, size, 'odb', this.entryLabel);
      const top = i === 0, keep = !top || base!.type === OBJ_TREE;
      const out = this.resultOut(sizes.resultSize, top, keep, transient);
      const baseSize = base!.data.length;
      const data = applyDeltaWithSizes(base!.data, this.deltaScratch, sizes, size, 'odb', this.entryLabel, out, 0, cache.arena);
      base = { type: base!.type, data };
      if (keep) cache.set(pack.number, entryOffset, base.type, data, cacheFlags(top, transient));
      if (top && topBase >= 0) {
        trace.baseOffset = topBase;
        trace.baseSize = baseSize;
        trace.delta = this.deltaScratch;
        trace.deltaStart = sizes.pos;
        trace.deltaEnd = size;
      }
    }
    return base!;
  }

  /** Type and size of the object at `offset`, reading only entry headers and a delta's first bytes. */
  infoPacked(pack: StoredPack, offset: number): ObjectInfo {
    const h = this.header;
    this.entryAt(pack, offset);
    if (h.type < 5) return { type: h.type as ObjectTypeCode, size: h.size };
    const size = this.deltaResultSize(pack, offset);
    let cur = offset;
    for (let depth = 0; depth <= MAX_CHAIN; depth++) {
      const hit = this.cache.get(pack.number, cur, false);
      if (hit) return { type: hit.type, size };
      const buf = this.entryAt(pack, cur);
      if (h.type < 5) return { type: h.type as ObjectTypeCode, size };
      if (h.type === OBJ_OFS_DELTA) {
        cur = h.baseOffset;
        continue;
      }
      const baseOid = Buffer.from(buf.subarray(h.baseOidPos, h.baseOidPos + OID_BYTES));
      const pos = pack.index.find(baseOid);
      if (pos >= 0) {
        cur = pack.index.offset(pos);
        continue;
      }
      const info = this.info(baseOid);
      if (!info) throw new NotFoundError('odb', `${pack.file.path}: delta at offset ${cur} needs base ${toHex(baseOid)}, which does not exist`);
      return { type: info.type, size };
    }
    throw new CorruptError('odb', `${pack.file.path}: delta chain from offset ${offset} is deeper than ${MAX_CHAIN} (a cycle?)`);
  }

  private deltaResultSize(pack: StoredPack, offset: number): number {
    this.entryAt(pack, offset);
    const dataOffset = this.dataOffset;
    const head = this.deltaScratch;
    // A deflate block can open with a Huffman table of a hundred bytes or more before its first
    // output byte, so ask for more input until the two sizes come out or the stream is exhausted.
    for (let want = 256; ; want *= 4) {
      const view = pack.file.read(dataOffset, want);
      const n = this.inflater.inflatePrefix(view.buf, view.pos, view.end, head, 20, 'odb',
        () => `${pack.file.path}: delta at offset ${offset}`);
      const sizes = peekDeltaSizes(head, 0, n, 'odb', () => `${pack.file.path}: delta at offset ${offset}`);
      if (sizes) return sizes.resultSize;
      if (view.end - view.pos < want || dataOffset + want >= pack.file.dataEnd) {
        throw new CorruptError('odb', `${pack.file.path}: delta at offset ${offset} has a truncated header`);
      }
    }
  }

  /**
   * Calls `fn` with every object id in this database and its alternates, once each, in sorted
   * order. The id is only valid during the call.
   */
  forEachId(fn: (buf: Uint8Array, off: number) => void): void {
    const sources: { buf: Uint8Array; at: (i: number) => number; count: number }[] = [];
    const collect = (db: ObjectDatabase) => {
      // As git's for_each_packed_object(), every index that could be read, a failed pack's too.
      for (const p of db.order ?? db.packs) {
        const index = p.index;
        if (index) sources.push({ buf: index.buf, at: i => index.oidAt(i), count: index.count });
      }
      const loose = db.loose.allIds();
      if (loose.length) sources.push({ buf: loose, at: i => i * OID_BYTES, count: loose.length / OID_BYTES });
      for (const a of db.alternates) collect(a);
    };
    collect(this);
    const pos = new Array<number>(sources.length).fill(0);
    let lastBuf: Uint8Array | null = null, lastOff = 0;
    for (;;) {
      let best = -1, bestBuf: Uint8Array | null = null, bestOff = 0;
      for (let s = 0; s < sources.length; s++) {
        const src = sources[s]!;
        if (pos[s]! >= src.count) continue;
        const o = src.at(pos[s]!);
        if (best < 0 || compareOid(src.buf, o, bestBuf!, bestOff) < 0) {
          best = s; bestBuf = src.buf; bestOff = o;
        }
      }
      if (best < 0) return;
      pos[best] = pos[best]! + 1;
      if (lastBuf && compareOid(lastBuf, lastOff, bestBuf!, bestOff) === 0) continue;
      fn(bestBuf!, bestOff);
      lastBuf = bestBuf; lastOff = bestOff;
    }
  }

  /**
   * Calls `fn` with each id in this database and its alternates whose first `digits` hex digits (2
   * or more) are those of the id at `key`: in each pack's index by binary search, and among the
   * loose ids of the one fan-out directory. An id stored in two places comes twice.
   */
  forEachIdWithPrefix(key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void {
    // git's abbreviations read every index it can, a pack's that failed its checks too.
    for (const p of this.order ?? this.packs) p.index?.forEachWithPrefix(key, keyOff, digits, fn);
    this.loose.forEachWithPrefix(key, keyOff, digits, fn);
    for (const a of this.alternates) a.forEachIdWithPrefix(key, keyOff, digits, fn);
  }

  /** Writes a loose object; returns its id. */
  writeLoose(type: ObjectTypeCode, data: Uint8Array): Buffer {
    return this.loose.write(type, data);
  }

  close(): void {
    for (const p of this.order ?? this.packs) {
      if (!(p instanceof UnusablePack)) p.file.close();
      p.index?.close();
    }
    for (const a of this.alternates) a.close();
    this.packs = [];
    this.order = null;
  }
}
