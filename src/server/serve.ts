// `tsgit serve`: one root served over smart HTTP and git:// at once, loopback by default, from one
// pool of workers and one count of connections per client address (transport/connection-limit.ts)
// for both transports. close() drains: it stops accepting, lets what was taken finish (queued
// requests too) for up to its grace period, then ends whatever is left.
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { isGitDirectory } from '../repository/discover.js';
import { ConnectionLimit, type TrackedConnection } from '../transport/connection-limit.js';
import { createHttpServer } from '../transport/http-accept.js';
import { closeServer, lingeringClose, listen, listenUnix } from '../transport/listen.js';
import type { AccessRecord } from './access-log.js';
import { createDaemon, DEFAULT_MAX_CONNECTIONS } from './daemon.js';
import { createGitHttpHandler, type HttpHandlerOptions } from './http.js';
import { DEFAULT_TIMEOUTS, type ServeTimeouts, type ServiceLimits } from './limits.js';
import { realRoot, resolveRepository } from './resolve-repository.js';
import type { DaemonServiceRule } from './service.js';
import { MAX_WARM_REPOSITORIES, WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

export interface ServeOptions {
  root: string;
  host?: string;
  /** HTTP port; 0 picks a free one. */
  port?: number;
  /** git:// port, 0 picks a free one, null serves no git://. */
  gitPort?: number | null;
  exportAll?: boolean;
  /** Request sizes and counts (limits.ts). */
  limits?: Partial<ServiceLimits>;
  /** Idle, init and total times, in seconds (limits.ts). */
  timeouts?: Partial<ServeTimeouts>;
  /** Most connections at once over both transports (git daemon's --max-connections; 0: no limit). */
  maxConnections?: number;
  /** git daemon's --enable/--disable, --allow-override/--forbid-override, by service name. */
  services?: Readonly<Record<string, DaemonServiceRule>>;
  /** Failures and the services' diagnostics. */
  log?: (message: string) => void;
  /** One line per request (access-log.ts). */
  accessLog?: (line: string, record: AccessRecord) => void;
  /** Connections refused or closed for room, workers started and replaced (--verbose). */
  verbose?: (message: string) => void;
  authorize?: HttpHandlerOptions['authorize'];
  /** The workers both transports share (default: as many as CPUs), and their queue's bounds. */
  workers?: WorkerPoolOptions;
  /**
   * A Unix socket (owner-only) on which `tsgit upload-pack` processes relay their requests to this
   * server (transport/serve-relay.ts): git:// requests naming absolute paths under the root.
   */
  socket?: string;
}

export interface RunningServer {
  readonly httpUrl: string;
  readonly gitUrl: string | null;
  /** The relay socket's path, when there is one. */
  readonly socket: string | null;
  /** The workers serving both transports. */
  readonly pool: WorkerPool;
  /** Requests taken and not answered yet, over both transports. */
  inFlight(): number;
  /**
   * Stops accepting, lets what was taken finish for up to `grace` seconds (default 0), then ends
   * the rest. A second call cuts the first one's grace short.
   */
  close(options?: { grace?: number }): Promise<void>;
}

export async function serve(options: ServeOptions): Promise<RunningServer> {
  const root = realRoot(options.root);
  const host = options.host ?? '127.0.0.1';
  const timeouts: ServeTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const verbose = options.verbose ?? (() => undefined);
  // The workers start with the server, each opening the root's repositories when there are few
  // (more would be memory spent on guesses): the first request finds a warm worker.
  const exportAll = options.exportAll ?? false;
  const listed = listRepositories(root, exportAll);
  const warm: string[] = [];
  if (listed.length <= MAX_WARM_REPOSITORIES) {
    // As a request names them, so that the worker's open repository is the one it will look up.
    for (const name of listed) {
      const r = resolveRepository(root, name.split('/'), { exportAll });
      if (typeof r !== 'string') warm.push(r.gitDir);
    }
  }
  const pool = new WorkerPool({ warm, maxRequestTime: timeouts.request, log: verbose, ...options.workers });
  const connections = new ConnectionLimit(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const tracked = new WeakMap<net.Socket, TrackedConnection>();
  const handler = createGitHttpHandler({
    root, exportAll, limits: options.limits, timeouts, log: options.log, accessLog: options.accessLog,
    authorize: options.authorize, pool, connectionOf: req => tracked.get(req.socket),
  });
  // A connection refused for room has its 503 already: a request it sends anyway is not served.
  const httpServer = createHttpServer((req, res) => { if (tracked.has(req.socket)) handler(req, res); }, { initTimeout: timeouts.init });
  httpServer.on('connection', (socket: net.Socket) => {
    const conn = connections.admit(socket);
    if (conn) {
      tracked.set(socket, conn);
      return;
    }
    verbose(`refused an HTTP connection from ${socket.remoteAddress}: ${connections.open} connections open`);
    refuseHttpConnection(socket, pool.retryAfter());
  });
  let daemon: net.Server | null = null;
  let relay: net.Server | null = null;
  let httpPort: number;
  let gitPort: number | null = null;
  const daemonOptions = {
    root, exportAll, limits: options.limits, timeouts, connections, services: options.services,
    log: options.log, accessLog: options.accessLog, pool,
  };
  try {
    httpPort = await listen(httpServer, host, options.port ?? 8080, 'smart HTTP');
    if (options.gitPort !== null) {
      daemon = createDaemon(daemonOptions);
      gitPort = await listen(daemon, host, options.gitPort ?? 9418, 'git://');
    }
    if (options.socket !== undefined) {
      relay = createDaemon({ ...daemonOptions, absolutePaths: true });
      await listenUnix(relay, options.socket, 'relayed requests');
    }
  } catch (e) {
    await Promise.all([closeServer(httpServer), daemon ? closeServer(daemon) : undefined, pool.close()]);
    throw e;
  }
  pool.prestart();
  const shown = host.includes(':') ? `[${host}]` : host;
  // Node removes the socket file when its server closes.
  const stopped = () => Promise.all([httpServer, daemon, relay].map(server => (server ? closeServer(server) : undefined)));
  let cutGrace: (() => void) | null = null;
  let closing: Promise<void> | null = null;
  return {
    httpUrl: `http://${shown}:${httpPort}`,
    gitUrl: gitPort === null ? null : `git://${shown}:${gitPort}`,
    socket: relay ? options.socket! : null,
    pool,
    inFlight: () => handler.inFlight + [...connections.connections()].filter(c => c.serving).length,
    close: ({ grace = 0 } = {}) => {
      cutGrace?.();
      if (closing) return closing;
      closing = (async () => {
        handler.drain();
        const drained = Promise.all([stopped(), pool.whenIdle()]);
        httpServer.closeIdleConnections();
        if (grace > 0) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([drained, new Promise<void>(resolve => {
            timer = setTimeout(resolve, grace * 1000);
            cutGrace = resolve;
          })]);
          // Drained before the grace ran out: its timer must not keep the process alive.
          clearTimeout(timer);
        }
        // What is left is cut: HTTP connections closed, busy workers (and their git:// clients) killed.
        httpServer.closeAllConnections();
        for (const c of connections.connections()) c.socket.destroy();
        await Promise.all([stopped(), pool.close()]);
      })();
      return closing;
    },
  };
}

/** An HTTP connection past the limit gets a 503 before it has sent anything, and is closed. */
function refuseHttpConnection(socket: net.Socket, retryAfter: number): void {
  const body = 'too many connections\n';
  socket.on('error', () => undefined);
  socket.write(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${retryAfter}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  lingeringClose(socket);
}

/** Repositories under `root` (two levels deep) a client could clone, as URL paths. */
export function listRepositories(root: string, exportAll: boolean): string[] {
  const found: string[] = [];
  const visit = (dir: string, rel: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const full = path.join(dir, e.name);
      const name = rel ? `${rel}/${e.name}` : e.name;
      const gitDir = isGitDirectory(full) ? full : isGitDirectory(path.join(full, '.git')) ? path.join(full, '.git') : null;
      if (gitDir) {
        if (exportAll || fs.existsSync(path.join(gitDir, 'git-daemon-export-ok'))) found.push(name);
      } else if (depth < 2) {
        visit(full, name, depth + 1);
      }
    }
  };
  visit(root, '', 0);
  return found;
}
