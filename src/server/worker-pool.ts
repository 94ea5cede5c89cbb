// Served requests run in a pool of long-lived upload-pack workers (worker-main.ts), one request per
// worker at a time. What one process per request gave is kept: a crash or OOM ends a worker, not
// the server; up to `size` workers (the CPU count) run at once; and a client that goes away has its
// worker killed, which frees everything it held (a fresh one is started when next needed). What a
// new process paid per request (node start-up, module loading, reading the .idx, parsing
// packed-refs, opening the bitmap) is paid once per worker and repository instead. Workers are
// replaced after `maxRequests` requests or once their RSS passes `maxRss`, so memory cannot creep.
// prestart() starts the workers before any request comes, each opening the `warm` repositories as
// it starts; a worker retired while nobody waits is replaced at once, its successor opening what it
// had served, so that the next request finds a warm worker rather than paying for a new one. A
// worker that finds a repository changed on disk (a repack) says so, and the idle workers holding
// it open it anew too, rather than keep deleted packs open until a request comes their way.
//
// A request is handed out as an UploadPackJob, shaped like the ChildProcess it replaces: stdin for
// the client's bytes, stdout for upload-pack's, stderr for its diagnostics, and 'close' with an
// exit code or signal once stdout has been read to its end. A request that comes with its client's
// socket (git://) has the socket handed to the worker, which answers it directly: nothing passes
// through this process, whose stdin and stdout then carry nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type net from 'node:net';
import os from 'node:os';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  FRAME_EXIT, FRAME_INPUT, FRAME_INPUT_END, FRAME_REQUEST, FRAME_STDERR, FRAME_WARM,
  FrameDecoder, frame, frameHeader, WORKER_READY, type WorkerExit, type WorkerHandOff, type WorkerRequest, type WorkerWarm,
} from './worker-frames.js';

const WORKER_MAIN = fileURLToPath(new URL('./worker-main.js', import.meta.url));
/**
 * How V8 runs in a worker, measured serving a fetch 100 commits behind (three alternating runs of
 * 16 fetches each time):
 * - garbage is collected on the worker's own thread: V8's helper threads (parallel scavenges,
 *   concurrent marking) cost as much CPU again as the collection itself (8 ms a fetch on helper
 *   threads against 18 on the main thread), and the pool's workers, one per CPU, are the
 *   parallelism: 25 ms of CPU a fetch against 31;
 * - no memory reducer: after a burst of work (opening and rehearsing a repository) it runs major
 *   collections in idle time for a minute or so, 15-25 ms each, to shrink a heap of ~10 MB when a
 *   worker's memory is its indexes and bitmap, off that heap: 28 ms a fetch against 37-60 in the
 *   minute after a start. A worker whose RSS grows is replaced (maxRss) instead.
 */
const WORKER_V8_FLAGS = ['--single-threaded-gc', '--no-memory-reducer'];

export interface WorkerPoolOptions {
  /** Most workers (and so requests served) at once; default: the number of CPUs. */
  size?: number;
  /** Requests a worker serves before it is replaced (default 500). */
  maxRequests?: number;
  /** A worker whose RSS is above this many bytes after a request is replaced (default 1 GiB). */
  maxRss?: number;
  /** Git directories every prestarted worker opens as it starts. */
  warm?: readonly string[];
}

/** A client's socket, and what was read from it past the request line, for a worker to serve. */
export interface ClientConnection {
  socket: net.Socket;
  head: Buffer;
}

/**
 * Most repositories a worker opens before any request: those under the root when a server starts
 * (serve.ts), or those its predecessor served most recently when it replaces one. Each holds its
 * .idx files and bitmap in memory.
 */
export const MAX_WARM_REPOSITORIES = 8;

export interface WorkerInfo {
  readonly pid: number;
  /** Requests it finished. */
  readonly served: number;
  readonly busy: boolean;
}

export interface WorkerPoolStats {
  /** Workers started since the pool was made. */
  readonly started: number;
  /** Requests waiting for a worker. */
  readonly queued: number;
  readonly workers: readonly WorkerInfo[];
}

export class WorkerPool {
  readonly size: number;
  private readonly maxRequests: number;
  private readonly maxRss: number;
  private readonly warm: readonly string[];
  private readonly workers = new Set<Worker>();
  private readonly queue: UploadPackJob[] = [];
  private started = 0;
  private closing = false;

