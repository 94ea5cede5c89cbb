// git-core servers on loopback for the client tests, each started and stopped by the test that
// uses it: `git daemon`, `git http-backend` behind a small CGI bridge, an ssh stand-in for
// GIT_SSH_COMMAND that runs the remote command locally, and raw TCP servers that misbehave.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseCgiHead } from '../bench/cgi-head.js';
import { git, GIT_ENV } from './helpers.js';

export type ProtocolVersion = 0 | 2;

/** A GIT_CONFIG_GLOBAL file that makes both git and tsgit speak `version`. */
export function clientEnv(dir: string, version: ProtocolVersion, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const file = path.join(dir, `gitconfig-v${version}`);
  fs.writeFileSync(file, `[protocol]\n\tversion = ${version}\n[init]\n\tdefaultBranch = main\n`);
  return { ...GIT_ENV, GIT_CONFIG_GLOBAL: file, ...extra };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nothing listens on port ${port}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

export interface Server {
  /** URL of repository `name` (a directory under the server's root). */
  url(name: string): string;
  stop(): Promise<void>;
}

/** git daemon --export-all --base-path=<root> on a free loopback port; `extra`: more options (--enable=receive-pack). */
export async function startDaemon(root: string, extra: string[] = []): Promise<Server & { port: number }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn('git', ['daemon', '--export-all', `--base-path=${root}`, '--listen=127.0.0.1', `--port=${port}`,
      '--reuseaddr', '--informative-errors', ...extra, root], { env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.resume();
    try {
      await waitForPort(port, child);
    } catch (e) {
      await stopChild(child);
      if (attempt < 3) continue;
      throw e;
    }
    return { port, url: (name) => `git://127.0.0.1:${port}/${name}`, stop: () => stopChild(child) };
  }
}

export interface HttpServerOptions {
  /** Paths under /redirect/ answer 301 to the same path without it (for info/refs only). */
  readonly redirects?: boolean;
  /** Paths under /auth/ need these credentials (Basic). */
  readonly credentials?: { username: string; password: string };
  /** gzip every response body. */
  readonly gzip?: boolean;
  /** Answer info/refs as a dumb server would (text/plain). */
  readonly dumb?: boolean;
  /** Serve HTTPS with this key and certificate (PEM). */
  readonly tls?: { key: string; cert: string };
}

export interface HttpServer extends Server {
  readonly port: number;
  /** Requests seen, as "METHOD path?query [Git-Protocol] [Content-Encoding]". */
  readonly log: string[];
}

/**
 * A loopback HTTP server that runs `git http-backend` per request as a CGI program: the request's
 * method, path, query, content type and Git-Protocol header become its environment, the body its
 * stdin; its "Status:" and other headers become the response's.
 */
export async function startHttpBackend(root: string, options: HttpServerOptions = {}): Promise<HttpServer> {
  const log: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let pathInfo = decodeURIComponent(url.pathname);
    log.push([req.method, `${url.pathname}${url.search}`, req.headers['git-protocol'], req.headers['content-encoding']]
      .filter((x) => x !== undefined).join(' '));
    if (pathInfo.startsWith('/redirect/') && options.redirects) {
      res.writeHead(301, { Location: `${pathInfo.slice('/redirect'.length)}${url.search}` });
      res.end();
      return;
    }
    if (pathInfo.startsWith('/auth/')) {
      const want = options.credentials!;
      const expected = `Basic ${Buffer.from(`${want.username}:${want.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="tsgit test"' });
        res.end();
        return;
      }
      pathInfo = pathInfo.slice('/auth'.length);
    }
    if (options.dumb) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('0000000000000000000000000000000000000000\trefs/heads/main\n');
      return;
    }
    const env: NodeJS.ProcessEnv = {
      ...GIT_ENV, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: pathInfo,
      QUERY_STRING: url.search.slice(1), REQUEST_METHOD: req.method ?? 'GET', REMOTE_ADDR: '127.0.0.1',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
    };
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
    if (req.headers['git-protocol']) env.GIT_PROTOCOL = req.headers['git-protocol'] as string;
    const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => {});
    let head = Buffer.alloc(0);
    let body: NodeJS.WritableStream | null = null;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (body) { body.write(chunk); return; }
      head = Buffer.concat([head, chunk]);
      const parsed = parseCgiHead(head);
      if (!parsed) return;
      const { status, headers } = parsed;
      if (options.gzip) {
        headers['Content-Encoding'] = 'gzip';
        delete headers['Content-Length'];
        res.writeHead(status, headers);
        const gz = zlib.createGzip();
        gz.pipe(res);
        body = gz;
      } else {
        res.writeHead(status, headers);
        body = res;
      }
      const rest = head.subarray(parsed.bodyStart);
      if (rest.length) body.write(rest);
    });
    cgi.stdout.on('end', () => {
      if (body) body.end();
      else { res.writeHead(502); res.end(); }
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const scheme = options.tls ? 'https' : 'http';
  return {
    port, log,
    url: (name) => `${scheme}://127.0.0.1:${port}/${name}`,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * A stand-in for ssh, named `ssh` so tsgit and git both take it for OpenSSH: it records its
 * arguments (one line per call) and runs the remote command locally with sh.
 */
export function makeSshShim(dir: string): { command: string; log: string } {
  const command = path.join(dir, 'ssh');
  const log = path.join(dir, 'ssh.log');
  fs.writeFileSync(command, `#!/bin/sh
printf '%s|' "$@" >> '${log}'
printf 'GIT_PROTOCOL=%s\\n' "$GIT_PROTOCOL" >> '${log}'
while [ $# -gt 0 ]; do
  case "$1" in
    -G) exit 0 ;;
    -o|-p|-P) shift 2 ;;
    -batch) shift ;;
    *) break ;;
  esac
done
shift
exec sh -c "$*"
`, { mode: 0o755 });
  return { command, log };
}

/**
 * A TCP server that answers every connection with `respond` (which gets the socket and the first
 * bytes the client sent), for servers that send garbage or hang up.
 */
export async function startRawServer(respond: (socket: net.Socket, first: Buffer) => void): Promise<Server & { port: number }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (first) => respond(socket, first));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: (name) => `git://127.0.0.1:${port}/${name}`,
    stop: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

/**
 * A proxy in front of another TCP server that passes the server's answer through only up to
 * `limit` bytes, then either cuts the connection or stalls (never sends more, never closes).
 */
export async function startCuttingProxy(targetPort: number, limit: number, mode: 'cut' | 'stall'): Promise<Server & { port: number; forwarded(): number }> {
  let forwarded = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.pipe(upstream);
    let sent = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (sent >= limit) return;
      const room = limit - sent;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      sent += part.length;
      forwarded += part.length;
      client.write(part);
      if (sent >= limit) {
        if (mode === 'cut') { client.destroy(); upstream.destroy(); }
        else upstream.pause();
      }
    });
    upstream.on('end', () => { if (sent < limit) client.end(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port, forwarded: () => forwarded,
    url: (name) => `git://127.0.0.1:${port}/${name}`,
    stop: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

/** The first commit time of the test repositories (their commits follow at known offsets). */
export const T0 = 1700000000;

function fastImport(dir: string, lines: string[], force = false): void {
  git(dir, ['fast-import', '--quiet', ...(force ? ['--force'] : [])], lines.join('\n') + '\n');
}

let commitClock = 0;

/**
 * A bare repository to serve: main with nested directories, an executable and a symlink, a side
 * branch, an annotated tag, a tag of that tag and a lightweight tag; filters allowed.
 */
export function makeServerRepo(dir: string, commits = 6): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const lines: string[] = [];
  for (let i = 1; i <= commits; i++) {
    lines.push('commit refs/heads/main', `mark :${i}`, `committer C O Mitter <c@example.com> ${T0 + i * 3600} +0000`,
      `data ${`main ${i}\n`.length}`, `main ${i}`);
    if (i > 1) lines.push(`from :${i - 1}`);
    const body = Array.from({ length: 40 + i }, (_, k) => `line ${k} of commit ${Math.min(i, k)}\n`).join('');
    lines.push(`M 100644 inline src/dir${i % 3}/file${i}.txt`, `data ${Buffer.byteLength(body)}`, body);
    lines.push('M 100755 inline bin/run.sh', `data ${`#!/bin/sh\necho ${i}\n`.length}`, `#!/bin/sh\necho ${i}\n`);
    if (i === 1) lines.push('M 120000 inline link', 'data 10', 'src/dir1/x');
  }
  lines.push('commit refs/heads/side', 'mark :100', `committer C O Mitter <c@example.com> ${T0 + 2 * 3600 + 60} +0000`,
    'data 5', 'side', 'from :2', 'M 100644 inline side.txt', 'data 5', 'side');
  fastImport(dir, lines);
  git(dir, ['tag', '-a', '-m', 'release 1', 'v1', 'main~1']);
  git(dir, ['tag', '-a', '-m', 'tag of a tag', 'v1-again', 'v1']);
  git(dir, ['tag', 'light', 'main~3']);
  git(dir, ['config', 'uploadpack.allowFilter', 'true']);
  // A partial clone's checkout asks for blobs no ref points at; v0 allows that only when told to.
  git(dir, ['config', 'uploadpack.allowReachableSHA1InWant', 'true']);
}

/** Adds `n` commits on `branch` of a bare repository; returns the new tip. */
export function addCommits(dir: string, branch: string, n: number, tag = 'more'): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = T0 + 86400 * 30 + ++commitClock * 60;
    lines.push(`commit refs/heads/${branch}`, `committer C O Mitter <c@example.com> ${t} +0000`,
      `data ${`${tag} ${i}\n`.length}`, `${tag} ${i}`);
    if (i === 0) lines.push(`from refs/heads/${branch}^0`);
    lines.push(`M 100644 inline ${tag}/${branch}-${commitClock}.txt`, `data ${`${tag} ${commitClock}\n`.length}`, `${tag} ${commitClock}`);
  }
  fastImport(dir, lines);
  return git(dir, ['rev-parse', `refs/heads/${branch}`]).trim();
}

/** Replaces the tip of `branch` with a sibling commit (what a force-push does); returns it. */
export function rewriteTip(dir: string, branch: string): string {
  const t = T0 + 86400 * 30 + ++commitClock * 60;
  fastImport(dir, [`commit refs/heads/${branch}`, `committer C O Mitter <c@example.com> ${t} +0000`,
    'data 10', 'rewritten', `from refs/heads/${branch}^1`,
    `M 100644 inline rewritten-${commitClock}.txt`, 'data 4', 'new'], true);
  return git(dir, ['rev-parse', `refs/heads/${branch}`]).trim();
}

export interface TransportUnderTest {
  readonly name: 'git daemon' | 'http-backend' | 'file' | 'ssh';
  /** The URL of repository `repo` under the servers' root. */
  url(repo: string): string;
  /** Arguments both git and tsgit need (--upload-pack for the file transport). */
  readonly args: string[];
  /** Environment both need (GIT_SSH_COMMAND for ssh). */
  readonly env: NodeJS.ProcessEnv;
}

/** Every git-core server over `root`: git daemon, http-backend, git-upload-pack (file), ssh shim. */
export async function startServers(root: string, scratch: string): Promise<{ transports: TransportUnderTest[]; stop(): Promise<void> }> {
  const daemon = await startDaemon(root);
  const httpd = await startHttpBackend(root);
  const ssh = makeSshShim(scratch);
  const transports: TransportUnderTest[] = [
    { name: 'git daemon', url: daemon.url, args: [], env: {} },
    { name: 'http-backend', url: httpd.url, args: [], env: {} },
    { name: 'file', url: (r) => `file://${root}/${r}`, args: ['--upload-pack', 'git-upload-pack'], env: {} },
    { name: 'ssh', url: (r) => `ssh://localhost${root}/${r}`, args: [], env: { GIT_SSH_COMMAND: ssh.command } },
  ];
  return { transports, stop: async () => { await daemon.stop(); await httpd.stop(); } };
}

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without blocking the event loop, so servers living in this process (the HTTP
 * bridge, the raw servers) can answer it.
 */
export function runAsync(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv,
  onSpawn?: (child: ChildProcess) => void): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [], err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({
      status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
    }));
    onSpawn?.(child);
  });
}
