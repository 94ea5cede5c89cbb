// One service worker process (worker-main.ts) as the pool sees it: its pipes and IPC channel, the
// job it serves, and the repositories it has open. Requests go to it framed over its stdin
// (worker-frames.ts); a git:// client's socket goes over the IPC channel. The ref updates it asks
// about are answered by its job's authorize.
import { spawn, type ChildProcess } from 'node:child_process';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ClientConnection, JobWorker, ServiceJob } from './service-job.js';
import { findService } from './services.js';
import {
  FRAME_AUTHORIZE, FRAME_EXIT, FRAME_INPUT, FRAME_INPUT_END, FRAME_REQUEST, FRAME_STDERR, FRAME_VERDICT, FRAME_WARM,
  FrameDecoder, frame, frameHeader, WORKER_READY,
  type WorkerAuthorize, type WorkerExit, type WorkerHandOff, type WorkerRequest, type WorkerVerdict, type WorkerWarm,
} from './worker-frames.js';
import { ownWorker } from '../core/own-files.js';
import { tsgitChildEnv } from '../core/executable.js';

const WORKER_MAIN = fileURLToPath(ownWorker('serve'));
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

/** Most repositories a worker remembers having served, for its successor to open. */
export const MAX_WARM_REPOSITORIES = 8;

/** What a worker tells its pool. */
export interface WorkerOwner {
  /** Set once the pool is closing: from then on every worker stays referenced until it exits. */
  readonly closed: boolean;
  /** It answered its job's request (which took `ms` once it had it) and can take another. */
  released(w: Worker, exit: WorkerExit, ms: number): void;
  /** Its process is gone, whatever the reason. */
  gone(w: Worker): void;
}

export class Worker implements JobWorker {
  readonly proc: ChildProcess;
  readonly exited: Promise<void>;
  job: ServiceJob | null = null;
  gitDir: string | null = null;
  /** The request the worker runs now, kept when the pool lets go of its job to kill it. */
  private running: WorkerRequest | null = null;
  /** Repositories it served, most recent first. */
  servedFrom: string[] = [];
  served = 0;
  lastUsed = 0;
  /** It listens for handed-over connections (a socket sent earlier would wait unread in Node). */
  ready = false;
  private whenReady: (() => void) | null = null;

  constructor(private readonly pool: WorkerOwner, warm: readonly string[]) {
    const env = tsgitChildEnv(process.env);
    delete env.GIT_DIR;
    delete env.GIT_OBJECT_DIRECTORY;
    delete env.GIT_PROTOCOL;
    this.proc = spawn(process.execPath, [...WORKER_V8_FLAGS, WORKER_MAIN], { env, stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
    const decoder = new FrameDecoder(`service worker ${this.proc.pid}`,
      (_type, bytes) => this.job?.output(bytes),
      (type, payload) => {
        if (type === FRAME_STDERR) this.job?.stderr.push(payload);
        else if (type === FRAME_EXIT) this.answered(JSON.parse(payload.toString('utf8')) as WorkerExit);
        else if (type === FRAME_AUTHORIZE) this.authorize(JSON.parse(payload.toString('utf8')) as WorkerAuthorize);
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
      // A worker ends only between requests: one that ends during a request died.
      this.job?.finish(code, signal, 'killed', why ?? `service worker ${this.proc.pid} ${signal ? `killed by ${signal}` : `exited with status ${code}`}`);
      const cut = this.running;
      if (cut && this.proc.pid !== undefined) findService(cut.service)?.abandoned?.(cut.gitDir, this.proc.pid);
      this.job = null;
      this.pool.gone(this);
    };
    this.exited = new Promise(resolve => {
      this.proc.on('exit', (code, signal) => { end(code, signal); resolve(); });
      this.proc.on('error', e => { end(1, null, `cannot start a service worker: ${e.message}`); resolve(); });
    });
    if (warm.length > 0) this.warm(warm, false);
    this.idle(true);
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** Has it open `gitDirs` (with `changedOnly`, those it has open that changed on disk). */
  warm(gitDirs: readonly string[], changedOnly: boolean): void {
    this.proc.stdin!.write(frame(FRAME_WARM, Buffer.from(JSON.stringify({ gitDirs: [...gitDirs], changedOnly } satisfies WorkerWarm))));
  }

  start(job: ServiceJob): void {
    this.job = job;
    this.gitDir = job.request.gitDir;
    this.running = job.request;
    this.servedFrom = [this.gitDir, ...this.servedFrom.filter(d => d !== this.gitDir)].slice(0, MAX_WARM_REPOSITORIES);
    this.idle(false);
    const input = job.input;
    if (input.kind === 'connection') {
      job.attach(this);
      if (this.ready) this.handOff(job, input.connection);
      else this.whenReady = () => this.handOff(job, input.connection);
      return;
    }
    // The request first: client bytes the job holds for a worker follow it once attached. The
    // worker asks about ref updates only if someone here answers.
    const request: WorkerRequest = { ...job.request, authorizeUpdates: job.authorize !== undefined };
    this.proc.stdin!.write(frame(FRAME_REQUEST, Buffer.from(JSON.stringify(request))));
    if (input.kind === 'body') {
      if (input.body.length > 0) {
        this.proc.stdin!.write(frameHeader(FRAME_INPUT, input.body.length));
        this.proc.stdin!.write(input.body);
      }
      this.inputEnd();
    }
    job.attach(this);
  }

  private handOff(job: ServiceJob, connection: ClientConnection): void {
    if (this.job !== job) return;
    const { socket } = connection;
    // What the paused socket has buffered goes with it.
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
    // The client's EOF may be read with those bytes (its 'end' not emitted yet): it goes along too.
    const ended = connection.ended || (socket as net.Socket & { _readableState?: { ended?: boolean } })._readableState?.ended === true;
    const handOff: WorkerHandOff = { request: job.request, head: Buffer.concat(head).toString('base64'), ended };
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

  /** Ends the process: at once (SIGKILL), or once it has finished what it was sent (its stdin ends). */
  end(now: boolean): void {
    if (now) this.proc.kill('SIGKILL');
    else this.proc.stdin!.end();
  }

  /**
   * Puts a ref update the worker asks about to its job's authorize (a worker asks only for a job
   * that has one: start() says so; anything else is refused). A verdict that comes once the job
   * is over (its client gone, the worker killed) has nobody to go to and is dropped.
   */
  private authorize({ id, update }: WorkerAuthorize): void {
    const job = this.job;
    void (job?.authorize?.(update) ?? Promise.resolve(false)).then(verdict => {
      if (this.job !== job) return;
      this.proc.stdin!.write(frame(FRAME_VERDICT, Buffer.from(JSON.stringify({ id, verdict } satisfies WorkerVerdict))));
    });
  }

  private answered(exit: WorkerExit): void {
    const job = this.job;
    this.job = null;
    this.running = null;
    this.served++;
    this.lastUsed = Date.now();
    // The next request must not find output paused by this one's reader.
    this.proc.stdout!.resume();
    this.idle(true);
    job?.finish(exit.code, null, undefined, undefined, exit);
    this.pool.released(this, exit, job ? this.lastUsed - job.startedAt : 0);
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
