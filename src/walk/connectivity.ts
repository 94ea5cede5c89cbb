// The walk of git's check_connected (connected.c): `rev-list --objects <tips> --not <existing>`,
// which fails on the first object the tips reach, short of what `existing` reaches, that is not
// here. Blobs are checked to exist as rev-list's finish_object does (the walk itself reads only
// commits, tags and trees). Receive-pack runs it on a push's new tips, fetch and clone on the refs
// they are about to write.
import { GitError } from '../core/errors.js';
import { toHex } from '../core/oid.js';
import { OBJ_BLOB } from '../object/type.js';
import type { ObjectStore } from '../odb/object-store.js';
import { ObjectWalk } from './object-walk.js';
import type { PromisorObjects } from './promisor-objects.js';

export interface ConnectivityOptions {
  /** Commits walked without their parents: the shallow file in effect (rev-list --shallow-file). */
  readonly shallow?: readonly Uint8Array[];
  /** rev-list --exclude-promisor-objects: what a promisor remote promised may be missing. */
  readonly promisor?: PromisorObjects;
}

/** null when everything is here, else what is missing. `existing` that are not here are passed by. */
export function connectivityGap(odb: ObjectStore, tips: readonly Uint8Array[], existing: readonly Uint8Array[],
  options: ConnectivityOptions = {}): string | null {
  const walk = new ObjectWalk(odb, 1024);
  const promisor = options.promisor ?? null;
  if (promisor) walk.excludePromisorObjects(promisor);
  if (options.shallow) walk.setShallow(options.shallow);
  for (const t of tips) walk.add(t, '');
  for (const e of existing) {
    if (odb.has(e)) walk.add(e, '', true);
  }
  try {
    let missing: string | null = null;
    walk.enumerate({
      object: (type, ids, off) => {
        if (missing !== null || type !== OBJ_BLOB || odb.has(ids, off) || promisor?.promised(ids, off)) return;
        missing = `missing blob ${toHex(ids, off)}`;
      },
    });
    return missing;
  } catch (e) {
    if (e instanceof GitError) return e.message;
    throw e;
  }
}
