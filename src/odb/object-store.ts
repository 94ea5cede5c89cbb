// What the layers above the object database need of an object store. The filesystem store
// (ObjectDatabase: packs, loose objects and alternates under objects/) is the one tsgit has; a
// store of packs elsewhere (an S3-compatible bucket, as JGit's DFS keeps them at Google) fits the
// same shape, since everything above reads through these calls and never lists a directory.
//
// Only code that opens a store, or shares one with threads and hooks by its directory (the
// repository, the tree-walk and checkout writer threads, receive-pack's quarantine, repack's
// install of new pack files), uses ObjectDatabase itself.
import type { Inflater } from '../core/zlib.js';
import type { ObjectTypeCode, RawObject } from '../object/type.js';
import type { PackIndex } from '../pack/idx/read.js';
import type { PackFile } from '../pack/pack-file.js';
import type { DeltaBaseCache } from './delta-base-cache.js';
import type { ReadTrace } from './read-trace.js';

/**
 * A pack as stored, for reading entries as they are: verbatim reuse of (possibly delta) entries,
 * bitmaps, which number objects by their position in one pack, and reads by offset.
 */
export interface StoredPack {
  /** Unique within the process: what caches key this pack's entries by. */
  readonly number: number;
  /** pack-<checksum>, the name of the pack without its extension. */
  readonly name: string;
  readonly index: PackIndex;
  readonly file: PackFile;
  /**
   * A .promisor file is beside it (git's pack_promisor): a promisor remote sent the pack, and the
   * objects it names may be missing here, for that remote to send when asked.
   */
  readonly promisor: boolean;
}

export interface ObjectInfo {
  type: ObjectTypeCode;
  size: number;
}

/** Where an object is stored: at `offset` of `pack`, or (pack null) on its own, unpacked. */
export interface ObjectLocation {
  readonly pack: StoredPack | null;
  readonly offset: number;
}

export interface ObjectStore {
  has(oid: Uint8Array, off?: number): boolean;
  /**
   * Existence among the objects the store already knows, without looking for new storage on a
   * miss (index-pack asks this of every object it receives).
   */
  hasKnown(oid: Uint8Array, off?: number): boolean;
  /** True when the store surely holds no object at all (a fresh repository). */
  isEmpty(): boolean;
  /**
   * The object, or null if it does not exist. With `transient`, the data may live in a buffer the
   * store reuses: valid only until the next read.
   */
  read(oid: Uint8Array, off?: number, transient?: boolean): RawObject | null;
  /** Like read(), but the object must exist (and, if `type` is given, be of that type). */
  mustRead(oid: Uint8Array, off?: number, type?: ObjectTypeCode, transient?: boolean): RawObject;
  /** Type and size, without inflating the object. */
  info(oid: Uint8Array, off?: number): ObjectInfo | null;
  /**
   * An object stored whole (loose, or a pack entry that is no delta) handed to `sink` in pieces as
   * it is inflated, for one too big to hold twice: its type; null when it is a delta (read() it
   * then) or does not exist.
   */
  readInPieces(oid: Uint8Array, off: number, sink: (piece: Uint8Array) => void): ObjectTypeCode | null;
  /** Every object id once, in sorted order; the id is valid only during the call. */
  forEachId(fn: (buf: Uint8Array, off: number) => void): void;
  /**
   * Every stored id whose first `digits` hex digits (2 or more) are those of the id at `key`, each
   * as many times as it is stored, found by search: what short names and abbreviations are made of.
   */
  forEachIdWithPrefix(key: Uint8Array, keyOff: number, digits: number, fn: (buf: Uint8Array, off: number) => void): void;
  /** Objects in all packs (duplicates counted each time): what abbreviations are sized by. */
  packedObjectCount(): number;

  /**
   * This store's own packs that can be read, in the order lookups search them; a pack that failed
   * git's checks when opened (one that does not match its index) is not among them.
   */
  readonly packs: readonly StoredPack[];
  /** Every pack lookups search, those of the stores behind this one (alternates) included. */
  allPacks(): StoredPack[];
  locate(oid: Uint8Array, off?: number): ObjectLocation | null;
  /**
   * The object, passing over its copy in `pack`, whose entry fails the CRC its .idx records (as
   * a pack writer found): git's unpack_entry, which checks CRCs while pack-objects writes a pack
   * file, says "bad packed object CRC for <id>", marks that copy bad and reads another; with none,
   * git's "packed object <id> (stored in <pack>) is corrupt".
   */
  readPastBadCrc(pack: StoredPack, oid: Uint8Array, off?: number): RawObject;
  /** The object stored at `offset` of `pack`, its delta chain resolved; `transient` as for read(). */
  readPacked(pack: StoredPack, offset: number, transient?: boolean): RawObject;
  infoPacked(pack: StoredPack, offset: number): ObjectInfo;
  /** How the object of the last read was stored (see ReadTrace). */
  readonly trace: ReadTrace;

  /** The delta bases kept between reads; a reader may bound or clear it for its access pattern. */
  readonly cache: DeltaBaseCache;
  readonly inflater: Inflater;
  /** Bounds the pack bytes kept in memory per pack, for a reader that passes through once. */
  limitPackWindows(bytes: number): void;

  /** Looks for storage written since the store was opened (new packs, new loose objects). */
  refresh(): void;
  /** Forgets what the store knows of its unpacked objects, which another process may have added. */
  forgetLooseListings(): void;
  /** Changes whenever the packs (or the stores behind this one) change: a key for derived state. */
  storageStamp(): string;

  writeLoose(type: ObjectTypeCode, data: Uint8Array): Buffer;
  close(): void;
}
