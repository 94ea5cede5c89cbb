// A service worker: a long-lived process started by worker-pool.ts that serves one request at a
// time for any service of services.ts, framed (worker-frames.ts) over its stdin and stdout, with
// the repositories it served kept open (worker-repos.ts) so that the next request finds the .idx
// read, packed-refs parsed and the bitmap opened. The pool may name repositories to open before any
// request comes ('w' frame: each service's warm()), which a request then queues behind. A git://
// connection is handed over whole, through the IPC channel (worker-frames.ts: WorkerHandOff): the
// worker reads and answers the client's socket itself, so the server copies none of the pack. A
// push whose server has an authorize asks it about each ref update (worker-authorize.ts). It ends
// when its stdin does (the pool retiring it, or the server gone), after the request it serves.
import { once } from 'node:events';
import type net from 'node:net';
import { GitError } from '../core/errors.js';
import type { PushCommand } from '../protocol/index.js';
import { findService, SERVICES } from './services.js';
import { ServerAuthorize } from './worker-authorize.js';
import {
  FRAME_EXIT, FRAME_INPUT_END, FRAME_OUTPUT, FRAME_REQUEST, FRAME_STDERR, FRAME_VERDICT, FRAME_WARM,
  FrameDecoder, frame, frameHeader, WORKER_READY,
  type WorkerExit, type WorkerHandOff, type WorkerRequest, type WorkerVerdict, type WorkerWarm,
} from './worker-frames.js';
import { WarmRepositories } from './worker-repos.js';
import { restoreNodeCaCerts } from '../core/executable.js';

/** Client bytes queued beyond this stop reading stdin until the service catches up. */
const INPUT_HIGH_WATER = 1024 * 1024;

// The server ends its workers (their stdin, or SIGKILL): a Ctrl-C meant for the server, which the
// terminal sends its whole process group, or a service manager's SIGTERM to every process of the
// server, must not cut the requests the server is draining.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
// The pool started this process without $NODE_EXTRA_CA_CERTS, for a faster start; a push's hooks see it.
restoreNodeCaCerts();

const repos = new WarmRepositories();
let input: InputQueue | null = null;
let requests: Promise<void> = Promise.resolve();
const serverAuthorize = new ServerAuthorize(b => { void write(b); });

const decoder = new FrameDecoder('service worker stdin',
  (_type, bytes) => input?.push(bytes),
  (type, payload) => {
    if (type === FRAME_INPUT_END) input?.end();
    else if (type === FRAME_REQUEST) {
      const req = JSON.parse(payload.toString('utf8')) as WorkerRequest;
      const queue = input = new InputQueue(process.stdin);
      requests = requests.then(() => serve(req, queue, send));
    } else if (type === FRAME_WARM) {
      const { gitDirs, changedOnly } = JSON.parse(payload.toString('utf8')) as WorkerWarm;
      requests = requests.then(() => warm(changedOnly ? gitDirs.filter(d => repos.has(d)) : gitDirs));
    } else if (type === FRAME_VERDICT) serverAuthorize.answer(JSON.parse(payload.toString('utf8')) as WorkerVerdict);
    else throw new GitError('server', 'bad-frame', `service worker: unexpected frame '${String.fromCharCode(type)}'`);
  });

process.stdin.on('data', (chunk: Buffer) => decoder.push(chunk));
process.stdin.on('end', () => { void requests.then(() => repos.close()); });

// A handed-over connection. The channel must not keep the worker alive: stdin's end is its end.
process.channel?.unref();
process.on('message', (message: WorkerHandOff, socket: net.Socket | undefined) => {
  if (!socket) return;
  // A client may send EOF before reading the answer; only the end of the request ends the socket.
  socket.allowHalfOpen = true;
  socket.on('error', () => undefined);
  // Idle in both directions (a client that stops reading, too) for the request's timeout: dropped.
  const idle = { timedOut: false };
  if (message.request.timeout > 0) {
    socket.setTimeout(message.request.timeout * 1000, () => {
      idle.timedOut = true;
      socket.destroy();
    });
  }
  const queue = new InputQueue(socket);
  if (message.head) queue.push(Buffer.from(message.head, 'base64'));
  if (message.ended) queue.end();
  else {
    socket.on('data', (chunk: Buffer) => queue.push(chunk));
    socket.on('end', () => queue.end());
  }
  const gone = new AbortController();
  socket.on('close', () => gone.abort());
  requests = requests.then(() => serve(message.request, queue, chunk => writeTo(socket, chunk), gone.signal, idle))
    .then(() => { socket.end(); });
});
// Until now a socket sent to this process would have been held unread by Node, not half-open yet:
// a client's early EOF would have ended it. The pool hands over none before it hears this.
process.send?.(WORKER_READY);

