// The accepting side of smart HTTP: a node:http server whose timeouts are the serve limits. The
// request's headers must arrive within the init timeout (git daemon's --init-timeout, the header
// half of Apache's RequestReadTimeout: a slowloris sending a byte a second is answered 408 and
// closed); the body is the handler's to bound (a buffered one within the same time, a streamed
// one by the idle timeout). Node checks its timeouts on an interval, here at most a second, so a
// short timeout is kept to within a second.
import http from 'node:http';
import type net from 'node:net';
import { lingeringClose } from './listen.js';

export interface HttpAcceptOptions {
  /** Seconds for a request's headers (0: Node's default of a minute). */
  initTimeout: number;
  /** Seconds an idle kept-alive connection stays open (Node's default: 5). */
  keepAliveTimeout?: number;
}

export function createHttpServer(listener: http.RequestListener, options: HttpAcceptOptions): http.Server {
  const headersMs = options.initTimeout > 0 ? options.initTimeout * 1000 : 60_000;
  const server = http.createServer({
    connectionsCheckingInterval: Math.min(1000, headersMs),
    headersTimeout: headersMs,
    // The whole request's time: a streamed body (a push) may take as long as it needs, bounded by
    // the idle timeout instead.
    requestTimeout: 0,
  }, listener);
  // A client may end its side once its request is sent (`printf ... | nc -N`, a proxy that
  // half-closes) and still read the answer, as Apache and http-backend give it. Node's default
  // (httpAllowHalfOpen false, undocumented) aborts every request not yet answered at the client's
  // FIN, and ours are all answered later, by a worker: the client got nothing at all. Allowed, the
  // answers still due are written and the connection ends after the last; a request cut short by
  // the FIN is still a parse error (400), and an idle kept-alive connection is still ended.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // CONNECT (a proxy tunnel) is no request a git server takes; Node, with no 'connect' listener,
  // drops the connection without a word. Answered as any other method the handler does not take.
  server.on('connect', (_req: http.IncomingMessage, socket: net.Socket) => {
    socket.on('error', () => undefined);
    const body = 'method not allowed\n';
    socket.write('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST\r\nContent-Type: text/plain; charset=utf-8\r\n'
      + `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    lingeringClose(socket);
  });
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout * 1000;
  return server;
}

/**
 * Closes the connection of a request answered before its body was read (413, 503) lingering
 * (listen.ts): Node would close the socket with the body unread as soon as the answer is written.
 */
export function closeAfterResponse(req: http.IncomingMessage): void {
  const socket = req.socket as http.IncomingMessage['socket'] & { destroySoon?: () => void };
  socket.destroySoon = () => lingeringClose(socket);
  req.resume();
}
