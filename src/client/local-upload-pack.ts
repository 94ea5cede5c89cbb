// A local remote (a path or a file:// URL) served by tsgit's upload-pack in this process. git
// starts git-upload-pack as a child for it, and tsgit did the same with itself: a second Node
// process, whose start (~0.1 s of CPU before it reads a byte) was most of a small local fetch's
// cost. The conversation is the same bytes over a pair of in-memory pipes, so the client cannot
// tell the difference: the server reads its repository with the environment git would give the
// child (git's repository-local variables removed, the protocol version in GIT_PROTOCOL), its
// warnings and its fatal error reach the client's stderr as the child's would, and the client
// then sees the remote hang up as it would see the child exit.
//
// A child is still started where git's choice of program matters: a program named with
// --upload-pack (or remote.<name>.uploadpack), a push (receive-pack runs hooks in its own
// process), or a running `tsgit serve` to relay to (TSGIT_SERVE_SOCKET, bin/tsgit).
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fatalText, GitError } from '../core/errors.js';
import { streamSink } from '../core/stream-sink.js';
import { Repository } from '../repository/repository.js';
import { enterRepo } from '../server/enter-repo.js';
import { uploadPack } from '../server/upload-pack.js';
import {
  connect, namedServiceProgram, protocolParameter, StreamConnection, withoutLocalRepoEnv,
  type Connection, type ConnectOptions, type RemoteUrl,
} from '../transport/index.js';

/** Bytes either pipe holds before the writer waits: a Linux pipe's capacity. */
const PIPE_BYTES = 64 * 1024;

/**
 * Packs larger than this are served by a child. It works beside the client on another core, which
 * pays once the server's work outweighs a process start: cloning the 341 MiB `large` corpus took
 * 26.7-26.9 s served here against 25.0-26.1 s by a child.
 */
const SERVED_HERE_MAX_PACK_BYTES = 32 << 20;

/** Opens a connection to the remote's service: in this process when tsgit's own upload-pack serves a small local repository. */
export async function connectRemote(url: RemoteUrl, options: ConnectOptions = {}): Promise<Connection> {
  const clientEnv = options.env ?? process.env;
  const own = (options.service ?? 'git-upload-pack') === 'git-upload-pack' && namedServiceProgram(options) === undefined
    && !clientEnv.TSGIT_SERVE_SOCKET;
  if (url.kind !== 'file' || !own) return connect(url, options);
  const env = withoutLocalRepoEnv(clientEnv);
  let repo: Repository | GitError;
  try {
    // The path as given, from where it was given, as the child is started: the error names it
    // so ("'../x' does not appear to be a git repository").
    repo = new Repository(enterRepo(url.given, false, url.cwd), null, { env });
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    repo = e;
  }
  if (repo instanceof Repository && packedBytes(path.join(repo.commonDir, 'objects')) > SERVED_HERE_MAX_PACK_BYTES) {
    repo.close();
    return connect(url, options);
  }
  return serveHere(url, options, env, repo);
}

/** The size of the repository's packs; what cannot be read counts as nothing (the server will say). */
function packedBytes(objectsDir: string): number {
  let total = 0;
  try {
    for (const e of fs.readdirSync(path.join(objectsDir, 'pack'))) {
      if (e.endsWith('.pack')) total += fs.statSync(path.join(objectsDir, 'pack', e), { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    return 0;
  }
  return total;
}

/** Serves `opened` (or says why it could not be opened) over in-memory pipes. */
function serveHere(target: Extract<RemoteUrl, { kind: 'file' }>, options: ConnectOptions, env: NodeJS.ProcessEnv,
  opened: Repository | GitError): Connection {
  const protocol = protocolParameter(options.protocolVersion ?? 2) ?? undefined;
  const onStderr = options.onStderr ?? ((chunk: Buffer) => process.stderr.write(chunk));
  const toServer = new PassThrough({ highWaterMark: PIPE_BYTES });
  const toClient = new PassThrough({ highWaterMark: PIPE_BYTES });
  const abort = new AbortController();
  let killed = false;
  // What the child's last words would have been: one fatal line on stderr, as bin/tsgit prints
  // it. upload-pack tells the client of its own refusals (an ERR line, or band 3 once the pack has
  // started), which the client reports as the remote's error, so those are not said twice.
  const die = (e: unknown): never => {
    if (!killed && !abort.signal.aborted) onStderr(Buffer.from(`fatal: ${fatalText(e)}\n`));
    throw e;
  };
  const served = (async () => {
    if (opened instanceof GitError) return die(opened);
    const repo = opened;
    repo.warn = (text) => onStderr(Buffer.from(text));
    repo.shownObjectsDir = './objects';
    try {
      await uploadPack(repo, {
        input: toServer, output: streamSink(toClient, abort.signal), protocol, env,
        signal: abort.signal, source: 'upload-pack stdin',
      });
    } catch (e) {
      if (e instanceof GitError) throw e;
      die(e);
    } finally {
      repo.close();
    }
  })();
  const exit = served.then(
    () => { hangUp(); },
    (e: unknown) => {
      hangUp();
      if (!killed && !abort.signal.aborted) throw new GitError('transport', 'remote-hung-up', 'the remote end hung up unexpectedly', { cause: e });
    });
  // As the child's stdin is closed when it exits: a later write fails rather than waiting forever.
  function hangUp(): void {
    toClient.end();
    toServer.destroy();
  }
  // Without a listener a failure before anyone asks would be an unhandled rejection.
  exit.catch(() => {});
  return new StreamConnection({
    name: target.display,
    input: toClient,
    output: toServer,
    finished: () => exit,
    kill: () => {
      killed = true;
      abort.abort();
      toServer.destroy();
      toClient.destroy();
    },
  });
}
