// The resolver threads: started during the first pass (once the pack header shows enough objects)
// so their ~30 ms start-up overlaps it, given the shared tables once, and ended when the second
// pass is over. The calling thread resolves tasks too, so N threads means N-1 workers. The first
// also takes the first pass's ring (stream-resolve.ts), and is replaced by a fresh one for the
// second pass: what it held would otherwise stay with its heap.
import { Worker } from 'node:worker_threads';
import { errorFromData, GitError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import type { ReferenceList } from './check.js';
import type { ResolveShared } from './resolve.js';
import type { SentReferences, WorkerReply } from './worker.js';
import type { StreamRequest, StreamResult } from './stream-resolve.js';
import { ownWorker } from '../../core/own-files.js';

export class ResolverThreads {
  private readonly workers: Worker[] = [];

  /** Starts workers until there are `count`. */
  spawn(count: number): void {
    while (this.workers.length < count) {
      // A small young generation: the resolver's garbage is short-lived (entry headers, small
      // objects), and a 16 MiB semi-space per thread would be held for nothing. 2 MiB against 4:
      // history's index-pack peaked 2.3 MiB lower, in the same time (three alternating runs).
      const w = new Worker(ownWorker('index-pack'), {
        resourceLimits: { maxYoungGenerationSizeMb: 2 },
      });
      // An idle worker must not keep the process alive if the caller forgets to close().
      w.unref();
      this.workers.push(w);
    }
  }

  /** Ends the first worker: what the first pass's stream resolver held goes back to the system. */
  async endFirst(): Promise<void> {
    await this.workers.shift()?.terminate();
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Has the first worker take what the first pass queues in the request's ring
   * (first-pass-ring.ts, stream-resolve.ts) until the ring is closed; the promise settles when it
   * has taken the last.
   */
  stream(request: StreamRequest): Promise<StreamResult> {
    return this.ask(this.workers[0]!, request).then((reply) => ({ resolved: reply.resolved ?? 0, refs: received(reply.refs) }));
  }

  /** Sends the shared state to every worker; the promise settles when all have finished. */
  start(shared: ResolveShared): Promise<ReferenceList[]> {
    return Promise.all(this.workers.map((w) => this.ask(w, shared).then((reply) => received(reply.refs))))
      .then((lists) => lists.filter((l): l is ReferenceList => l !== null));
  }

  /** Posts `message` to `w`, which holds the process open until it answers; settles with its reply. */
  private ask(w: Worker, message: ResolveShared | StreamRequest): Promise<WorkerReply> {
    return new Promise<WorkerReply>((resolve, reject) => {
      const onExit = (code: number) => reject(new GitError('pack', 'internal', `index-pack worker exited with code ${code}`));
      w.once('exit', onExit);
      w.once('error', reject);
      w.once('message', (reply: WorkerReply) => {
        w.off('exit', onExit);
        w.off('error', reject);
        if (reply.ok) resolve(reply);
        else reject(errorFromData(reply.error!));
      });
      w.ref();
      w.postMessage(message);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

function received(r: SentReferences | null | undefined): ReferenceList | null {
  return r ? {
    ids: new Uint8Array(r.ids, 0, r.count * OID_BYTES), types: new Uint8Array(r.types, 0, r.count), count: r.count,
    gitmodules: r.gitmodules,
  } : null;
}
