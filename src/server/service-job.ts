// One request to a service, as the transport that took it sees it: queued until a worker is free
// ('start'), then running, then over ('close' with the worker's exit code, or the signal that
// ended its worker, once stdout has been read to its end). It is shaped like the ChildProcess it
// replaces: stdin for client bytes the transport streams, stdout for the service's answer (paused
// at its high-water mark, which pauses the worker's pipe, so a slow client slows its own worker
// and nothing else), stderr for diagnostics. A git:// request comes with its client's socket,
// which the worker answers directly; stdin and stdout then carry nothing. A job may carry the
// transport's verdict on ref updates (the HTTP handler's authorize), which its worker asks for.
import { EventEmitter } from 'node:events';
import type net from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { PushCommand } from '../protocol/index.js';
import type { WorkerExit, WorkerRequest } from './worker-frames.js';

/** A client's socket, and what was read from it past the request line, for a worker to serve. */
export interface ClientConnection {
  socket: net.Socket;
  head: Buffer;
  /** The client had finished sending (its EOF was read with `head`). */
  ended: boolean;
}

/** How the client's bytes reach the worker. */
export type JobInput =
  /** All of it, read before the job was queued (a buffered HTTP body; empty for info/refs). */
  | { kind: 'body'; body: Buffer }
  /** Written to stdin as it arrives (a streamed HTTP body). */
  | { kind: 'stream' }
  /** The client's connection itself, handed to the worker (git://). */
  | { kind: 'connection'; connection: ClientConnection };

/**
 * The transport's verdict on one ref update of the job's push: true allows it, false or a reason
 * refuses it. It settles with a verdict, never rejects: the transport turns a failure into one.
 */
export type JobAuthorize = (update: PushCommand) => Promise<boolean | string>;

/** How a request ended, for the access log. */
export type JobOutcome = 'ok' | 'error' | 'gone' | 'killed' | 'timeout' | 'closing';

/** What a job needs of the worker serving it (worker-process.ts). */
export interface JobWorker {
  readonly pid: number;
  input(bytes: Buffer, done: () => void): void;
  inputEnd(): void;
  pauseOutput(pause: boolean): void;
}

export class ServiceJob extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  startedAt = 0;
  /** What the worker reported at the end; null when it died or never ran the request. */
  exit: WorkerExit | null = null;
  outcome: JobOutcome = 'ok';
  private worker: JobWorker | null = null;
  /** What stdin wants done once a worker is attached. */
  private pending: (() => void) | null = null;
  private finished = false;
  private stopped = false;
  /** The start of what the worker wrote to stderr: the reason of a failure it did not report. */
  private stderrHead = '';

  constructor(readonly request: WorkerRequest, readonly input: JobInput,
    /** @internal Called when the caller gives the job up (stop()). */
    private readonly onStop: (job: ServiceJob, worker: JobWorker | null) => void,
    /** Answers the worker's questions about ref updates; without it, the worker asks none. */
    readonly authorize?: JobAuthorize) {
    super();
    this.stdout = new Readable({ read: () => this.worker?.pauseOutput(false) });
    this.stderr = new Readable({ read: () => undefined });
    this.stderr.on('data', (d: Buffer) => { if (this.stderrHead.length < 4096) this.stderrHead += d.toString('utf8'); });
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

  /** Why the request failed, as the worker said: the error it reported, else what it wrote to stderr. */
  get failure(): string {
    return this.exit?.error ?? this.stderrHead.trim();
  }

  /** Calls `fn` once a worker has taken the job: now, if one has. */
  onStart(fn: () => void): void {
    if (this.startedAt) fn();
    else this.once('start', fn);
  }

  /** The worker process serving this request; null while it waits for one. */
  get pid(): number | null {
    return this.worker?.pid ?? null;
  }

  /**
   * The client went away: out of the queue, or its worker killed (a new one is started). A
   * handed-over git:// connection is not stopped so: its worker sees the client go itself.
   */
  stop(): void {
    if (this.finished) return;
    this.stopped = true;
    const w = this.worker;
    this.finish(null, 'SIGKILL', 'gone');
    this.onStop(this, w);
  }

  /** @internal A worker took the request: it can be written to now. */
  attach(w: JobWorker): void {
    this.worker = w;
    this.startedAt = Date.now();
    this.emit('start', w.pid);
    const p = this.pending;
    this.pending = null;
    p?.();
  }

  /** @internal */
  output(bytes: Buffer): void {
    if (this.finished || this.stopped) return;
    if (!this.stdout.push(bytes)) this.worker?.pauseOutput(true);
  }

  /**
   * @internal The request is over: `code` from the worker (with its report), or the signal that
   * ended it, and why when the worker did not say.
   */
  finish(code: number | null, signal: NodeJS.Signals | null, outcome?: JobOutcome, why?: string, exit?: WorkerExit): void {
    if (this.finished) return;
    this.finished = true;
    this.worker = null;
    this.exit = exit ?? null;
    this.outcome = outcome ?? (exit?.gone ? 'gone' : exit?.timedOut ? 'timeout' : code === 0 ? 'ok' : code === null ? 'killed' : 'error');
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
