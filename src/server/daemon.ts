// git:// (gitprotocol-pack "Git Transport"), as git daemon serves it: the client's first pkt-line
// is "git-upload-pack <path>\0host=<host>\0" optionally followed by "\0version=2\0" and other extra
// parameters; the rest of the connection is upload-pack's. The first line is read with a size and
// time bound, the path resolved strictly inside the root, and refusals are an ERR line, as git
// daemon sends them. Then the connection itself goes to an upload-pack worker (worker-pool.ts),
// which answers it directly: the pack does not pass through this process.
import net from 'node:net';
import { formatErr, PktLineDecoder } from '../protocol/index.js';
import { daemonSegments, realRoot, resolveRepository } from './resolve-repository.js';
import { sanitizeProtocol } from './protocol-value.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

export interface DaemonOptions {
  root: string;
  exportAll?: boolean;
  /** Seconds a connection may stay silent (default 60). */
  idleTimeout?: number;
  /** Most connections served at once (default 64); more are refused with an ERR line. */
  maxConnections?: number;
  log?: (message: string) => void;
  /** Workers to serve requests with (shared; its owner closes it). */
  pool?: WorkerPool;
  /** Without `pool`: how the daemon's own pool, closed with the server, is sized and recycled. */
  workers?: WorkerPoolOptions;
}

export interface DaemonRequest {
  service: string;
  path: string;
  host: string | null;
  /** Extra parameters after the second NUL (version=2), joined with ':' as GIT_PROTOCOL. */
  protocol: string | undefined;
}

/** Parses the first pkt-line's payload; null when it is not a daemon request. */
export function parseDaemonRequest(payload: Buffer): DaemonRequest | null {
  const text = payload.toString('latin1');
  const parts = text.split('\0');
  const head = parts[0]!.replace(/\n$/, '');
  const sp = head.indexOf(' ');
  if (sp <= 0) return null;
  let host: string | null = null;
  const extra: string[] = [];
  let inExtra = false;
  for (const p of parts.slice(1)) {
    if (!inExtra && p.startsWith('host=')) host = p.slice(5);
    else if (p === '') inExtra = true;
    else if (inExtra) extra.push(p);
  }
  return { service: head.slice(0, sp), path: head.slice(sp + 1), host, protocol: sanitizeProtocol(extra.join(':')) };
}

export function createDaemon(options: DaemonOptions): net.Server {
  const root = realRoot(options.root);
  const idleMs = (options.idleTimeout ?? 60) * 1000;
  const log = options.log ?? (() => undefined);
  const pool = options.pool ?? new WorkerPool(options.workers);
  let open = 0;
  // Half-open allowed: a client may finish sending (EOF) before it has read the answer, and only
  // the worker that answers may end the connection.
  const server = net.createServer({ allowHalfOpen: true }, socket => {
    open++;
    socket.on('close', () => { open--; });
    socket.setTimeout(idleMs, () => socket.destroy());
    socket.on('error', () => undefined);
    const decoder = new PktLineDecoder('git:// request');
    const onData = (chunk: Buffer) => {
      let first;
      try {
        decoder.push(chunk);
        first = decoder.next();
      } catch (e) {
        return refuse(`${(e as Error).message}`);
      }
      if (!first) return;
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.pause();
      if (first.type !== 'data') return refuse('expected a git:// request line');
      const rest = decoder.takeRest();
      start(first.payload, rest);
    };
    const refuse = (message: string) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.end(formatErr(message));
    };
    // Gone before its request line was whole.
    const onEnd = () => socket.destroy();
    if (open > (options.maxConnections ?? 64)) return refuse('too many connections');
    socket.on('data', onData);
    socket.on('end', onEnd);

    function start(payload: Buffer, rest: Buffer): void {
      const req = parseDaemonRequest(payload);
      if (!req) return refuse('bad request line');
      if (req.service !== 'git-upload-pack') return refuse(`service not enabled: ${req.service}`);
      const repo = resolveRepository(root, daemonSegments(req.path), { exportAll: options.exportAll ?? false });
      if (typeof repo === 'string') return refuse(`access denied or repository not exported: ${req.path}`);
      const job = pool.run({ gitDir: repo.gitDir, timeout: idleMs / 1000, protocol: req.protocol }, { socket, head: rest });
      let stderr = '';
      job.stderr.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString('utf8'); });
      job.stdout.resume();
      // Until a worker takes the socket, a client that goes away is taken out of the queue.
      let stopped = false;
      socket.on('close', () => { if (!job.pid) { stopped = true; job.stop(); } });
      job.on('close', (code, signal) => {
        if (code !== 0 && !stopped && stderr) log(`${repo.name}: upload-pack ${signal ?? `exited ${code}`}: ${stderr.trim()}`);
        // The worker has the connection (this socket is an empty shell now) or nobody does.
        socket.destroy();
      });
    }
  });
  if (!options.pool) server.on('close', () => { void pool.close(); });
  return server;
}