  constructor(options: WorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? os.availableParallelism());
    this.maxRequests = Math.max(1, options.maxRequests ?? 500);
    this.maxRss = options.maxRss ?? 1024 * 1024 * 1024;
    this.warm = options.warm ?? [];
  }

  /** Starts workers up to `size` now, each opening the `warm` repositories while it waits. */
  prestart(): void {
    while (!this.closing && this.workers.size < this.size) this.startWorker(this.warm);
  }

  /**
   * Runs upload-pack for `req` as soon as a worker is free. With `connection`, the worker is given
   * the client's socket (paused; `head` holds the bytes read past the request line) and serves it
   * itself.
   */
  run(req: WorkerRequest, connection?: ClientConnection): UploadPackJob {
    const job = new UploadPackJob(req, this, connection ?? null);
    if (this.closing) {
      job.finish(null, 'SIGTERM', 'the server is closing');
      return job;
    }
    this.queue.push(job);
    this.pump();
    return job;
  }

  stats(): WorkerPoolStats {
    return {
      started: this.started,
      queued: this.queue.length,
      workers: [...this.workers].map(w => ({ pid: w.proc.pid ?? -1, served: w.served, busy: w.job !== null })),
    };
  }

  /** Set by close(): from then on every worker stays referenced until it exits. */
  get closed(): boolean {
    return this.closing;
  }

  /** Ends every worker (busy ones are killed) and refuses what is still queued. */
  async close(): Promise<void> {
    this.closing = true;
    for (const job of this.queue.splice(0)) job.finish(null, 'SIGTERM', 'the server is closing');
    const exits = [...this.workers].map(w => w.exited);
    for (const w of this.workers) {
      // Awaiting an exit needs the process referenced, which an idle worker is not.
      w.idle(false);
      if (w.job) w.proc.kill('SIGKILL');
      else w.proc.stdin!.end();
    }
    await Promise.all(exits);
  }

  /** @internal A job given up by its caller: out of the queue, or its worker killed. */
  cancel(job: UploadPackJob, worker: Worker | null): void {
    const q = this.queue.indexOf(job);
    if (q >= 0) this.queue.splice(q, 1);
    if (worker) {
      this.workers.delete(worker);
      worker.job = null;
      worker.proc.kill('SIGKILL');
    }
    this.pump();
  }

  private pump(): void {
    while (this.queue.length && !this.closing) {
      const job = this.queue[0]!;
      const worker = this.idleWorker(job.request.gitDir) ?? (this.workers.size < this.size ? this.startWorker() : null);
      if (!worker) return;
      this.queue.shift();
      worker.start(job);
    }
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
    return w;
  }

  /** @internal Called by a worker that answered its request. */
  released(w: Worker, exit: WorkerExit): void {
    // A repository it found repacked is let go by the idle workers that hold it open too.
    if (exit.reopened.length > 0) {
      for (const other of this.workers) if (other !== w && !other.job) other.warm(exit.reopened, true);
    }
    if (w.served >= this.maxRequests || exit.rss > this.maxRss || this.closing) {
      this.workers.delete(w);
      w.proc.stdin!.end();
      // Nobody waiting: the successor can open its predecessor's repositories before it is needed.
      if (!this.closing && this.queue.length === 0) this.startWorker([...new Set([...w.servedFrom, ...this.warm])].slice(0, MAX_WARM_REPOSITORIES));
    }
    this.pump();
  }

  /** @internal Called when a worker process is gone, whatever the reason. */
  gone(w: Worker): void {
    this.workers.delete(w);
    this.pump();
  }
}

/** One worker process and the job it serves, if any. */
class Worker {
  readonly proc: ChildProcess;
  readonly exited: Promise<void>;
  job: UploadPackJob | null = null;
  gitDir: string | null = null;
  /** Repositories it served, most recent first. */
  servedFrom: string[] = [];
  served = 0;
  lastUsed = 0;
  /** It listens for handed-over connections (a socket sent earlier would wait unread in Node). */
  private ready = false;
  private whenReady: (() => void) | null = null;

