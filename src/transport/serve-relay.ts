// `tsgit upload-pack <dir>` relayed to a running `tsgit serve`: sshd starts a process per
// connection, and a fresh Node process pays its own start, its modules and the repository's
// opening (refs, .idx, bitmap) before it can answer, ten times git's whole answer to a small
// fetch. With TSGIT_SERVE_SOCKET naming serve's relay socket (serve --socket), the process instead
// opens the socket, sends one git:// request line naming the repository by its absolute path and
// GIT_PROTOCOL as the extra parameters, and copies bytes both ways; a warm worker of the server
// answers, with the server's limits, queue and access log. This is the shape of GitLab's
// gitlab-shell in front of Gitaly. Nothing listening there (no server, or a stale socket), or a
// server that does not serve that repository, means the command serves the request itself, as
// without the variable.
//
// bin/tsgit loads this module alone (its own bundle entry), before the CLI: it must stay small.
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { pktLine } from '../protocol/pkt-line.js';
import { NOT_SERVED } from './daemon-refusals.js';
import { connectUnix } from './unix-socket.js';

/**
 * Relays one upload-pack conversation on stdin/stdout to the server at `socketPath`. Resolves to
 * the exit status, or null when nothing answered there (the caller then serves it itself).
 */
export async function relayUploadPack(socketPath: string, dir: string, cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  const target = realTarget(path.resolve(cwd, dir));
  // Names a request line cannot carry are refused by the command itself, with its own message.
  if (/[\0\n]/.test(target)) return null;
  const socket = await connectUnix(socketPath);
  if (!socket) return null;
  // From here a broken connection shows as its close (with hadError), handled below.
  socket.on('error', () => {});
  let line = `git-upload-pack ${target}\0host=localhost\0`;
  // As git daemon hands them on: each ':'-separated parameter of GIT_PROTOCOL after a second NUL.
  if (env.GIT_PROTOCOL) line += `\0${env.GIT_PROTOCOL.split(':').join('\0')}\0`;
  socket.write(pktLine(line));
  // The client speaks only after the server's first packet (v0's advertisement, v2's
  // capabilities), so stdin is left unread until then: a refusal of the repository (not exported,
  // outside the root) hands the request, stdin untouched, back to the command, which serves it as
  // it would without the variable, with the same user's access to the files.
  const first = await firstChunk(socket);
  if (first === null || REFUSED.test(first.toString('latin1', 0, Math.min(first.length, 128)))) {
    socket.destroy();
    return null;
  }
  process.stdout.write(first);
  // stdin's end half-closes the socket: the server sees the client's EOF as it would over git://.
  process.stdin.pipe(socket);
  socket.pipe(process.stdout);
  // A reader that went away (EPIPE): nobody is left to answer.
  process.stdout.on('error', () => socket.destroy());
  return new Promise(resolve => {
    socket.once('close', hadError => {
      // Whatever the client still sends is not wanted; an open stdin would keep the process alive.
      process.stdin.unpipe(socket);
      process.stdin.destroy();
      resolve(hadError ? 128 : 0);
    });
  });
}

/** The daemon's ERR line for a repository it does not serve. */
const REFUSED = new RegExp(`^[0-9a-f]{4}ERR ${NOT_SERVED}: `);

/** The first bytes the server sends, or null when it closes without any. */
function firstChunk(socket: net.Socket): Promise<Buffer | null> {
  return new Promise(resolve => {
    const done = (chunk: Buffer | null) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      resolve(chunk);
    };
    const onData = (chunk: Buffer) => done(chunk);
    const onClose = () => done(null);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/**
 * The path as the server will find it under its root, which it holds as a real path: the
 * directory's symbolic links resolved, the last name kept (a repository linked into the root is
 * served by its name there, and `<dir>` may mean `<dir>.git`, which the server tries).
 */
function realTarget(p: string): string {
  try {
    return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
  } catch {
    return p;
  }
}