async function serve(req: WorkerRequest, queue: InputQueue, output: (chunk: Buffer) => void | Promise<void>,
  signal?: AbortSignal, idle?: { timedOut: boolean }): Promise<void> {
  const exit: WorkerExit = { code: 0, sent: 0, counts: {}, rss: 0, reopened: [] };
  try {
    const service = findService(req.service);
    if (!service) throw new GitError('server', 'unknown-service', `no such service: ${req.service}`);
    const call = {
      repo: repos.get(req.gitDir),
      input: queue,
      output: (chunk: Buffer) => {
        exit.sent += chunk.length;
        return output(chunk);
      },
      protocol: req.protocol,
      statelessRpc: req.statelessRpc ?? false,
      timeout: req.timeout,
      limits: req.limits,
      signal,
      source: `${service.name} input`,
      counts: exit.counts,
      authorize: req.authorizeUpdates ? (update: PushCommand) => serverAuthorize.ask(update) : undefined,
    };
    await (req.advertiseRefs ? service.advertise(call) : service.handle(call));
  } catch (e) {
    exit.code = 128;
    // A client that went away is no failure to report; one cut off for being idle is a timeout.
    if (idle?.timedOut) {
      exit.timedOut = true;
      exit.error = `the client took nothing for ${req.timeout} seconds`;
    }
    else if (signal?.aborted) exit.gone = true;
    else {
      exit.error = e instanceof Error ? e.message : String(e);
      write(frame(FRAME_STDERR, Buffer.from(`fatal: ${exit.error}\n`)));
    }
  }
  // Client bytes after the request was answered belong to nobody: drop them.
  if (input === queue) input = null;
  queue.close();
  exit.rss = process.memoryUsage.rss();
  exit.reopened = repos.takeReopened();
  await write(frame(FRAME_EXIT, Buffer.from(JSON.stringify(exit))));
}

/**
 * Opens each repository as a request would find it, each service readying what it needs (its
 * warm()); one already open is opened anew only if it changed on disk. One that cannot be opened
 * is left for a request to report.
 */
async function warm(gitDirs: readonly string[]): Promise<void> {
  for (const gitDir of gitDirs) {
    try {
      const repo = repos.get(gitDir);
      for (const service of SERVICES) await service.warm?.(repo);
    } catch {
      // Not a repository (any more), or unreadable: a request for it says so.
    }
    // What this finds changed, the pool already knows of: nobody else needs telling.
    repos.takeReopened();
    // Between repositories, let a request that came meanwhile be read.
    await new Promise(resolve => setImmediate(resolve));
  }
}

function send(chunk: Buffer): void | Promise<void> {
  if (chunk.length < 16 * 1024) return write(frame(FRAME_OUTPUT, chunk));
  write(frameHeader(FRAME_OUTPUT, chunk.length));
  return write(chunk);
}

function write(b: Buffer): void | Promise<void> {
  if (process.stdout.write(b)) return;
  return once(process.stdout, 'drain').then(() => undefined);
}

/** Writes to a client's socket; a wait ends when it drains or closes (the signal then stops upload-pack). */
function writeTo(socket: net.Socket, b: Buffer): void | Promise<void> {
  if (socket.destroyed || socket.write(b)) return;
  return new Promise(resolve => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/**
 * The client's bytes of the current request, as the async iterable upload-pack reads, from stdin's
 * frames or a handed-over socket; its source is paused while too much is queued.
 */
class InputQueue implements AsyncIterable<Uint8Array> {
  private chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(private readonly source: NodeJS.ReadableStream) {}

  push(bytes: Buffer): void {
    if (this.closed) return;
    // The decoder hands out views of stdin's chunk; keep a copy only as long as it is queued.
    this.chunks.push(Buffer.from(bytes));
    this.queued += bytes.length;
    if (this.queued > INPUT_HIGH_WATER) this.source.pause();
    this.wake?.();
  }

  /** The request is over: what is queued is dropped and the source flows again. */
  close(): void {
    this.closed = true;
    this.chunks = [];
    this.queued = 0;
    this.source.resume();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk) {
        this.queued -= chunk.length;
        if (this.queued <= INPUT_HIGH_WATER) this.source.resume();
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>(resolve => { this.wake = resolve; });
      this.wake = null;
    }
  }
}