  constructor(private readonly pool: WorkerPool, warm: readonly string[]) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GIT_DIR;
    delete env.GIT_OBJECT_DIRECTORY;
    delete env.GIT_PROTOCOL;
    this.proc = spawn(process.execPath, [...WORKER_V8_FLAGS, WORKER_MAIN], { env, stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
    const decoder = new FrameDecoder(`upload-pack worker ${this.proc.pid}`,
      (_type, bytes) => this.job?.output(bytes),
      (type, payload) => {
        if (type === FRAME_STDERR) this.job?.stderr.push(payload);
        else if (type === FRAME_EXIT) this.answered(JSON.parse(payload.toString('utf8')) as WorkerExit);
      });
    this.proc.stdout!.on('data', (chunk: Buffer) => {
      try {
        decoder.push(chunk);
      } catch (e) {
        this.job?.stderr.push(Buffer.from(`${(e as Error).message}\n`));
        this.proc.kill('SIGKILL');
      }
    });
    this.proc.on('message', (message: unknown) => {
      if (message !== WORKER_READY) return;
      this.ready = true;
      const handOff = this.whenReady;
      this.whenReady = null;
      handOff?.();
    });
    // Whatever the worker prints itself (a crash's stack, a warning) goes with its request's diagnostics.
    this.proc.stderr!.on('data', (d: Buffer) => this.job?.stderr.push(d));
    this.proc.stdin!.on('error', () => undefined);
    let ended = false;
    const end = (code: number | null, signal: NodeJS.Signals | null, why?: string) => {
      if (ended) return;
      ended = true;
      this.job?.finish(code ?? null, signal, why);
      this.job = null;
      this.pool.gone(this);
    };
    this.exited = new Promise(resolve => {
      this.proc.on('exit', (code, signal) => { end(code, signal); resolve(); });
      this.proc.on('error', e => { end(1, null, `cannot start an upload-pack worker: ${e.message}`); resolve(); });
    });
    if (warm.length > 0) this.warm(warm, false);
    this.idle(true);
  }

  /** Has it open `gitDirs` (with `changedOnly`, those it has open that changed on disk). */
  warm(gitDirs: readonly string[], changedOnly: boolean): void {
    this.proc.stdin!.write(frame(FRAME_WARM, Buffer.from(JSON.stringify({ gitDirs: [...gitDirs], changedOnly } satisfies WorkerWarm))));
  }

  start(job: UploadPackJob): void {
    this.job = job;
    this.gitDir = job.request.gitDir;
    this.servedFrom = [this.gitDir, ...this.servedFrom.filter(d => d !== this.gitDir)].slice(0, MAX_WARM_REPOSITORIES);
    this.idle(false);
    job.attach(this);
    const connection = job.connection;
    if (!connection) {
      this.proc.stdin!.write(frame(FRAME_REQUEST, Buffer.from(JSON.stringify(job.request))));
      return;
    }
    if (this.ready) this.handOff(job, connection);
    else this.whenReady = () => this.handOff(job, connection);
  }

  private handOff(job: UploadPackJob, connection: ClientConnection): void {
    if (this.job !== job) return;
    const { socket } = connection;
    // What the paused socket has buffered goes with it (git's clients send nothing before the
    // server speaks, but others may).
    const head = [connection.head];
    for (let b: Buffer | null; (b = socket.read() as Buffer | null) !== null;) head.push(b);
    // Then this process must read nothing more (read() above may have asked for more): until the
    // worker has the socket and this process's handle is closed, Node would go on reading into a
    // handle whose bytes go nowhere, and a client's next command would be lost.
    const handle = (socket as net.Socket & { _handle?: { reading?: boolean; readStop?(): number } })._handle;
    if (handle?.readStop) {
      handle.reading = false;
      handle.readStop();
    }
    const handOff: WorkerHandOff = { request: job.request, head: Buffer.concat(head).toString('base64') };
    // Sent as no server's socket. Otherwise Node has the server track it through the worker, and a
    // server whose tracked workers have all exited never finishes closing (net.Server.close waits
    // for a reply from none of them). The server still counts the connection as open until the
    // job ends and its caller destroys the socket's empty shell.
    (socket as net.Socket & { server: unknown }).server = null;
    this.proc.send(handOff, socket, error => {
      // The worker is gone (its exit ends the job) or the socket is: either way nobody is served.
      if (error && this.job === job) job.stop();
    });
  }

  /** Sends client bytes; `done` runs once the pipe takes more. */
  input(bytes: Buffer, done: () => void): void {
    this.proc.stdin!.write(frameHeader(FRAME_INPUT, bytes.length));
    if (this.proc.stdin!.write(bytes)) done();
    else this.proc.stdin!.once('drain', done);
  }

  inputEnd(): void {
    this.proc.stdin!.write(frame(FRAME_INPUT_END));
  }

  pauseOutput(pause: boolean): void {
    if (pause) this.proc.stdout!.pause();
    else this.proc.stdout!.resume();
  }

  private answered(exit: WorkerExit): void {
    const job = this.job;
    this.job = null;
    this.served++;
    this.lastUsed = Date.now();
    // The next request must not find output paused by this one's reader.
    this.proc.stdout!.resume();
    this.idle(true);
    job?.finish(exit.code, null);
    this.pool.released(this, exit);
  }

  /**
   * An idle worker does not keep the server's process alive (nor does a busy one's absence). Once
   * the pool is closing it does: close() awaits its exit, and an answer still in the pipe when
   * close() began must not unref the process it waits for, or Node ends with close() unsettled.
   */
  idle(yes: boolean): void {
    if (yes && this.pool.closed) return;
    // The IPC channel is gone once the worker is.
    const handles = [this.proc, this.proc.channel, this.proc.stdin, this.proc.stdout, this.proc.stderr] as (ChildProcess | net.Socket | null | undefined)[];
    for (const h of handles) {
      if (yes) h?.unref();
      else h?.ref();
    }
  }
}

/** One request to upload-pack, as its caller sees it. */
export class UploadPackJob extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  private worker: Worker | null = null;
  /** What stdin wants done once a worker is attached. */
  private pending: (() => void) | null = null;
  private finished = false;
  private stopped = false;

