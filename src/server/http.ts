// Smart HTTP for upload-pack (gitprotocol-http), as a plain node:http `(req, res)` handler that also
// mounts in Connect/Express (`app.use('/git', handler)`; unknown paths go to `next`) and Fastify
// (pass `request.raw, reply.raw` after `reply.hijack()`, with `prefix` set to the route's prefix):
//   GET  <repo>/info/refs?service=git-upload-pack  -> "# service=..." + advertisement (v0/v1), or
//                                                    the v2 capabilities when Git-Protocol asks
//   POST <repo>/git-upload-pack                     -> one stateless-rpc exchange
// Authorization is the embedder's: `authorize` sees each request with the repository it names.
// Bodies may be gzip-encoded; their size (after inflating) and idle time are bounded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { formatServiceHeader } from '../protocol/index.js';
import { realRoot, resolveRepository, urlSegments, type ResolvedRepository } from './resolve-repository.js';
import { sanitizeProtocol } from './protocol-value.js';
import { DEFAULT_MAX_INPUT_BYTES } from './upload-pack.js';
import { WorkerPool, type UploadPackJob, type WorkerPoolOptions } from './worker-pool.js';

export type AuthorizeResult = boolean | { status: number; headers?: Record<string, string>; message?: string };

export interface AuthorizeRequest {
  readonly repository: ResolvedRepository;
  readonly service: 'git-upload-pack';
  /** 'advertise' for info/refs, 'fetch' for the POST. */
  readonly phase: 'advertise' | 'fetch';
}

export interface HttpHandlerOptions {
  /** Directory holding the repositories (`<name>.git` or `<name>/.git`). */
  root: string;
  /** Serve every repository, not only those with a git-daemon-export-ok file. */
  exportAll?: boolean;
  /** Decides per request and repository; false answers 403, an object answers what it says. */
  authorize?: (req: IncomingMessage, request: AuthorizeRequest) => AuthorizeResult | Promise<AuthorizeResult>;
  /** Leading part of req.url to ignore (Fastify routes see the full URL). */
  prefix?: string;
  /** Largest request body accepted, after gzip (default 64 MiB). */
  maxRequestBytes?: number;
  /** Seconds a connection may stay silent (default 60). */
  idleTimeout?: number;
  /** Receives upload-pack's stderr and failures (default: ignored). */
  log?: (message: string) => void;
  /** Workers to serve requests with (shared with other handlers; its owner closes it). */
  pool?: WorkerPool;
  /** Without `pool`: how the handler's own pool is sized and recycled. */
  workers?: WorkerPoolOptions;
}

export interface UploadPackHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** The workers serving this handler's requests. */
  readonly pool: WorkerPool;
  /** Ends the handler's own pool (a shared one is left to its owner). */
  close(): Promise<void>;
}

const NO_CACHE = {
  'Expires': 'Fri, 01 Jan 1980 00:00:00 GMT',
  'Pragma': 'no-cache',
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
};

