// The accepting side of git:// (gitprotocol-pack "Git Transport"), as git daemon reads it: the
// client's first pkt-line is "git-upload-pack <path>\0host=<host>\0", optionally followed by
// "\0version=2\0" and other extra parameters, and everything after it belongs to the service. The
// line is read within the init timeout (git daemon --init-timeout) and one pkt-line's size; a
// refusal is an ERR line, as git daemon sends them, and the connection's end.
import type net from 'node:net';
import { formatErr, PktLineDecoder } from '../protocol/index.js';
import { lingeringClose } from './listen.js';

export interface DaemonRequest {
  /** As sent: 'git-upload-pack'. */
  service: string;
  path: string;
  host: string | null;
  /** Extra parameters after the second NUL ('version=2'), for GIT_PROTOCOL. */
  extra: string[];
}

/** Parses the first pkt-line's payload; null when it is not a daemon request. */
export function parseDaemonRequest(payload: Buffer): DaemonRequest | null {
  const parts = payload.toString('latin1').split('\0');
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
  return { service: head.slice(0, sp), path: head.slice(sp + 1), host, extra };
}

/** Ends a connection with an ERR line saying why, as git daemon refuses one, lingering (listen.ts). */
export function refuseConnection(socket: net.Socket, message: string): void {
  socket.write(formatErr(message));
  lingeringClose(socket);
}

/**
 * Reads the request line, then hands the paused socket on with the request and the bytes read past
 * it; a malformed line, or none within `initTimeout` seconds (0: no limit), is refused.
 */
export function acceptDaemonRequest(socket: net.Socket, initTimeout: number,
  onRequest: (request: DaemonRequest, rest: Buffer) => void): void {
  const decoder = new PktLineDecoder('git:// request');
  // A deadline, not an idle time: a client dribbling a byte a second is never idle.
  const timer = initTimeout > 0 ? setTimeout(() => refuse(`no request within ${initTimeout} seconds`), initTimeout * 1000) : undefined;
  const stop = () => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('end', onEnd);
  };
  const refuse = (message: string) => {
    stop();
    refuseConnection(socket, message);
  };
  const onData = (chunk: Buffer) => {
    let first;
    try {
      decoder.push(chunk);
      first = decoder.next();
    } catch (e) {
      return refuse((e as Error).message);
    }
    if (!first) return;
    stop();
    socket.pause();
    if (first.type !== 'data') return refuse('expected a git:// request line');
    const request = parseDaemonRequest(first.payload);
    if (!request) return refuse('bad request line');
    onRequest(request, decoder.takeRest());
  };
  // Gone before its request line was whole.
  const onEnd = () => socket.destroy();
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', onData);
  socket.on('end', onEnd);
}
