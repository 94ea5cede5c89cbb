// Smart HTTP (gitprotocol-http) for every service of services.ts, as a plain node:http
// `(req, res)` handler that also mounts in Connect/Express (`app.use('/git', handler)`; unknown
// paths go to `next`) and Fastify (pass `request.raw, reply.raw` after `reply.hijack()`, with
// `prefix` set to the route's prefix):
//   GET  <repo>/info/refs?service=git-<service>  -> "# service=..." + advertisement (v0/v1), or
//                                                  the v2 capabilities when Git-Protocol asks
//   POST <repo>/git-<service>                     -> one stateless-rpc exchange
// A request is routed, its repository resolved strictly inside the root, authorized (the
// embedder's `authorize`), checked against the service's http.<key> rule, then queued for a
// worker (worker-pool.ts): a buffered service's body is read whole first (http-body.ts), so a
// slow client holds no worker, and a queue past its bounds answers 503 with Retry-After at once.
// The worker's answer is relayed with backpressure: the response's socket paces the worker. A
// push's worker puts each ref update to `authorize` too, through this process (the job's
// authorize: worker-process.ts, worker-authorize.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatServiceHeader, type PushCommand } from '../protocol/index.js';
import { Config } from '../config/index.js';
import { closeAfterResponse } from '../transport/http-accept.js';
import type { TrackedConnection } from '../transport/connection-limit.js';
import { formatAccessLine, type AccessRecord, type Mutable } from './access-log.js';
import { bodyEncoding, bodyStream, header, readBody } from './http-body.js';
import { DEFAULT_SERVICE_LIMITS, DEFAULT_TIMEOUTS, type ServeTimeouts, type ServiceLimits } from './limits.js';
import { realRoot, resolveRepository, urlSegments, type ResolvedRepository } from './resolve-repository.js';
import { sanitizeProtocol } from './protocol-value.js';
import { enabledForHttp, type Service } from './service.js';
import type { JobAuthorize, ServiceJob } from './service-job.js';
import { serviceFromWire } from './services.js';
import { protocolVersion } from './upload-pack.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';
import type { WorkerRequest } from './worker-frames.js';

/**
 * One rule for every phase: true or `{ user }` allows (for a request, `{ user }` serves it to
 * that authenticated user); false, a string or `{ status }` refuses, the string or `message`
 * being the reason. A refused request is answered with the status (403 for false or a string)
 * and the reason ("forbidden" without one). A refused ref update fails that ref, as git reports
 * it (`ng <ref> <reason>`, "refused by the server" without one; the status is not used, the
 * push's answer being under way), or the whole push when it is atomic.
 */
export type AuthorizeResult = boolean | string | { user: string } | { status: number; headers?: Record<string, string>; message?: string };

export interface AuthorizeRequest {
  readonly repository: ResolvedRepository;
  /** The wire name: 'git-upload-pack'. */
  readonly service: string;
  /**
   * 'advertise' for info/refs, 'fetch' for the POST (whatever the service), then, for a push
   * (git-receive-pack) that passed both, 'update' once for each ref it updates, with the same req.
   */
  readonly phase: 'advertise' | 'fetch' | 'update';
  /** With 'update': the ref, its old value and its new one (the zero id: created or deleted). */
  readonly update?: PushCommand;
}

type Authorize = (req: IncomingMessage, request: AuthorizeRequest) => AuthorizeResult | Promise<AuthorizeResult>;