  constructor(readonly request: WorkerRequest, private readonly pool: WorkerPool,
    /** @internal The client's socket, handed to the worker when one is free. */
    readonly connection: ClientConnection | null) {
    super();
    this.stdout = new Readable({ read: () => this.worker?.pauseOutput(false) });
    this.stderr = new Readable({ read: () => undefined });
    this.stdin = new Writable({
      write: (chunk: Buffer, _enc, done) => this.whenAttached(() => {
        if (this.finished || !this.worker) return done();
        this.worker.input(chunk, done);
      }),
      final: done => this.whenAttached(() => {
        if (!this.finished && this.worker) this.worker.inputEnd();
        done();
      }),
    });
  }

  /** The worker process serving this request; null while it waits for one. */
  get pid(): number | null {
    return this.worker?.proc.pid ?? null;
  }

  /**
   * The client went away: stop serving it (its worker is killed, a new one started when needed).
   * A handed-over git:// connection is not stopped so: its worker sees the client go itself.
   */
  stop(): void {
    if (this.finished) return;
    this.stopped = true;
    const w = this.worker;
    this.finish(null, 'SIGKILL');
    this.pool.cancel(this, w);
  }

  /** @internal */
  attach(w: Worker): void {
    this.worker = w;
    const p = this.pending;
    this.pending = null;
    p?.();
  }

  /** @internal */
  output(bytes: Buffer): void {
    if (this.finished || this.stopped) return;
    if (!this.stdout.push(bytes)) this.worker?.pauseOutput(true);
  }

  /** @internal The request is over: `code` from upload-pack, or the signal that ended its worker. */
  finish(code: number | null, signal: NodeJS.Signals | null, why?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.worker = null;
    const p = this.pending;
    this.pending = null;
    p?.();
    if (why) this.stderr.push(Buffer.from(`${why}\n`));
    this.stderr.push(null);
    this.stdin.destroy();
    const close = () => this.emit('close', code, signal);
    if (this.stopped) {
      // Nobody reads the rest: drop it rather than wait for a reader that is gone.
      this.stdout.destroy();
      process.nextTick(close);
      return;
    }
    this.stdout.push(null);
    if (this.stdout.readableEnded) process.nextTick(close);
    else this.stdout.once('end', close);
  }

  private whenAttached(fn: () => void): void {
    if (this.worker || this.finished) fn();
    else this.pending = fn;
  }
}
