// The worker behind CommitReadAhead: walks the commits of an unlimited walk from the starting
// commits it is given, in the order ObjectWalk shows them, and writes each commit's id with its
// root tree's id into the ring (tree-stream.ts). It reads the repository through an object database
// of its own, over the main thread's pack indexes in shared memory.
import { workerData } from 'node:worker_threads';
import { OID_BYTES } from '../core/oid.js';
import { ObjectDatabase } from '../odb/database.js';
import { DeltaBaseCache } from '../odb/delta-base-cache.js';
import { ObjectWalk } from './object-walk.js';
import { adoptSharedIndexes, type SharedIndexes } from './ring-worker.js';
import { COMMIT, END, FAILED, TreeRing, TreeRingWriter } from './tree-stream.js';

const { objectsDir, indexes, ringBuffer, controlBuffer, starts, shallow, windowLimit } = workerData as {
  objectsDir: string; indexes: SharedIndexes; ringBuffer: SharedArrayBuffer; controlBuffer: SharedArrayBuffer;
  starts: Uint8Array; shallow: Uint8Array; windowLimit: number;
};
adoptSharedIndexes(indexes);
/** Commits are rarely deltas: a small cache serves the few that are. */
const CACHE_BYTES = 1024 * 1024;
const writer = new TreeRingWriter(new TreeRing(ringBuffer, controlBuffer));
const none = new Uint8Array(0);
const ids = (all: Uint8Array) => Array.from({ length: all.length / OID_BYTES }, (_, i) => all.subarray(i * OID_BYTES, (i + 1) * OID_BYTES));

try {
  const odb = new ObjectDatabase(objectsDir, new DeltaBaseCache(CACHE_BYTES));
  odb.limitPackWindows(windowLimit);
  const walk = new ObjectWalk(odb);
  walk.setShallow(ids(shallow));
  for (const id of ids(starts)) walk.add(id, '');
  walk.streamCommits((c) => {
    const keys = walk.ids.keys, tree = walk.trees[c]! * OID_BYTES;
    writer.record(COMMIT, keys, c * OID_BYTES, keys.subarray(tree, tree + OID_BYTES), OID_BYTES);
  });
  writer.record(END, none, 0, none, 0);
} catch (e) {
  // The main thread throws this error where the walk on its own thread would have thrown it.
  writer.errorRecord(FAILED, none, 0, e);
}
writer.flush();