export interface HttpHandlerOptions {
  /** Directory holding the repositories (`<name>.git` or `<name>/.git`). */
  root: string;
  /**
   * Serve every repository, not only those with a git-daemon-export-ok file (http-backend's
   * GIT_HTTP_EXPORT_ALL). Default: true when `authorize` is given (it decides who sees what),
   * false otherwise, as http-backend.
   */
  exportAll?: boolean;
  /**
   * Decides per request and repository, and per ref update of a push (AuthorizeRequest's phases;
   * AuthorizeResult's rule). One that throws or rejects fails its request with a 500, or refuses
   * its ref update ("authorize failed"; the error goes to `log`).
   */
  authorize?: Authorize;
  /** Leading part of req.url to ignore (Fastify routes see the full URL). */
  prefix?: string;
  /** Request sizes and counts (limits.ts). */
  limits?: Partial<ServiceLimits>;
  /** Idle, request-body and total times, in seconds (limits.ts). */
  timeouts?: Partial<ServeTimeouts>;
  /** Receives failures and the services' diagnostics (default: ignored). */
  log?: (message: string) => void;
  /** Receives one line per request (access-log.ts), and the record it was made from. */
  accessLog?: (line: string, record: AccessRecord) => void;
  /** Workers to serve requests with (shared with other handlers; its owner closes it). */
  pool?: WorkerPool;
  /** Without `pool`: how the handler's own pool is sized, bounded and recycled. */
  workers?: WorkerPoolOptions;
  /** @internal The server's record of a request's connection (serve.ts), to mark it served or let it be closed for room. */
  connectionOf?: (req: IncomingMessage) => TrackedConnection | undefined;
}

export interface GitHttpHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** The workers serving this handler's requests. */
  readonly pool: WorkerPool;
  /** Requests taken and not yet answered. */
  readonly inFlight: number;
  /** From now on every answer closes its connection, and new requests are refused (503): the server is going down. */
  drain(): void;
  /** Ends the handler's own pool (a shared one is left to its owner). */
  close(): Promise<void>;
}

/** The handler's name from when it served upload-pack only. */
export type UploadPackHandler = GitHttpHandler;

const NO_CACHE = {
  'Expires': 'Fri, 01 Jan 1980 00:00:00 GMT',
  'Pragma': 'no-cache',
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
};

interface Route {
  service: Service;
  phase: 'advertise' | 'fetch';
  repoPath: string;
}

