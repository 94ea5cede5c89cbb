// The worker behind TreeReadAhead: walks trees from the root trees it is sent, in the order
// ObjectWalk.enumerate() visits them (depth-first, each tree once), and writes each new tree into
// the ring (tree-stream.ts). It reads the repository through an object database of its own.
import { workerData, type MessagePort } from 'node:worker_threads';
import { OID_BYTES } from '../core/oid.js';
import { OBJ_TREE } from '../object/type.js';
import { ObjectDatabase } from '../odb/database.js';
import { DeltaBaseCache } from '../odb/delta-base-cache.js';
import { depthBuffer, MAX_TREE_DEPTH, readObjectOfType } from './object-walk.js';
import { OidMap } from './oid-map.js';
import { TreeLayouts } from './tree-layouts.js';
import { adoptSharedIndexes, type SharedIndexes } from './ring-worker.js';
import { END, FAILED, receiveRoots, STOPPED, TREE, TreeRing, TreeRingWriter } from './tree-stream.js';

const { objectsDir, indexes, ringBuffer, controlBuffer, port, cacheLimit, windowLimit } = workerData as {
  objectsDir: string; indexes: SharedIndexes; ringBuffer: SharedArrayBuffer; controlBuffer: SharedArrayBuffer; port: MessagePort;
  cacheLimit: number; windowLimit: number;
};
// The main thread's pack indexes, in shared memory.
adoptSharedIndexes(indexes);
const ring = new TreeRing(ringBuffer, controlBuffer);
const writer = new TreeRingWriter(ring);
const none = new Uint8Array(0);
/** Thrown to unwind the walk after a record has told the reader why it stopped. */
const STOP = new Error('stopped');

class TreeWalker {
  private readonly odb = new ObjectDatabase(objectsDir, new DeltaBaseCache(cacheLimit));
  private readonly seen = new OidMap(1 << 16);
  private readonly layouts = new TreeLayouts();
  /** Each level's tree, kept while its subtrees are read (reads reuse the odb's buffer). */
  private readonly bufs: Buffer[] = [];

  constructor() {
    if (windowLimit > 0) this.odb.limitPackWindows(windowLimit);
  }

  root(ids: Uint8Array, off: number): void {
    if (this.seen.addOrGet(ids, off) < 0) this.tree(ids, off, 0);
    writer.record(END, ids, off, none, 0);
  }

  private tree(ids: Uint8Array, off: number, depth: number): void {
    if (depth > MAX_TREE_DEPTH) {
      // The reader throws when it reaches this record, as ObjectWalk does at this depth.
      writer.record(TREE, ids, off, none, 0);
      throw STOP;
    }
    let read: Buffer;
    try {
      read = readObjectOfType(this.odb, ids, off, OBJ_TREE).data;
    } catch (e) {
      writer.errorRecord(FAILED, ids, off, e);
      throw STOP;
    }
    // Entries a delta copied whole from a tree walked before need no work here or in the reader
    // (tree-layouts.ts): the record holds only the others, still a sequence of tree entries.
    const level = this.layouts.prepare(depth, read, this.odb.trace);
    const data = depthBuffer(this.bufs, depth, read.length);
    const end = level.skipCount > 0 ? level.compact(read, data) : (data.set(read), read.length);
    writer.record(TREE, ids, off, data, end);
    const starts = level.record ? level.starts : null;
    let pos = 0, n = 0;
    while (pos < end) {
      // Only subtrees matter here. A malformed entry stops the walk: the reader parses the same
      // tree with every check and reports it there.
      const entry = pos;
      if (starts !== null) starts[n++] = pos;
      let mode = 0, c = 0;
      while (pos < end && (c = data[pos]!) !== 0x20) {
        if (c < 0x30 || c > 0x37) throw this.stop();
        mode = mode * 8 + (c - 0x30);
        pos++;
      }
      if (pos >= end || pos === entry) throw this.stop();
      pos++;
      while (pos < end && data[pos] !== 0) pos++;
      pos++;
      if (pos + OID_BYTES > end) throw this.stop();
      const at = pos;
      pos += OID_BYTES;
      if ((mode & 0o170000) === 0o040000 && this.seen.addOrGet(data, at) < 0) this.tree(data, at, depth + 1);
    }
    if (starts !== null) level.count = n;
    this.layouts.finish(level);
  }

  private stop(): Error {
    writer.record(STOPPED, none, 0, none, 0);
    return STOP;
  }
}

try {
  const walker = new TreeWalker();
  for (let batch = receiveRoots(port, ring, writer); batch; batch = receiveRoots(port, ring, writer)) {
    for (let off = 0; off < batch.length; off += OID_BYTES) walker.root(batch, off);
  }
  writer.flush();
} catch (e) {
  if (e !== STOP) {
    // A bug, not bad input: the reader fails with it rather than print a partial walk.
    writer.errorRecord(STOPPED, none, 0, e);
  }
}
port.close();
