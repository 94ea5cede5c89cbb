// git:// as git daemon serves it, for every service of services.ts: the connection is counted
// (transport/connection-limit.ts, git daemon's --max-connections), its request line read within
// the init timeout (transport/daemon-accept.ts), the path resolved strictly inside the root, the
// service checked against git daemon's rules (--enable/--disable, daemon.<key>), and refusals
// are an ERR line, as git daemon sends them. Then the connection waits in the worker pool's
// queue (bounded: past it, ERR at once) and goes whole to a worker, which answers it directly:
// the pack does not pass through this process. While it waits, its bytes are read (and counted
// against the queue's bytes) so that a client that hangs up is seen and dropped.
import net from 'node:net';
import { Config } from '../config/index.js';
import { ConnectionLimit, type TrackedConnection } from '../transport/connection-limit.js';
import { acceptDaemonRequest, refuseConnection, type DaemonRequest } from '../transport/daemon-accept.js';
import { NOT_SERVED } from '../transport/daemon-refusals.js';
import { formatAccessLine, type AccessRecord, type Mutable } from './access-log.js';
import { DEFAULT_SERVICE_LIMITS, DEFAULT_TIMEOUTS, type ServeTimeouts, type ServiceLimits } from './limits.js';
import { daemonSegments, realRoot, resolveRepository, segmentsUnder } from './resolve-repository.js';
import { sanitizeProtocol } from './protocol-value.js';
import { enabledForDaemon, type DaemonServiceRule } from './service.js';
import type { ClientConnection } from './service-job.js';
import { serviceFromWire } from './services.js';
import { protocolVersion } from './upload-pack.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

export { parseDaemonRequest, type DaemonRequest } from '../transport/daemon-accept.js';

/** git daemon's --max-connections is 32, each a process; here a waiting connection costs a socket. */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** Most bytes read from a queued connection; past it the socket is left unread until a worker takes it. */
const MAX_QUEUED_HEAD = 64 * 1024;

export interface DaemonOptions {
  root: string;
  exportAll?: boolean;
  /** Request sizes and counts (limits.ts). */
  limits?: Partial<ServiceLimits>;
  /** Idle, request-line and total times, in seconds (limits.ts). */
  timeouts?: Partial<ServeTimeouts>;
  /** Most connections at once (git daemon --max-connections; default 256; 0: no limit). */
  maxConnections?: number;
  /** @internal Connections counted with another server's (serve.ts: HTTP and git:// share one limit). */
  connections?: ConnectionLimit;
  /** git daemon's --enable/--disable and --allow-override/--forbid-override, by service name. */
  services?: Readonly<Record<string, DaemonServiceRule>>;
  /** Receives failures and the services' diagnostics. */
  log?: (message: string) => void;
  /** Receives one line per connection (access-log.ts), and the record it was made from. */
  accessLog?: (line: string, record: AccessRecord) => void;
  /** Workers to serve requests with (shared; its owner closes it). */
  pool?: WorkerPool;
  /** Without `pool`: how the daemon's own pool, closed with the server, is sized and recycled. */
  workers?: WorkerPoolOptions;
  /**
   * Request paths are absolute paths inside the root, not paths below it: serve's Unix socket,
   * where `tsgit upload-pack <dir>` relays what sshd started it for (transport/serve-relay.ts).
   */
  absolutePaths?: boolean;
}

