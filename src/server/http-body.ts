// A service's HTTP body. A buffered one (upload-pack's wants and haves) is read whole before a
// worker takes the request, as http-backend reads it: gzip inflated, at most GIT_HTTP_MAX_REQUEST_BUFFER bytes
// after inflating, within the init timeout, and counted against the worker pool's queue bytes as
// it comes. Anything else is a refusal with its HTTP status. A streamed one (receive-pack's commands
// and pack) goes to the worker as it comes, inflated the same way.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Reservation } from './worker-pool.js';

export type BodyResult =
  | { ok: true; body: Buffer }
  | { ok: false; status: number; message: string; gone?: boolean };

export interface BodyLimits {
  maxBytes: number;
  /** Seconds the whole body may take (0: no limit). */
  timeout: number;
}

/**
 * Whether the body is gzip (JGit compresses its push bodies, git its larger fetch requests), or
 * the refusal of an encoding http-backend does not take either.
 */
export function bodyEncoding(req: IncomingMessage): { ok: true; gzip: boolean } | { ok: false; status: number; message: string } {
  const encoding = header(req.headers['content-encoding']);
  if (encoding && encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'identity') {
    return { ok: false, status: 415, message: `unsupported Content-Encoding: ${encoding}` };
  }
  return { ok: true, gzip: encoding === 'gzip' || encoding === 'x-gzip' };
}

/** The body as it arrives, inflated if it is gzip. */
export function bodyStream(req: IncomingMessage, gzip: boolean): Readable {
  return gzip ? req.pipe(zlib.createGunzip()) : req;
}

/** Reads a buffered body whose encoding `bodyEncoding` has already taken. */
export function readBody(req: IncomingMessage, gzip: boolean, limits: BodyLimits, reservation: Reservation): Promise<BodyResult> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (!gzip && declared > limits.maxBytes) return Promise.resolve(tooLarge(limits.maxBytes));
  return new Promise(resolve => {
    const body = bodyStream(req, gzip);
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (r: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('close', onClose);
      if (!r.ok && gzip) body.destroy();
      resolve(r);
    };
    const timer = limits.timeout > 0
      ? setTimeout(() => settle({ ok: false, status: 408, message: `request body not received within ${limits.timeout} seconds` }), limits.timeout * 1000)
      : undefined;
    timer?.unref();
    const onClose = () => {
      if (!req.complete) settle({ ok: false, status: 400, message: 'client went away', gone: true });
    };
    req.on('close', onClose);
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > limits.maxBytes) return settle(tooLarge(limits.maxBytes));
      if (!reservation.grow(chunk.length)) return settle({ ok: false, status: 503, message: 'the server is busy: too many requests are waiting' });
      chunks.push(chunk);
    });
    body.on('end', () => settle({ ok: true, body: Buffer.concat(chunks, received) }));
    body.on('error', (e: Error) => settle({ ok: false, status: 400, message: `bad request body: ${e.message}` }));
  });
}

function tooLarge(max: number): BodyResult {
  return { ok: false, status: 413, message: `request body larger than ${max} bytes (GIT_HTTP_MAX_REQUEST_BUFFER)` };
}

export function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
