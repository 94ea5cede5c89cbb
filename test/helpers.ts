// Shared test scaffolding: temporary repositories built with git-core (the oracle), and a way to
// run the tsgit CLI as a user would.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAST_IMPORT_MALLOC } from '../bench/fast-import-malloc.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TSGIT = path.join(ROOT, 'bin', 'tsgit');

/** Environment that makes git deterministic and blind to the user's own configuration. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  HOME: os.tmpdir(),
  GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'C O Mitter', GIT_COMMITTER_EMAIL: 'committer@example.com',
  GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000',
  LC_ALL: 'C', TZ: 'UTC',
};

export function tmpDir(prefix = 'tsgit-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function rmrf(p: string): void {
  fs.rmSync(p, { recursive: true, force: true });
}

export { FAST_IMPORT_MALLOC };

/** Runs git and returns stdout as a Buffer; throws with git's stderr on failure. */
export function gitBuf(cwd: string, args: string[], input?: string | Buffer, env: NodeJS.ProcessEnv = GIT_ENV): Buffer {
  if (args.includes('fast-import')) env = { ...env, ...FAST_IMPORT_MALLOC };
  return execFileSync('git', args, { cwd, env, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
}

export function git(cwd: string, args: string[], input?: string | Buffer, env?: NodeJS.ProcessEnv): string {
  return gitBuf(cwd, args, input, env).toString('utf8');
}

/** Runs the tsgit CLI; never throws, so tests can assert on status and stderr. */
export function tsgit(cwd: string, args: string[], input?: string | Buffer, env: NodeJS.ProcessEnv = GIT_ENV): SpawnSyncReturns<Buffer> {
  return spawnSync(process.execPath, [TSGIT, ...args], { cwd, env, input, maxBuffer: 1 << 30 });
}

/**
 * tsgit() with a time limit, for commands that wait on worker threads: a run it has to kill fails
 * the test (a walk waiting on a worker that died would otherwise hang the suite).
 */
export function tsgitWithin(cwd: string, args: string[], env: NodeJS.ProcessEnv, ms = 60_000): SpawnSyncReturns<Buffer> {
  const r = spawnSync(process.execPath, [TSGIT, ...args], { cwd, env, maxBuffer: 1 << 30, timeout: ms });
  assert.equal(r.signal, null, `tsgit ${args.join(' ')} did not finish (${r.signal})`);
  return r;
}

/**
 * A fresh repository with `commits` commits touching a few files in nested directories: at `at`
 * (made, with any missing parents: a served root, say), else in a new temporary directory.
 */
export function makeRepo(commits = 5, opts: { bare?: boolean; at?: string } = {}): string {
  const dir = opts.at ?? tmpDir();
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main', ...(opts.bare ? ['--bare'] : []), '.']);
  const lines: string[] = [];
  for (let i = 1; i <= commits; i++) {
    lines.push('commit refs/heads/main', `mark :${i}`,
      `committer C O Mitter <committer@example.com> ${1700000000 + i * 60} +0000`,
      `data ${`commit ${i}\n`.length}`, `commit ${i}`);
    if (i > 1) lines.push(`from :${i - 1}`);
    const body = `file contents ${i}\n`.repeat(i);
    lines.push(`M 100644 inline dir${i % 3}/sub/file${i % 4}.txt`, `data ${Buffer.byteLength(body)}`, body);
    lines.push(`M 100755 inline run.sh`, `data 10`, `#!/bin/sh${i % 10}`);
  }
  lines.push('');
  git(dir, ['fast-import', '--quiet'], lines.join('\n'));
  if (!opts.bare) git(dir, ['checkout', '-q', 'main']);
  return dir;
}

export const FIXTURES = '/usr/share/doc/libgit2-fixtures/examples';

/** A pkt-line as text: four hex digits of length (of its UTF-8 bytes, plus four), then the line. */
export function pkt(line: string): string {
  return (Buffer.byteLength(line) + 4).toString(16).padStart(4, '0') + line;
}

/** pkt(), as the bytes that go on the wire. */
export function pktBytes(line: string): Buffer {
  return Buffer.from(pkt(line));
}

export interface HttpReply { status: number; body: Buffer; headers: http.IncomingHttpHeaders }

/**
 * One raw HTTP request to the server at `base` and its whole answer. The path is sent exactly as
 * given, not normalised; a function body writes (and ends) the request itself.
 */
export function httpRequest(base: string, method: string, rawPath: string, body?: Buffer | ((req: http.ClientRequest) => void),
  headers: Record<string, string> = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/`, { method, path: rawPath, headers }, res => {
      const chunks: Buffer[] = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (typeof body === 'function') body(req);
    else req.end(body);
  });
}

/** A smart HTTP service request: `body` POSTed to `<base><repoPath>/git-<service>`. */
export function postService(base: string, repoPath: string, service: 'upload-pack' | 'receive-pack', body: Buffer,
  headers: Record<string, string> = {}): Promise<HttpReply> {
  return httpRequest(base, 'POST', `${repoPath}/git-${service}`, body, { 'Content-Type': `application/x-git-${service}-request`, ...headers });
}

/** A deterministic generator (mulberry32) of floats in [0, 1), so that a failure reproduces. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** seededRandom's draws as whole numbers below `n`, for picking from a list. */
export function seededInt(seed: number): (n: number) => number {
  const random = seededRandom(seed);
  return (n) => Math.floor(random() * n);
}

/**
 * Every file under `dir` but the objects and hooks of `.git` and of a bare `<name>.git` (as
 * relative path -> bytes, latin1), `dir`
 * in them as `placeholder`; with `directories`, every directory too (as "<path>/"), so that one
 * left behind empty shows. For tests that compare what git and tsgit leave in two copies.
 */
export function repositorySnapshot(dir: string, placeholder: string, directories = false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (/(^|[/.])git\/(objects|hooks)$/.test(rel)) continue;
      if (e.isDirectory()) {
        if (directories) out.set(`${rel}/`, '');
        walk(p);
      } else {
        out.set(rel, fs.readFileSync(p).toString('latin1').replaceAll(dir, placeholder));
      }
    }
  };
  walk(dir);
  return out;
}