export function createDaemon(options: DaemonOptions): net.Server {
  const root = realRoot(options.root);
  const exportAll = options.exportAll ?? false;
  const limits: ServiceLimits = { ...DEFAULT_SERVICE_LIMITS, ...options.limits };
  const timeouts: ServeTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const log = options.log ?? (() => undefined);
  const pool = options.pool ?? new WorkerPool(options.workers);
  const connections = options.connections ?? new ConnectionLimit(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  // Half-open allowed: a client may finish sending (EOF) before it has read the answer, and only
  // the worker that answers may end the connection.
  const server = net.createServer({ allowHalfOpen: true }, socket => {
    socket.on('error', () => undefined);
    const record: Mutable<AccessRecord> = {
      start: Date.now(), client: socket.remoteAddress ?? '', transport: 'git', repository: null, service: null,
      protocol: 0, status: null, outcome: 'refused', counts: null, sent: null, waitMs: 0,
    };
    socket.once('close', () => options.accessLog?.(formatAccessLine(record), record));
    const refuse = (outcome: AccessRecord['outcome'], message: string) => {
      record.outcome = outcome;
      record.reason = message;
      refuseConnection(socket, message);
    };
    const conn = connections.admit(socket);
    if (!conn) return refuse('busy', 'too many connections');
    acceptDaemonRequest(socket, timeouts.init, (request, rest) => start(socket, conn, record, refuse, request, rest));
  });
  if (!options.pool) server.on('close', () => { void pool.close(); });
  return server;

  function start(socket: net.Socket, conn: TrackedConnection, record: Mutable<AccessRecord>,
    refuse: (outcome: AccessRecord['outcome'], message: string) => void, request: DaemonRequest, rest: Buffer): void {
    const service = serviceFromWire(request.service);
    record.service = request.service;
    if (!service) return refuse('refused', `service not enabled: ${request.service}`);
    const segments = options.absolutePaths ? segmentsUnder(root, request.path) : daemonSegments(request.path);
    const repo = resolveRepository(root, segments, { exportAll });
    if (typeof repo === 'string') return refuse('refused', `${NOT_SERVED}: ${request.path}`);
    record.repository = repo.name;
    if (!enabledForDaemon(service, Config.loadSync(repo.gitDir, { global: true }), options.services?.[service.name])) {
      return refuse('refused', `service not enabled: ${request.service}`);
    }
    const protocol = sanitizeProtocol(request.extra.join(':'));
    record.protocol = protocolVersion(protocol);
    const reservation = pool.reserve(rest.length);
    if (!reservation) return refuse('busy', 'the server is busy: too many requests are waiting');
    const connection: ClientConnection = { socket, head: rest, ended: false };
    const job = pool.run({ service: service.name, gitDir: repo.gitDir, timeout: timeouts.idle, protocol, limits },
      { kind: 'connection', connection }, reservation);
    if (!job) return refuse('busy', 'the server is busy: too many requests are waiting');
    // Until a worker takes it, the connection is read: a client that goes is dropped from the queue.
    const onData = (chunk: Buffer) => {
      connection.head = Buffer.concat([connection.head, chunk]);
      if (connection.head.length > MAX_QUEUED_HEAD || !reservation.grow(chunk.length)) socket.pause();
    };
    const onEnd = () => {
      connection.ended = true;
      // A client with nothing to say after its request line, and gone: nobody is left to answer.
      if (connection.head.length === 0 && !job.pid) {
        job.stop();
        socket.destroy();
      }
    };
    // Taken: from here the worker reads the socket (this process must not: paused before the
    // hand-over, which 'start' precedes).
    const started = () => {
      socket.pause();
      socket.off('data', onData);
      socket.off('end', onEnd);
      conn.serving = true;
      record.waitMs = job.startedAt - record.start;
    };
    if (job.startedAt) started();
    else {
      job.once('start', started);
      socket.on('data', onData);
      socket.on('end', onEnd);
      socket.resume();
    }
    job.stdout.resume();
    conn.evict = () => {
      refuse('busy', 'too many connections from your address');
      job.stop();
    };
    socket.once('close', () => { if (!job.pid) job.stop(); });
    job.on('close', () => {
      // Refused while queued to make room for another address: the ERR line is on its way.
      if (record.outcome === 'busy') return;
      record.outcome = job.outcome;
      record.counts = job.exit?.counts ?? null;
      record.sent = job.exit?.sent ?? null;
      if (job.outcome !== 'ok' && job.outcome !== 'gone') {
        record.reason = job.failure || 'the worker ended';
        log(`${repo.name}: ${request.service} ${job.outcome}: ${record.reason}`);
      }
      // The worker has the connection (this socket is an empty shell now) or nobody does.
      socket.destroy();
    });
  }
}