export function createUploadPackHandler(options: HttpHandlerOptions): UploadPackHandler {
  const root = realRoot(options.root);
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const idle = options.idleTimeout ?? 60;
  const log = options.log ?? (() => undefined);
  const pool = options.pool ?? new WorkerPool(options.workers);
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    handle(req, res, next).catch(e => {
      log(`upload-pack handler: ${(e as Error).message}`);
      if (!res.headersSent) plain(res, 500, 'internal error\n');
      else res.destroy();
    });
  };
  return Object.assign(handler, { pool, close: () => (options.pool ? Promise.resolve() : pool.close()) });

  async function handle(req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): Promise<void> {
    let url = req.url ?? '/';
    if (options.prefix) {
      if (!url.startsWith(options.prefix)) return notFound(res, next);
      url = url.slice(options.prefix.length);
    }
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    let phase: 'advertise' | 'fetch';
    let repoPath: string;
    if (pathname.endsWith('/info/refs')) {
      phase = 'advertise';
      repoPath = pathname.slice(0, -'/info/refs'.length);
    } else if (pathname.endsWith('/git-upload-pack')) {
      phase = 'fetch';
      repoPath = pathname.slice(0, -'/git-upload-pack'.length);
    } else if (pathname.endsWith('/git-receive-pack')) {
      return plain(res, 403, 'pushing is not supported\n');
    } else {
      return notFound(res, next);
    }
    const repository = resolveRepository(root, urlSegments(repoPath), { exportAll: options.exportAll ?? false });
    if (typeof repository === 'string') return plain(res, 404, 'repository not found\n');
    if (phase === 'advertise') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed\n', { Allow: 'GET' });
      const service = query.get('service');
      if (service === 'git-receive-pack') return plain(res, 403, 'pushing is not supported\n');
      if (service !== 'git-upload-pack') return plain(res, 403, 'only the smart protocol is served (service=git-upload-pack)\n');
    } else {
      if (req.method !== 'POST') return plain(res, 405, 'method not allowed\n', { Allow: 'POST' });
      const type = req.headers['content-type'];
      if (type !== 'application/x-git-upload-pack-request') return plain(res, 415, 'expected Content-Type: application/x-git-upload-pack-request\n');
    }
    if (options.authorize) {
      const verdict = await options.authorize(req, { repository, service: 'git-upload-pack', phase });
      if (verdict !== true) {
        const v = verdict === false ? { status: 403 } : verdict;
        return plain(res, v.status, v.message ?? 'forbidden\n', v.headers);
      }
    }
    const protocol = sanitizeProtocol(headerValue(req.headers['git-protocol']));
    res.setTimeout(idle * 1000, () => res.destroy());
    if (phase === 'advertise') await advertise(res, repository, protocol);
    else await fetch(req, res, repository, protocol);
  }

  async function advertise(res: ServerResponse, repository: ResolvedRepository, protocol: string | undefined): Promise<void> {
    const child = pool.run({ gitDir: repository.gitDir, advertiseRefs: true, statelessRpc: true, timeout: idle, protocol });
    child.stdin!.end();
    res.writeHead(200, { ...NO_CACHE, 'Content-Type': 'application/x-git-upload-pack-advertisement' });
    // A v2 answer starts with "version 2" and carries no service line (as http-backend does it).
    if (!protocol?.split(':').includes('version=2')) res.write(formatServiceHeader('git-upload-pack'));
    await relay(child, res, repository);
  }

  async function fetch(req: IncomingMessage, res: ServerResponse, repository: ResolvedRepository, protocol: string | undefined): Promise<void> {
    const encoding = headerValue(req.headers['content-encoding']);
    if (encoding && encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'identity') {
      return plain(res, 415, `unsupported Content-Encoding: ${encoding}\n`);
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > maxBytes && (!encoding || encoding === 'identity')) {
      req.resume();
      return plain(res, 413, `request body larger than ${maxBytes} bytes\n`, { Connection: 'close' });
    }
    const child = pool.run({ gitDir: repository.gitDir, statelessRpc: true, timeout: idle, protocol });
    const body = encoding === 'gzip' || encoding === 'x-gzip' ? req.pipe(zlib.createGunzip()) : req;
    let received = 0;
    let refused = false;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        refused = true;
        body.destroy();
        child.stop();
        if (!res.headersSent) plain(res, 413, `request body larger than ${maxBytes} bytes\n`, { Connection: 'close' });
        req.destroy();
        return;
      }
      if (!child.stdin!.write(chunk)) {
        body.pause();
        child.stdin!.once('drain', () => body.resume());
      }
    });
    body.on('end', () => child.stdin!.end());
    body.on('error', (e: Error) => {
      refused = true;
      child.stop();
      if (!res.headersSent) plain(res, 400, `bad request body: ${e.message}\n`);
      else res.destroy();
    });
    child.stdin!.on('error', () => undefined);
    await relay(child, res, repository, () => refused);
  }

  /**
   * Copies upload-pack's output into the response, stopping it if the client goes away. The
   * status line waits for upload-pack's first byte, so a body refused meanwhile can still get 413.
   */
  function relay(child: UploadPackJob, res: ServerResponse, repository: ResolvedRepository, refused = () => false): Promise<void> {
    return new Promise(resolve => {
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString('utf8'); });
      let stopped = false;
      const gone = () => {
        if (res.writableFinished) return;
        stopped = true;
        child.stop();
      };
      res.on('close', gone);
      child.stdout!.on('data', (d: Buffer) => {
        if (refused()) return;
        if (!res.headersSent) res.writeHead(200, { ...NO_CACHE, 'Content-Type': 'application/x-git-upload-pack-result' });
        if (!res.write(d)) {
          child.stdout!.pause();
          res.once('drain', () => child.stdout!.resume());
        }
      });
      child.on('close', (code, signal) => {
        res.off('close', gone);
        if (code !== 0 && !stopped && stderr) log(`${repository.name}: upload-pack ${signal ?? `exited ${code}`}: ${stderr.trim()}`);
        if (refused()) return resolve();
        if (res.headersSent) res.end();
        else if (code === 0) res.writeHead(200, { ...NO_CACHE, 'Content-Type': 'application/x-git-upload-pack-result' }).end();
        else plain(res, 500, 'upload-pack failed\n');
        resolve();
      });
    });
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
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
