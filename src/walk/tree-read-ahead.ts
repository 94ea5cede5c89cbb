// The main thread's handle on the tree-reading worker (see tree-stream.ts for the design):
// started before the commit walk so its start-up (loading the pack index) overlaps that walk.
import { MessageChannel, Worker } from 'node:worker_threads';
import type { ObjectDatabase } from '../odb/database.js';
import { EXITED, RootSender, TreeRing, TreeRingReader, WRITE } from './tree-stream.js';
import { ownFile } from '../core/own-files.js';

/** Room for a few hundred trees: the main thread lists them about as fast as they come. */
const RING_BYTES = 2 * 1024 * 1024;

export class TreeReadAhead {
  readonly reader: TreeRingReader;
  private readonly roots: RootSender;
  private readonly worker: Worker;

  constructor(odb: ObjectDatabase) {
    const objectsDir = odb.objectsDir;
    const indexes: [string, Buffer][] = [];
    for (const p of odb.allPacks()) {
      // The worker reads the index's buffer without asking for pages: all must be in.
      p.index.loadAll();
      indexes.push([p.index.path, p.index.buf]);
    }
    const ring = TreeRing.create(RING_BYTES);
    const { port1, port2 } = new MessageChannel();
    // The main thread waits on the ring, not on events, so it could not hear of the worker's end:
    // a small bootstrap marks the ring when the worker exits, whatever the reason (a module that
    // fails to load included), and the reader then fails instead of waiting forever.
    const url = ownFile('walk/tree-walk-worker.js').href;
    this.worker = new Worker(`
      const { workerData } = require('node:worker_threads');
      const exited = () => {
        const c = new Int32Array(workerData.controlBuffer);
        Atomics.store(c, ${EXITED}, 1);
        Atomics.notify(c, ${WRITE});
      };
      process.on('exit', exited);
      import(${JSON.stringify(url)}).catch(e => { process.stderr.write(String(e && e.stack || e) + '\\n'); exited(); });
    `, {
      eval: true,
      // The worker's reads are the walk's: it keeps the same bounds on bases and pack windows.
      workerData: {
        objectsDir, indexes, ringBuffer: ring.ringBuffer, controlBuffer: ring.controlBuffer, port: port2,
        cacheLimit: odb.cache.bytesLimit, windowLimit: odb.windowLimit,
      },
      transferList: [port2],
      // Flags such as --input-type apply to the main script, not to this one.
      execArgv: process.execArgv.filter(a => !a.startsWith('--input-type')),
    });
    // The walk never waits on the event loop; the worker must not keep the process alive.
    this.worker.unref();
    this.worker.on('error', () => { /* the reader fails on the EXITED mark */ });
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

