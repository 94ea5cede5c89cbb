// `tsgit serve` as an operator runs it, for the load and limit tests: a process on loopback with
// its URLs read from its banner, its workers and memory read from /proc, its access log parsed; and
// the clients that misbehave against it (one that stops reading mid-pack, one that reads slowly,
// one that dribbles), each test stopping what it started.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, pktBytes, rmrf, TSGIT } from './helpers.js';

export interface Served {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly httpUrl: string;
  readonly gitUrl: string;
  readonly httpPort: number;
  readonly gitPort: number;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** The access log's lines so far, parsed. */
  access(): AccessLine[];
  /** Sends `signal` (default SIGTERM) and resolves with how it exited. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface AccessLine {
  start: number;
  client: string;
  transport: string;
  repository: string;
  service: string;
  protocol: string;
  status: string;
  outcome: string;
  fields: Record<string, string>;
  wait: number;
  time: number;
  reason: string | null;
  raw: string;
}

export function parseAccessLine(line: string): AccessLine {
  const quoted = line.indexOf(' "');
  const reason = quoted < 0 ? null : JSON.parse(line.slice(quoted + 1)) as string;
  const parts = (quoted < 0 ? line : line.slice(0, quoted)).split(' ');
  const fields: Record<string, string> = {};
  for (const p of parts.slice(8)) {
    const eq = p.indexOf('=');
    if (eq > 0) fields[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return {
    start: Date.parse(parts[0]!), client: parts[1]!, transport: parts[2]!, repository: parts[3]!, service: parts[4]!,
    protocol: parts[5]!, status: parts[6]!, outcome: parts[7]!, fields, wait: Number(fields.wait) * 1000,
    time: Number(fields.time) * 1000, reason, raw: line,
  };
}

/** Starts `tsgit serve` on free loopback ports over `root` (export-all, two workers unless `args` say otherwise). */
export async function startServe(root: string, work: string, args: string[] = [], env: NodeJS.ProcessEnv = GIT_ENV): Promise<Served> {
  const log = path.join(work, `access-${crypto.randomBytes(4).toString('hex')}.log`);
  const proc = spawn(process.execPath, [TSGIT, 'serve', '--port', '0', '--git-port', '0', '--export-all', '--workers', '2',
    '--access-log', log, ...args, root], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  proc.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
    proc.on('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 20_000;
  let m: RegExpMatchArray | null = null;
  while (!(m = /smart HTTP: (http:\/\/127\.0\.0\.1:(\d+))\/\n\s+git:\/\/:\s+(git:\/\/127\.0\.0\.1:(\d+))\//.exec(stdout))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`tsgit serve did not start: ${stderr}`);
    }
    await sleep(25);
  }
  return {
    proc, pid: proc.pid!, httpUrl: m[1]!, httpPort: Number(m[2]), gitUrl: m[3]!, gitPort: Number(m[4]),
    stderr: () => stderr,
    access: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').split('\n').filter(Boolean).map(parseAccessLine),
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
    exited,
  };
}

/**
 * Runs `body` against a `tsgit serve` started as startServe starts it, and makes sure the server is
 * gone when `body` returns or throws (`body` may stop it itself, to see how it exits).
 */
export async function withServe<T>(root: string, work: string, args: string[], body: (s: Served) => Promise<T>,
  env: NodeJS.ProcessEnv = GIT_ENV): Promise<T> {
  const s = await startServe(root, work, args, env);
  try {
    return await body(s);
  } finally {
    await ensureStopped(s);
  }
}

/** Makes sure a server a test started is gone, whatever happened in the test. */
async function ensureStopped(s: Served): Promise<void> {
  if (s.proc.exitCode !== null || s.proc.signalCode !== null) return;
  s.proc.kill('SIGKILL');
  await s.exited;
  // Its workers end when their stdin does; a busy one may need a moment.
  await waitFor('the server\'s workers to exit', () => workersOf(s.pid).length === 0, 10_000);
}

export function sleep(ms: number): Promise<void> {
  return new Promise(r => setTimeout(r, ms));
}

export async function waitFor(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** The worker processes of server `pid`. */
export function workersOf(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout;
  return out.split('\n').map(l => Number(l.trim())).filter(n => n > 0);
}

/** Resident memory of process `pid`, in bytes (0 once it is gone). */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of the server and its workers, in bytes. */
export function treeRss(pid: number): number {
  return [pid, ...workersOf(pid)].reduce((sum, p) => sum + rssOf(p), 0);
}

/** A v0 fetch of `want`, as one request body (no progress, so the answer's bytes are the same every time). */
export function fetchBody(want: string): Buffer {
  return Buffer.concat([pktBytes(`want ${want} side-band-64k ofs-delta no-progress\n`), Buffer.from('0000'), pktBytes('done\n')]);
}

/** A client whose reading the test controls: paused, resumed, or read to its end. */
export interface ControlledReader {
  /** Bytes received so far. */
  received(): number;
  pause(): void;
  resume(): void;
  /** Reads about `bytes` more (a chunk at least), then pauses again. */
  allow(bytes: number): void;
  /** Settles once the server has ended or cut the answer: `complete` says whether it ended. */
  readonly done: Promise<{ complete: boolean; bytes: number; data: Buffer }>;
  destroy(): void;
}

function controlled(stream: net.Socket | http.IncomingMessage, onEnd: (complete: boolean) => void, keep: boolean,
  pauseAt: number): { reader: Omit<ControlledReader, 'done' | 'destroy'>; chunks: Buffer[] } {
  let bytes = 0;
  let limit = pauseAt;
  const chunks: Buffer[] = [];
  stream.on('data', (d: Buffer) => {
    bytes += d.length;
    if (keep) chunks.push(d);
    if (bytes >= limit) stream.pause();
  });
  stream.on('end', () => onEnd(true));
  stream.on('close', () => onEnd(false));
  stream.on('error', () => onEnd(false));
  const reader = {
    received: () => bytes,
    pause: () => stream.pause(),
    resume: () => {
      limit = Infinity;
      stream.resume();
    },
    allow: (n: number) => {
      limit = bytes + n;
      stream.resume();
    },
  };
  return { reader, chunks };
}

/** POSTs `body` to `<url>/git-upload-pack` and hands back the answer's reader, paused after `pauseAt` bytes. */
export function postUploadPack(url: string, body: Buffer, pauseAt = Infinity, keep = false): Promise<ControlledReader> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/git-upload-pack`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' }, agent: false,
    }, res => {
      let settle!: (r: { complete: boolean; bytes: number; data: Buffer }) => void;
      const done = new Promise<{ complete: boolean; bytes: number; data: Buffer }>(r => { settle = r; });
      let finished = false;
      const { reader, chunks } = controlled(res, complete => {
        if (finished) return;
        finished = true;
        settle({ complete: complete && res.complete, bytes: reader.received(), data: Buffer.concat(chunks) });
      }, keep, pauseAt);
      res.on('aborted', () => {
        if (finished) return;
        finished = true;
        settle({ complete: false, bytes: reader.received(), data: Buffer.concat(chunks) });
      });
      resolve({ ...reader, done, destroy: () => req.destroy() });
    });
    req.on('error', e => (req.destroyed ? undefined : reject(e)));
    req.end(body);
  });
}

/** Opens git://<repo>, reads the v0 advertisement, asks for its HEAD, and hands back the pack's reader, paused after `pauseAt` bytes. */
export function fetchOverGit(port: number, repo: string, pauseAt = Infinity): Promise<ControlledReader> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', reject);
    socket.write(pktBytes(`git-upload-pack /${repo}\0host=127.0.0.1\0`));
    let head = Buffer.alloc(0);
    const onAdvert = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      if (!head.includes('0000')) return;
      socket.off('data', onAdvert);
      socket.off('error', reject);
      const want = head.toString('latin1', 4, 44);
      socket.write(fetchBody(want));
      let settle!: (r: { complete: boolean; bytes: number; data: Buffer }) => void;
      const done = new Promise<{ complete: boolean; bytes: number; data: Buffer }>(r => { settle = r; });
      let finished = false;
      // A killed worker's socket ends as a finished one does: the answer is whole when its last
      // packet is the flush after the pack.
      let tail = '';
      socket.on('data', (d: Buffer) => { tail = (tail + d.toString('latin1', Math.max(0, d.length - 4))).slice(-4); });
      const { reader } = controlled(socket, ended => {
        if (finished) return;
        finished = true;
        settle({ complete: ended && tail === '0000', bytes: reader.received(), data: Buffer.alloc(0) });
      }, false, pauseAt);
      resolve({ ...reader, done, destroy: () => socket.destroy() });
    };
    socket.on('data', onAdvert);
  });
}

/** A bare repository under `root` whose pack is about `mib` MiB of incompressible bytes, in `files` blobs. */
export function makeBigRepo(root: string, name: string, mib: number, files = mib): string {
  const dir = path.join(root, name);
  const src = makeRepo(1);
  try {
    for (let i = 0; i < files; i++) fs.writeFileSync(path.join(src, `noise-${i}.bin`), crypto.randomBytes(Math.ceil(mib * 1024 * 1024 / files)));
    git(src, ['add', '.']);
    git(src, ['commit', '-qm', 'noise']);
    git(path.dirname(dir), ['clone', '-q', '--bare', src, dir]);
  } finally {
    rmrf(src);
  }
  return dir;
}
