// Served requests run in a pool of long-lived service workers (worker-process.ts, worker-main.ts),
// one request per worker at a time. What one process per request gave is kept: a crash or OOM ends
// a worker, not the server (its client gets an error, and a successor is started at once); up to
// `size` workers (the CPU count) run at once; and a client that goes away has its worker killed,
// which frees everything it held. What a new process paid per request (node start-up, module
// loading, reading the .idx, parsing packed-refs, opening the bitmap) is paid once per worker and
// repository instead. Workers are replaced after `maxRequests` requests or once their RSS passes
// `maxRss`, so memory cannot creep. prestart() starts the workers before any request comes, each
// opening the `warm` repositories as it starts; a worker retired while nobody waits is replaced at
// once, its successor opening what it had served. A worker that finds a repository changed on disk
// (a repack) says so, and the idle workers holding it open it anew too, rather than keep deleted
// packs open until a request comes their way.
//
// Requests beyond the workers wait in one FIFO queue, bounded by count (`maxQueued`) and by the
// bytes held for requests no worker has yet (`maxQueuedBytes`: buffered HTTP bodies, git:// bytes
// read past the request line). A request past either bound is refused at once (reserve() gives
// null: the transport answers 503 or ERR), never left unanswered. Queued time is nobody's idle
// time: a job's timers start when a worker takes it ('start'). Once there, a request runs at most
// `maxRequestTime` seconds.
import os from 'node:os';
import { DEFAULT_TIMEOUTS } from './limits.js';
import { ServiceJob, type JobAuthorize, type JobInput, type JobWorker } from './service-job.js';
import type { WorkerExit, WorkerRequest } from './worker-frames.js';
import { MAX_WARM_REPOSITORIES, Worker, type WorkerOwner } from './worker-process.js';

export { MAX_WARM_REPOSITORIES } from './worker-process.js';

export interface WorkerPoolOptions {
  /** Most workers (and so requests served) at once; default: the number of CPUs. */
  size?: number;
  /** Requests a worker serves before it is replaced (default 500). */
  maxRequests?: number;
  /** A worker whose RSS is above this many bytes after a request is replaced (default 1 GiB). */
  maxRss?: number;
  /** Git directories every prestarted worker opens as it starts. */
  warm?: readonly string[];
  /** Most requests waiting for a worker (default 256); one more is refused. */
  maxQueued?: number;
  /** Most bytes held for requests no worker has taken yet (default 64 MiB); past it, refused. */
  maxQueuedBytes?: number;
  /** Seconds a request may run once a worker has it (default 3600); 0: no limit. */
  maxRequestTime?: number;
  /** Told of workers starting, ending and being replaced (the server's --verbose). */
  log?: (message: string) => void;
}

export interface WorkerInfo {
  readonly pid: number;
  /** Requests it finished. */
  readonly served: number;
  readonly busy: boolean;
}

export interface WorkerPoolStats {
  /** Workers started since the pool was made. */
  readonly started: number;
  /** Requests waiting for a worker (and admitted ones still being read). */
  readonly queued: number;
  /** Bytes held for them. */
  readonly queuedBytes: number;
  readonly workers: readonly WorkerInfo[];
}

export const DEFAULT_MAX_QUEUED = 256;
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * A place in the queue, taken before a request's bytes are read so that they are counted as they
 * come; given up by the job that uses it when a worker takes that job, or by release().
 */
export class Reservation {
  bytes = 0;
  private released = false;

  constructor(private readonly pool: WorkerPool) {}

  /** Counts `n` more bytes; false (nothing counted) when they would pass the pool's byte bound. */
  grow(n: number): boolean {
    if (this.released) return false;
    if (!this.pool.hold(n)) return false;
    this.bytes += n;
    return true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.pool.unhold(this.bytes);
    this.bytes = 0;
  }
}

export class WorkerPool implements WorkerOwner {
  readonly size: number;
  private readonly maxRequests: number;
  private readonly maxRss: number;
  private readonly warmDirs: readonly string[];
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly maxRequestMs: number;
  private readonly log: (message: string) => void;
  private readonly workers = new Set<Worker>();
  private readonly queue: { job: ServiceJob; reservation: Reservation }[] = [];
  private reserved = 0;
  private reservedBytes = 0;
  private started = 0;
  private closing = false;
  private prestarted = false;
  /** Mean time a worker takes per request (ms, moving average), for Retry-After. */
  private serviceMs = 100;
  private idleWaiters: (() => void)[] = [];