export function createGitHttpHandler(options: HttpHandlerOptions): GitHttpHandler {
  const root = realRoot(options.root);
  const exportAll = options.exportAll ?? options.authorize !== undefined;
  const limits: ServiceLimits = { ...DEFAULT_SERVICE_LIMITS, ...options.limits };
  const timeouts: ServeTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const log = options.log ?? (() => undefined);
  const pool = options.pool ?? new WorkerPool(options.workers);
  let inFlight = 0;
  let draining = false;

  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    const record: Mutable<AccessRecord> = {
      start: Date.now(), client: req.socket.remoteAddress ?? '', transport: req.method === 'POST' ? 'http-post' : 'http-get',
      repository: null, service: null, protocol: 0, status: null, outcome: 'refused', counts: null, sent: null, waitMs: 0,
    };
    inFlight++;
    let passed = false;
    // The line is written once the response is closed and the request's job has said how it ended.
    let pending = 2;
    const settled = () => {
      if (--pending > 0) return;
      inFlight--;
      if (record.status === null && res.headersSent) record.status = res.statusCode;
      if (!passed) options.accessLog?.(formatAccessLine(record), record);
    };
    res.once('close', settled);
    const pass = next && ((err?: unknown) => {
      passed = true;
      next(err);
    });
    handle(req, res, record, pass).catch(e => {
      log(`http: ${(e as Error).message}`);
      record.outcome = 'error';
      record.reason = (e as Error).message;
      if (!res.headersSent) plain(res, 500, 'internal error\n');
      else res.destroy();
    }).finally(settled);
  };
  return Object.assign(handler, {
    pool,
    get inFlight() { return inFlight; },
    drain: () => { draining = true; },
    close: () => (options.pool ? Promise.resolve() : pool.close()),
  });

  function route(url: string, query: URLSearchParams): Route | 'not-found' | 'dumb' | { unknown: string } {
    if (url.endsWith('/info/refs')) {
      const name = query.get('service');
      if (name === null) return 'dumb';
      const service = serviceFromWire(name);
      return service ? { service, phase: 'advertise', repoPath: url.slice(0, -'/info/refs'.length) } : { unknown: name };
    }
    const slash = url.lastIndexOf('/');
    const service = serviceFromWire(url.slice(slash + 1));
    if (service) return { service, phase: 'fetch', repoPath: url.slice(0, slash) };
    // A service git has and tsgit does not serve says so, rather than "not found".
    return /^git-[a-z-]+$/.test(url.slice(slash + 1)) ? { unknown: url.slice(slash + 1) } : 'not-found';
  }

  async function handle(req: IncomingMessage, res: ServerResponse, record: Mutable<AccessRecord>, next?: (err?: unknown) => void): Promise<void> {
    let url = req.url ?? '/';
    if (options.prefix) {
      if (!url.startsWith(options.prefix)) return notFound(res, next);
      url = url.slice(options.prefix.length);
    }
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const r = route(pathname, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
    if (r === 'not-found') return notFound(res, next);
    if (r === 'dumb') return refuse(res, record, 403, 'only the smart protocol is served (info/refs?service=git-upload-pack)');
    if ('unknown' in r) return refuse(res, record, 403, `service not served: ${r.unknown}`);
    record.service = `git-${r.service.name}`;
    const repository = resolveRepository(root, urlSegments(r.repoPath), { exportAll });
    if (typeof repository === 'string') return refuse(res, record, 404, 'repository not found');
    record.repository = repository.name;
    const wire = `git-${r.service.name}`;
    if (r.phase === 'advertise') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, record, 405, 'method not allowed', { Allow: 'GET' });
    } else {
      if (req.method !== 'POST') return refuse(res, record, 405, 'method not allowed', { Allow: 'POST' });
      if (req.headers['content-type'] !== `application/x-${wire}-request`) return refuse(res, record, 415, `expected Content-Type: application/x-${wire}-request`);
    }
    let user: string | null = null;
    if (options.authorize) {
      const verdict = await options.authorize(req, { repository, service: wire, phase: r.phase });
      const refused = refusalOf(verdict);
      if (refused) return refuse(res, record, refused.status, refused.message || 'forbidden', refused.headers);
      if (typeof verdict === 'object' && 'user' in verdict) user = verdict.user;
    }
    const authorizeUpdate = options.authorize && r.phase === 'fetch' ? updateAuthorizer(options.authorize, req, repository, wire) : undefined;
    if (!enabledForHttp(r.service, Config.loadSync(repository.gitDir, { global: true }), user)) {
      return refuse(res, record, 403, `service not enabled: '${wire}'`);
    }
    if (draining) return busy(res, record, 'the server is shutting down');
    const protocol = sanitizeProtocol(header(req.headers['git-protocol']));
    record.protocol = protocolVersion(protocol);
    const request: WorkerRequest = {
      service: r.service.name, gitDir: repository.gitDir, statelessRpc: true, advertiseRefs: r.phase === 'advertise',
      timeout: timeouts.idle, protocol, limits,
    };
    const encoding = r.phase === 'advertise' ? { ok: true as const, gzip: false } : bodyEncoding(req);
    if (!encoding.ok) {
      closeAfterResponse(req);
      return refuse(res, record, encoding.status, encoding.message, { Connection: 'close' });
    }
    const reservation = pool.reserve();
    if (!reservation) return busy(res, record, 'the server is busy: too many requests are waiting');
    let job: ServiceJob | null;
    let badBody: (() => string | null) | undefined;
    if (r.phase === 'advertise') {
      job = pool.run(request, { kind: 'body', body: Buffer.alloc(0) }, reservation);
    } else if (r.service.bufferInput) {
      // Given up with the request if the client goes while its body is read.
      const conn = options.connectionOf?.(req);
      if (conn) conn.evict = () => { reservation.release(); res.destroy(); };
      const body = await readBody(req, encoding.gzip, { maxBytes: limits.maxRequestBytes, timeout: timeouts.init }, reservation);
      if (!body.ok) {
        reservation.release();
        if (body.gone) {
          record.outcome = 'gone';
          return;
        }
        closeAfterResponse(req);
        if (body.status === 503) return busy(res, record, body.message);
        return refuse(res, record, body.status, body.message, { Connection: 'close' });
      }
      job = pool.run(request, { kind: 'body', body: body.body }, reservation, authorizeUpdate);
    } else {
      job = pool.run(request, { kind: 'stream' }, reservation, authorizeUpdate);
      if (job) badBody = streamBody(req, res, job, encoding.gzip);
    }
    if (!job) return busy(res, record, 'the server is busy: too many requests are waiting');
    await relay(req, res, job, record, r.phase === 'advertise' && record.protocol !== 2 ? formatServiceHeader(wire) : null, wire, badBody);
  }

  /**
   * `authorize` for each ref update of a POST's push (phase 'update'), as its worker asks. One
   * that fails refuses the update: the client is told no more than that, the log is told why.
   */
  function updateAuthorizer(authorize: Authorize, req: IncomingMessage, repository: ResolvedRepository, service: string): JobAuthorize {
    return async ({ name, oldOid, newOid }) => {
      try {
        const refused = refusalOf(await authorize(req, { repository, service, phase: 'update', update: { name, oldOid, newOid } }));
        return refused === null || (refused.message || false);
      } catch (e) {
        log(`http: ${repository.name}: authorize ${name}: ${(e as Error).message}`);
        return 'authorize failed';
      }
    };
  }

  /**
   * A streamed body goes to the worker as it comes, paced by the worker's pipe. Returns why the
   * body could not be read when it was the body's fault (not gzip after all, a gzip stream cut
   * short), not the client's going.
   */
  function streamBody(req: IncomingMessage, res: ServerResponse, job: ServiceJob, gzip: boolean): () => string | null {
    const stdin = job.stdin;
    stdin.on('error', () => undefined);
    const body = bodyStream(req, gzip);
    body.on('data', (chunk: Buffer) => {
      if (!stdin.write(chunk)) {
        body.pause();
        stdin.once('drain', () => body.resume());
      }
    });
    body.on('end', () => stdin.end());
    // Cut short, or not gzip after all: the worker would take what came as the whole push.
    let failure: string | null = null;
    req.on('error', () => job.stop());
    if (gzip) {
      // The client is still there, and is told (relay), as readBody's 400 tells a buffered one.
      body.on('error', (e: Error) => {
        failure = `bad request body: ${e.message}`;
        job.stop();
      });
    }
    res.once('close', () => { if (!req.complete) job.stop(); });
    return () => failure;
  }

  /**
   * Copies the worker's answer into the response, stopping the job if the client goes away. The
   * status line waits for the first byte, so that a failure before it can still be a 500. Timers
   * start when a worker has the request: queued time is nobody's idle time.
   */
  function relay(req: IncomingMessage, res: ServerResponse, job: ServiceJob, record: Mutable<AccessRecord>,
    preamble: Buffer | null, wire: string, badBody?: () => string | null): Promise<void> {
    const kind = job.request.advertiseRefs ? 'advertisement' : 'result';
    const conn = options.connectionOf?.(req);
    let evicted = false;
    if (conn) {
      conn.evict = () => {
        evicted = true;
        busy(res, record, 'too many connections from your address');
        job.stop();
      };
    }
    return new Promise(resolve => {
      let sent = 0;
      let idled = false;
      const begin = () => {
        if (res.headersSent) return;
        res.writeHead(200, { ...NO_CACHE, 'Content-Type': `application/x-${wire}-${kind}`, ...(draining ? { Connection: 'close' } : {}) });
        // A v2 answer starts with "version 2" and carries no service line (as http-backend does it).
        if (preamble) {
          res.write(preamble);
          sent += preamble.length;
        }
      };
      const gone = () => {
        if (!res.writableFinished) job.stop();
      };
      res.on('close', gone);
      const started = () => {
        if (conn) conn.serving = true;
        record.waitMs = job.startedAt - record.start;
        if (timeouts.idle > 0) {
          res.setTimeout(timeouts.idle * 1000, () => {
            idled = true;
            // A streamed body that stalls before any answer: the client is told (408, below,
            // once the worker is gone), as a buffered body past its time is (http-body.ts).
            if (!res.headersSent && !req.complete) job.stop();
            else res.destroy();
          });
        }
      };
      // A free worker takes the job as it is queued, before this is called.
      job.onStart(started);
      job.stdout.on('data', (d: Buffer) => {
        begin();
        sent += d.length;
        if (!res.write(d)) {
          job.stdout.pause();
          res.once('drain', () => job.stdout.resume());
        }
      });
      job.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
        res.off('close', gone);
        if (conn) {
          conn.serving = false;
          conn.evict = () => req.socket.destroy();
        }
        // Answered already: refused while queued to make room for another address.
        if (evicted) return resolve();
        // Stopped for a body that could not be read: not the client's going (that was 'gone' and
        // no answer at all), a 400 as for a buffered body, unless the answer had begun.
        const bad = badBody?.() ?? null;
        if (bad !== null && !res.headersSent) {
          closeAfterResponse(req);
          refuse(res, record, 400, bad, { Connection: 'close' });
          return resolve();
        }
        if (idled && !res.headersSent && !res.destroyed) {
          closeAfterResponse(req);
          refuse(res, record, 408, `request body stalled: nothing from the client for ${timeouts.idle} seconds`, { Connection: 'close' });
          record.outcome = 'timeout';
          return resolve();
        }
        record.outcome = idled ? 'timeout' : job.outcome;
        if (idled) record.reason = `the client took nothing for ${timeouts.idle} seconds`;
        record.counts = job.exit?.counts ?? null;
        record.sent = sent;
        if (job.outcome !== 'ok' && job.outcome !== 'gone') {
          record.reason = job.failure || `worker ${signal ?? `exited ${code}`}`;
          log(`${job.request.gitDir}: ${wire} ${job.outcome}: ${record.reason}`);
        }
        if (job.outcome === 'gone') res.destroy();
        else if (code === 0 || (res.headersSent && job.exit)) {
          begin();
          res.end();
        } else if (res.headersSent) {
          // Cut in the middle: the client must see a broken answer, not a short one.
          res.destroy();
        } else if (job.outcome === 'closing') {
          busy(res, record, 'the server is shutting down');
        } else {
          record.status = 500;
          plain(res, 500, `${wire} failed\n`);
        }
        resolve();
      });
    });
  }

  function busy(res: ServerResponse, record: Mutable<AccessRecord>, message: string): void {
    record.outcome = draining ? 'closing' : 'busy';
    record.status = 503;
    plain(res, 503, `${message}\n`, { 'Retry-After': String(pool.retryAfter()), Connection: 'close' });
  }
}

/** The handler's name from when it served upload-pack only. */
export const createUploadPackHandler = createGitHttpHandler;


/** What a verdict refuses with (AuthorizeResult's rule), or null when it allows. */
function refusalOf(verdict: AuthorizeResult): { status: number; headers?: Record<string, string>; message?: string } | null {
  if (verdict === true) return null;
  if (typeof verdict === 'object') return 'status' in verdict ? verdict : null;
  return typeof verdict === 'string' ? { status: 403, message: verdict } : { status: 403 };
}

function refuse(res: ServerResponse, record: Mutable<AccessRecord>, status: number, message: string, headers?: Record<string, string>): void {
  record.status = status;
  record.outcome = 'refused';
  record.reason = message;
  plain(res, status, `${message}\n`, headers);
}

function notFound(res: ServerResponse, next?: (err?: unknown) => void): void {
  if (next) next();
  else plain(res, 404, 'not found\n');
}

function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...NO_CACHE, 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(message);
}
