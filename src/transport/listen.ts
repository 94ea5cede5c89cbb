// The listening side's start and end: a server bound to a host and port, with the reasons a bind
// fails said the way a user can act on them (no Node stack), and a close that waits.
import type net from 'node:net';
import { GitError } from '../core/errors.js';

const WHY: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'that address is not one of this machine\'s',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
};

/** Binds `server` to `host`:`port` (0: any free port); resolves to the port it got. */
export function listen(server: net.Server, host: string, port: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => {
      const shown = host.includes(':') ? `[${host}]` : host;
      reject(new GitError('transport', 'listen-failed', `cannot listen for ${what} on ${shown}:${port}: ${WHY[e.code ?? ''] ?? e.message}`, { cause: e }));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Stops accepting; settles once every connection the server counts has closed. */
export function closeServer(server: net.Server): Promise<void> {
  return new Promise(resolve => server.close(() => resolve()));
}

/** At most this long, a refused client's remaining bytes are read and dropped before its socket is closed. */
const LINGER_MS = 1000;

/**
 * Ends our side of an accepted connection at once and closes it once the client has: what it still
 * sends is read and dropped, for a second at most. Closing a socket with the client's bytes unread
 * resets it (RST), which destroys an answer still on its way: the client would see "connection
 * reset" instead of the 413, 503 or ERR it was sent (one time in two, measured on loopback).
 */
export function lingeringClose(socket: net.Socket): void {
  socket.setTimeout(0);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => { clearTimeout(timer); socket.destroy(); });
  socket.resume();
}