  constructor(options: WorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? os.availableParallelism());
    this.maxRequests = Math.max(1, options.maxRequests ?? 500);
    this.maxRss = options.maxRss ?? 1024 * 1024 * 1024;
    this.warmDirs = options.warm ?? [];
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.maxRequestMs = (options.maxRequestTime ?? DEFAULT_TIMEOUTS.request) * 1000;
    this.log = options.log ?? (() => undefined);
  }

  /** Starts workers up to `size` now, each opening the `warm` repositories while it waits. */
  prestart(): void {
    this.prestarted = true;
    while (!this.closing && this.workers.size < this.size) this.startWorker(this.warmDirs);
  }

  /** A place in the queue with `bytes` counted, or null when the queue is full (or closed). */
  reserve(bytes = 0): Reservation | null {
    if (this.closing || this.reserved >= this.maxQueued) return null;
    const r = new Reservation(this);
    this.reserved++;
    if (!r.grow(bytes)) {
      r.release();
      return null;
    }
    return r;
  }

  /**
   * Queues `req` for the first free worker, in its `reservation`'s place; null when the pool is
   * closing. A job handed a connection gives the worker the client's socket (paused;
   * `head` holds the bytes read past the request line), which it serves itself. With `authorize`,
   * the worker asks it about every ref update the request makes.
   */
  run(req: WorkerRequest, input: JobInput, reservation: Reservation, authorize?: JobAuthorize): ServiceJob | null {
    if (this.closing) {
      reservation.release();
      return null;
    }
    const job = new ServiceJob(req, input, (j, w) => this.cancel(j, w), authorize);
    this.queue.push({ job, reservation });
    this.pump();
    return job;
  }

  /** Seconds a refused client might wait before trying again: the queue's work over the workers. */
  retryAfter(): number {
    return Math.min(60, Math.max(1, Math.ceil((this.queue.length + 1) * this.serviceMs / this.size / 1000)));
  }

  stats(): WorkerPoolStats {
    return {
      started: this.started,
      queued: this.reserved,
      queuedBytes: this.reservedBytes,
      workers: [...this.workers].map(w => ({ pid: w.pid, served: w.served, busy: w.job !== null })),
    };
  }

  /** Set by close(): from then on every worker stays referenced until it exits. */
  get closed(): boolean {
    return this.closing;
  }

  /** Settles once nothing is queued or running (a draining server waits for it). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise(resolve => this.idleWaiters.push(resolve));
  }

  /** Ends every worker (busy ones are killed) and refuses what is still queued. */
  async close(): Promise<void> {
    this.closing = true;
    for (const { job, reservation } of this.queue.splice(0)) {
      reservation.release();
      job.finish(null, 'SIGTERM', 'closing', 'the server is closing');
    }
    const exits = [...this.workers].map(w => w.exited);
    for (const w of this.workers) {
      // Awaiting an exit needs the process referenced, which an idle worker is not.
      w.idle(false);
      w.end(w.job !== null);
    }
    await Promise.all(exits);
  }

  /** @internal Counts bytes held for a queued request; false past the bound. */
  hold(n: number): boolean {
    if (this.reservedBytes + n > this.maxQueuedBytes) return false;
    this.reservedBytes += n;
    return true;
  }

  /** @internal */
  unhold(bytes: number): void {
    this.reservedBytes -= bytes;
    this.reserved--;
    this.notifyIdle();
  }

  /** A job given up by its caller: out of the queue, or its worker killed. */
  private cancel(job: ServiceJob, worker: JobWorker | null): void {
    const q = this.queue.findIndex(e => e.job === job);
    if (q >= 0) this.queue.splice(q, 1)[0]!.reservation.release();
    // The pool's workers are the only JobWorkers.
    const w = worker as Worker | null;
    if (w && this.workers.has(w)) this.kill(w, 'its client went away');
    this.pump();
  }

  private pump(): void {
    while (this.queue.length && !this.closing) {
      const { job, reservation } = this.queue[0]!;
      const worker = this.idleWorker(job.request.gitDir) ?? (this.workers.size < this.size ? this.startWorker() : null);
      if (!worker) return;
      this.queue.shift();
      reservation.release();
      this.log(`worker ${worker.pid} serving ${job.request.service} ${job.request.gitDir}`);
      worker.start(job);
      this.limitTime(job, worker);
    }
    this.notifyIdle();
  }

  /** Kills the worker of a request that runs past maxRequestTime. */
  private limitTime(job: ServiceJob, worker: Worker): void {
    if (this.maxRequestMs <= 0) return;
    const timer = setTimeout(() => {
      if (worker.job !== job) return;
      job.finish(null, 'SIGKILL', 'timeout', `the request ran past ${this.maxRequestMs / 1000} seconds`);
      this.kill(worker, `its request ran past ${this.maxRequestMs / 1000} seconds`);
      this.pump();
    }, this.maxRequestMs);
    timer.unref();
    job.once('close', () => clearTimeout(timer));
  }

  /** Kills a busy worker (its job already let go of) and starts its successor. */
  private kill(w: Worker, why: string): void {
    w.job = null;
    this.workers.delete(w);
    w.end(true);
    this.log(`worker ${w.pid} killed: ${why}`);
    this.replace(w);
  }

  /** An idle worker, preferring one that last served the same repository, then the most recent. */
  private idleWorker(gitDir: string): Worker | null {
    let best: Worker | null = null;
    for (const w of this.workers) {
      if (w.job) continue;
      if (!best || (w.gitDir === gitDir) > (best.gitDir === gitDir) ||
        ((w.gitDir === gitDir) === (best.gitDir === gitDir) && w.lastUsed > best.lastUsed)) best = w;
    }
    return best;
  }

  private startWorker(warm: readonly string[] = []): Worker {
    this.started++;
    const w = new Worker(this, warm);
    this.workers.add(w);
    this.log(`worker ${w.pid} started`);
    return w;
  }

  /**
   * Starts the successor of a worker that is gone or going, opening what it served, so that the
   * next request finds a warm worker: when nobody waits (a waiting request starts its own) and
   * the pool keeps workers ready. One that died before it was ready is not replaced until needed:
   * a worker that cannot start must not be restarted in a loop.
   */
  private replace(w: Worker): void {
    if (this.closing || !w.ready || !this.prestarted || this.queue.length > 0 || this.workers.size >= this.size) return;
    this.startWorker(this.successorWarm(w));
  }

  /** What a successor of `w` opens before its first request: what `w` served, then the pool's list. */
  private successorWarm(w: Worker): string[] {
    return [...new Set([...w.servedFrom, ...this.warmDirs])].slice(0, MAX_WARM_REPOSITORIES);
  }

  /** @internal Called by a worker that answered its request. */
  released(w: Worker, exit: WorkerExit, ms: number): void {
    this.serviceMs = this.serviceMs * 0.9 + ms * 0.1;
    // A repository it found repacked is let go by the idle workers that hold it open too.
    if (exit.reopened.length > 0) {
      for (const other of this.workers) if (other !== w && !other.job) other.warm(exit.reopened, true);
    }
    if (w.served >= this.maxRequests || exit.rss > this.maxRss || this.closing) {
      this.workers.delete(w);
      w.end(false);
      if (!this.closing) this.log(`worker ${w.pid} retired after ${w.served} requests (${Math.round(exit.rss / 1048576)} MiB)`);
      // Nobody waiting: the successor can open its predecessor's repositories before it is needed.
      if (!this.closing && this.queue.length === 0) this.startWorker(this.successorWarm(w));
    }
    this.pump();
  }

  /** @internal Called when a worker process is gone, whatever the reason. */
  gone(w: Worker): void {
    if (!this.workers.delete(w)) return;
    if (!this.closing) {
      this.log(`worker ${w.pid} exited unexpectedly`);
      this.replace(w);
    }
    this.pump();
  }

  private isIdle(): boolean {
    return this.reserved === 0 && [...this.workers].every(w => !w.job);
  }

  private notifyIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
