// The main thread's handle on the tree-reading worker (see tree-stream.ts for the design):
// started before the commit walk so its start-up (loading the pack index) overlaps that walk.
import { MessageChannel, type Worker } from 'node:worker_threads';
import type { ObjectDatabase } from '../odb/database.js';
import { startRingWorker, sharedIndexes } from './ring-worker.js';
import { RootSender, TreeRing, TreeRingReader } from './tree-stream.js';

/** Room for a few hundred trees: the main thread lists them about as fast as they come. */
const RING_BYTES = 2 * 1024 * 1024;

export class TreeReadAhead {
  readonly reader: TreeRingReader;
  private readonly roots: RootSender;
  private readonly worker: Worker;

  constructor(odb: ObjectDatabase) {
    const ring = TreeRing.create(RING_BYTES);
    const { port1, port2 } = new MessageChannel();
    this.worker = startRingWorker('tree-walk', ring, {
      objectsDir: odb.objectsDir, indexes: sharedIndexes(odb.allPacks()), port: port2,
      // The worker's reads are the walk's: it keeps the same bounds on bases and pack windows.
      cacheLimit: odb.cache.bytesLimit, windowLimit: odb.windowLimit,
    }, [port2]);
    this.roots = new RootSender(port1, ring);
    this.reader = new TreeRingReader(ring, () => this.roots.flush());
  }

  /** The next commit's root tree, in the order the walk will list them. */
  root(ids: Uint8Array, off: number): void {
    this.roots.add(ids, off);
  }

  endRoots(): void {
    this.roots.end();
  }

  close(): void {
    void this.worker.terminate();
  }
}

