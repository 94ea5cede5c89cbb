// A checkout plan for index entries rather than a tree, and its writing: what changing the sparse
// patterns writes back into the work tree (entries that leave the skip-worktree bit behind), and
// what `checkout [<tree-ish>] -- <paths>` writes, through the same writers, conversions and
// filters as a checkout. Attributes come from the index, as git reads them in this direction.
import { isUtf8 } from 'node:buffer';
import { GitError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import type { Progress } from '../../core/progress.js';
import { MODE_GITLINK } from '../../object/tree.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { isAttributesPath } from '../attributes/file-name.js';
import type { FilterDriver } from '../filter/driver.js';
import { entryStage, type IndexEntry } from '../index-file/entry.js';
import { pathKey } from '../switch/tree-entries.js';
import { checkoutMessages, planConversions } from './conversions.js';
import { childFsPath, entryOid, sharedColumns, type CheckoutPlan, type PlanDir } from './plan.js';
import type { CheckoutSettings } from './settings.js';
import { indexEntry, newStatTable } from './stat-table.js';
import { updatingFiles } from './updating-files.js';
import { writePlannedFiles } from './write-files.js';
import type { FilterSession } from './write-filtered.js';

/**
 * The plan writing `entries` (sorted, stage 0) under `root`; `attributesOf` gives the id of a
 * directory's .gitattributes blob to read (null: none).
 */
export function planOfEntries(root: string, entries: readonly IndexEntry[], attributesOf: (dir: Uint8Array) => Uint8Array | null): CheckoutPlan {
  const count = entries.length;
  const pathBytes = entries.reduce((n, e) => n + e.path.length, 0);
  const columns = sharedColumns(count, pathBytes);
  const { paths, pathStart, nameStart, oids, modes, dirOf, rawName } = columns;
  const dirs: PlanDir[] = [{ path: new Uint8Array(0), fsPath: root, parent: -1, attributes: attributesOf(new Uint8Array(0)) }];
  const dirIndex = new Map<string, number>([['', 0]]);
  const dirFor = (dirPath: Uint8Array): number => {
    const key = Buffer.from(dirPath).toString('latin1');
    let d = dirIndex.get(key);
    if (d !== undefined) return d;
    const slash = dirPath.lastIndexOf(0x2f);
    const parent = dirFor(dirPath.subarray(0, Math.max(slash, 0)));
    const name = Buffer.from(dirPath.subarray(slash + 1));
    const fsPath = childFsPath(dirs[parent]!.fsPath, name, isUtf8(name));
    d = dirs.length;
    dirs.push({ path: Buffer.from(dirPath), fsPath, parent, attributes: attributesOf(dirPath) });
    dirIndex.set(key, d);
    return d;
  };
  let at = 0;
  entries.forEach((e, k) => {
    const slash = e.path.lastIndexOf(0x2f);
    pathStart[k] = at;
    nameStart[k] = at + slash + 1;
    paths.set(e.path, at);
    at += e.path.length;
    oids.set(e.oid.subarray(0, OID_BYTES), k * OID_BYTES);
    modes[k] = e.mode;
    dirOf[k] = dirFor(e.path.subarray(0, Math.max(slash, 0)));
    rawName[k] = isUtf8(e.path.subarray(slash + 1)) ? 0 : 1;
  });
  pathStart[count] = at;
  return {
    root, dirs, count, ...columns,
    cacheTree: { name: new Uint8Array(0), entryCount: -1, oid: null, children: [] },
  };
}

/**
 * The plan writing `entries` (in index order) with the attributes of the index `all`: the
 * .gitattributes of their directories and those above, each one `attributesRead` takes (cone
 * mode reads only those inside the cone).
 */
export function indexEntriesPlan(root: string, all: readonly IndexEntry[], entries: readonly IndexEntry[],
  attributesRead: (path: Uint8Array) => boolean = () => true): CheckoutPlan {
  const attributes = new Map<string, Uint8Array>();
  for (const e of all) {
    if (entryStage(e) !== 0 || e.mode === MODE_GITLINK) continue;
    if (!isAttributesPath(e.path) || !attributesRead(e.path)) continue;
    attributes.set(pathKey(e.path.subarray(0, Math.max(e.path.lastIndexOf(0x2f), 0))), e.oid);
  }
  return planOfEntries(root, entries, dir => attributes.get(pathKey(dir)) ?? null);
}

/**
 * The blobs (hex ids) writing `plan` reads: its files' and symlinks', and its .gitattributes, for
 * a partial clone to fetch first.
 */
export function planBlobs(plan: CheckoutPlan): string[] {
  const blobs = new Set<string>();
  for (let i = 0; i < plan.count; i++) if (plan.modes[i] !== MODE_GITLINK) blobs.add(toHex(entryOid(plan, i)));
  for (const d of plan.dirs) if (d.attributes) blobs.add(toHex(d.attributes));
  return [...blobs];
}

export interface EntriesWrite {
  settings: CheckoutSettings;
  drivers: ReadonlyMap<string, FilterDriver>;
  /** The filters' session: what they are told is checked out, if anything. */
  session: FilterSession;
  progress?: Progress;
}

/**
 * Writes `entries` as `plan` lays them out, replacing whatever is in their way; each takes its
 * file's stat data. Returns git's messages.
 */
export async function writeIndexEntries(odb: ObjectStore, plan: CheckoutPlan, entries: readonly IndexEntry[], ctx: EntriesWrite): Promise<string[]> {
  const conversions = planConversions(plan, odb, ctx.settings, ctx.drivers);
  const stats = newStatTable(plan.count);
  const filters = conversions?.filtered ? { filtered: conversions.filtered, session: ctx.session } : null;
  const meter = updatingFiles(ctx.progress);
  const { unfiltered } = await writePlannedFiles(odb, plan, stats, null, conversions?.codes ?? null,
    { ...ctx.settings, encodings: conversions?.encodings }, true, meter.report, filters);
  meter.stop();
  entries.forEach((e, k) => {
    const written = indexEntry(plan, stats, k);
    Object.assign(e, { ...written, flags: e.flags, extendedFlags: e.extendedFlags });
  });
  if (unfiltered) throw new GitError('worktree', 'checkout-incomplete', 'unable to checkout working tree');
  return checkoutMessages(plan, conversions);
}
