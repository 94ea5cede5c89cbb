// The listening side's start and end: a server bound to a host and port, with the reasons a bind
// fails said the way a user can act on them (no Node stack), and a close that waits.
import fs from 'node:fs';
import type net from 'node:net';
import { GitError } from '../core/errors.js';
import { connectUnix } from './unix-socket.js';

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

/**
 * Binds `server` to the Unix socket `socketPath`, which only this user may connect to (it is
 * created under a umask of 0177). A socket file left by a server that died is replaced; one that
 * a live server answers on, or a file that is no socket, is an error.
 */
export async function listenUnix(server: net.Server, socketPath: string, what: string): Promise<void> {
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(socketPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (st) {
    if (!st.isSocket()) throw new GitError('transport', 'listen-failed', `cannot listen for ${what} on ${socketPath}: it exists and is not a socket`);
    const live = await connectUnix(socketPath);
    live?.destroy();
    if (live) throw new GitError('transport', 'listen-failed', `cannot listen for ${what} on ${socketPath}: a server is listening there`);
    fs.unlinkSync(socketPath);
  }
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) =>
      reject(new GitError('transport', 'listen-failed', `cannot listen for ${what} on ${socketPath}: ${WHY[e.code ?? ''] ?? e.message}`, { cause: e }));
    server.once('error', failed);
    // The bind happens inside listen(), so the umask covers the socket's creation and nothing else.
    const umask = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off('error', failed);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
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
