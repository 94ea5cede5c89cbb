// The received pack goes straight into index-pack as it arrives (network, inflate and hash, and
// delta resolution overlap). Like git's fetch-pack, the pack is written with a .keep so that a
// concurrent gc cannot delete its objects before refs point at them; the caller removes the .keep
// once the refs are written. A partial clone's pack gets a .promisor file, which is what tells git
// that objects it lacks may be fetched later.
import type { Progress } from '../core/progress.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { transferFsck } from '../config/transfer-fsck.js';
import type { FsckOptions } from '../object/fsck.js';
import { fromHex, OID_BYTES } from '../core/oid.js';
import { indexPack } from '../packing/index-pack/index.js';
import type { Repository } from '../repository/repository.js';

export interface StorePackOptions {
  /** Complete a thin pack with bases from the repository. */
  readonly fixThin: boolean;
  /** Check every object with git's fsck rules, at these levels; null: no checks (see receivedFsck). */
  readonly fsck: FsckOptions | null;
  /**
   * With strict, also check that everything the objects point to is in the pack or the
   * repository. Off for partial fetches, whose packs point at objects deliberately absent, and
   * for a pack that stops at a shallow remote's boundary: those are walked once the pack is in
   * (client/connected.ts).
   */
  readonly connectivity: boolean;
  /**
   * With connectivity, for a shallow transfer: the shallow file it leaves, whose commits' parents
   * are absent on purpose and not looked for (git's index-pack --shallow-file).
   */
  readonly shallow?: readonly string[];
  /** Meters for "Receiving objects" / "Resolving deltas". */
  readonly progress?: Progress;
  /**
   * For a pack from a promisor remote: its .promisor file, which lists `refs` (the refs the pack
   * was fetched for) when the pack has at least `listFrom` objects and is empty otherwise, as
   * git's: fetch-pack lists them for a pack it keeps (a clone's always, a fetch's from
   * fetchKeepsFrom objects up), and index-pack --promisor leaves the file empty.
   */
  readonly promisor?: { readonly refs: readonly { name: string; oid: string }[]; readonly listFrom: number };
  /** Stops index-pack promptly, even while it resolves deltas. */
  readonly signal?: AbortSignal;
  /**
   * Runs as soon as index-pack is done, when its tables have just become garbage and before the
   * object database reads the new pack's index (see CloneOptions.onPackStored).
   */
  readonly onIndexed?: () => void;
}

/**
 * What is left of the pack once stored. It holds nothing of index-pack's tables, so that their
 * memory is free again before checkout starts.
 */
export interface PackStored {
  readonly objects: number;
  /** pack-<checksum>, as the object database names it. */
  readonly name: string;
  /**
   * A ref value in this pack needs no walk (git's self_contained_and_connected): index-pack
   * checked that the pack is closed (`connectivity` with fsck on). With fsck off, index-pack
   * checks no reference (it checks them only along with the objects); a whole pack is then
   * trusted all the same, where walking it would cost a full clone a rev-list of everything,
   * and a shallow one is walked, as git walks it.
   */
  readonly closed: boolean;
  /** Removes the .keep (call after the refs point at the pack's objects). */
  unlock(): void;
}

/**
 * How a fetch or clone checks what it receives: the library caller's `strict` when given (true:
 * git's --strict at its default levels), else fetch.fsckObjects / transfer.fsckObjects and the
 * fetch.fsck.* settings, with checks on when neither switch is set.
 */
export function receivedFsck(config: Config, gitDir: string, strict: boolean | undefined): FsckOptions | null {
  if (strict !== undefined) return strict ? { strict: true } : null;
  return transferFsck(config, 'fetch', gitDir);
}

/**
 * From how many objects git 2.39's fetch keeps a pack rather than unpacking it: fetch-pack's
 * unpack_limit, where transfer.unpackLimit wins over fetch.unpackLimit (a negative one is unset);
 * 0 keeps none.
 */
export function fetchKeepsFrom(config: Config): number {
  const set = (section: string) => {
    const n = config.getInt(section, null, 'unpacklimit');
    return n !== undefined && n >= 0 ? n : undefined;
  };
  const limit = set('transfer') ?? set('fetch') ?? 100;
  return limit > 0 ? limit : Infinity;
}

export async function storePack(repo: Repository, pack: AsyncIterable<Uint8Array>, options: StorePackOptions): Promise<PackStored> {
  const { objects, packPath, keepCreated, keepPath } = await receive(repo, pack, options);
  options.onIndexed?.();
  if (options.promisor) {
    const listed = objects >= options.promisor.listFrom ? options.promisor.refs : [];
    fs.writeFileSync(packPath.replace(/\.pack$/, '.promisor'), listed.map((r) => `${r.oid} ${r.name}\n`).join(''));
  }
  // The pack directory changed under the open repository: let it see the new pack.
  repo.odb.refresh();
  const keep = keepCreated ? keepPath : null;
  return {
    objects,
    name: path.basename(packPath, '.pack'),
    closed: options.connectivity && (options.fsck !== null || !options.shallow?.length),
    unlock: () => {
      if (keep) fs.rmSync(keep, { force: true });
    },
  };
}

/**
 * index-pack, keeping only what storePack needs of its result. A function of its own, because an
 * async function may keep the value it awaited (and with it the tables) reachable until it
 * returns: a collection in storePack right after `await indexPack(...)` freed nothing.
 */
async function receive(repo: Repository, pack: AsyncIterable<Uint8Array>, options: StorePackOptions):
  Promise<{ objects: number; packPath: string; keepCreated: boolean; keepPath: string | null }> {
  const { objects, packPath, keepCreated, keepPath } = await indexPack(repo.odb, pack, {
    fixThin: options.fixThin,
    strict: options.fsck,
    connectivity: options.connectivity,
    ...(options.shallow?.length ? { shallow: idsOf(options.shallow) } : {}),
    // git's fetch-pack .keep text.
    keep: `fetch-pack ${process.pid} on ${os.hostname()}`,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { objects, packPath, keepCreated, keepPath };
}

/** Hex ids as index-pack takes them: back to back. */
function idsOf(hex: readonly string[]): Uint8Array {
  const out = new Uint8Array(hex.length * OID_BYTES);
  hex.forEach((oid, i) => out.set(fromHex(oid)!, i * OID_BYTES));
  return out;
}
