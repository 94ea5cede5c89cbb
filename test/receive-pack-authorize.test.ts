// The HTTP handler's `authorize` over a push, with git-core as the client: asked for the request
// and then for every ref update (a round trip from the worker that runs receive-pack to the
// callback in the server's process), so that an embedder can protect a branch. A refused ref gets
// git's `ng` with the reason, an atomic push is refused whole, a callback that throws refuses
// cleanly, and neither a client that goes away nor a callback that never answers holds anything.
// Fetches see only the request phases.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PushCommand } from '../src/protocol/index.js';
import type { AuthorizeRequest, AuthorizeResult } from '../src/server/http.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';
import { startLibraryServers, type LibraryServers } from './library-servers.js';
import { assertFsck, commits, quarantines, workRepo } from './push-helpers.js';
import { waitFor } from './serve-process.js';
import { runAsync, type RunResult } from './transport-servers.js';

type UpdateVerdict = (update: PushCommand) => AuthorizeResult | Promise<AuthorizeResult>;

const PROTECT_RELEASE: UpdateVerdict = (u) => (u.name === 'refs/heads/release' ? 'release is protected' : true);

describe('the HTTP handler authorizes every ref update of a push', () => {
  let root: string, work: string, served: string, repo: string;
  let servers: LibraryServers | null = null;
  const seen: string[] = [];
  const logged: string[] = [];
  let onUpdate: UpdateVerdict = PROTECT_RELEASE;

  const authorize = (_req: unknown, r: AuthorizeRequest): AuthorizeResult | Promise<AuthorizeResult> => {
    seen.push(r.phase === 'update' ? `${r.service} update ${r.update!.name}` : `${r.service} ${r.phase}`);
    // An authenticated user may push (http.receivepack's rule); each update is judged on its own.
    return r.phase === 'update' ? onUpdate(r.update!) : { user: 'alice' };
  };
  const pushTo = (args: string[]): Promise<RunResult> =>
    runAsync('git', ['push', '--porcelain', `${servers!.httpBase}/r.git`, ...args], work, GIT_ENV);
  const servedRef = (name: string): string | null => {
    const r = gitOrNull(repo, ['rev-parse', '--verify', '-q', name]);
    return r === null ? null : r.trim();
  };

  before(async () => {
    root = tmpDir('tsgit-rp-authorize-');
    work = workRepo(root, 'work', 3);
    served = path.join(root, 'served');
    repo = path.join(served, 'r.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', repo]);
    git(work, ['push', '-q', repo, 'main']);
    servers = await startLibraryServers({ root: served, authorize, log: (m) => logged.push(m), workers: { size: 1 } });
  });
  after(async () => {
    await servers?.stop();
    rmrf(root);
  });

  test('non-atomic: main is updated, release refused with the reason git shows', async () => {
    commits(work, 1, 'both');
    git(work, ['branch', '-f', 'release', 'main']);
    seen.length = 0;
    const r = await pushTo(['main', 'release']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^ \trefs\/heads\/main:refs\/heads\/main\t[0-9a-f]+\.\.[0-9a-f]+$/m);
    assert.match(r.stdout, /^!\trefs\/heads\/release:refs\/heads\/release\t\[remote rejected\] \(release is protected\)$/m);
    assert.equal(servedRef('main'), git(work, ['rev-parse', 'main']).trim());
    assert.equal(servedRef('refs/heads/release'), null);
    assert.deepEqual(seen, [
      'git-receive-pack advertise', 'git-receive-pack fetch',
      'git-receive-pack update refs/heads/main', 'git-receive-pack update refs/heads/release',
    ]);
  });

  test('atomic: one refusal ({ status, message }) refuses both', async () => {
    const old = servedRef('main');
    commits(work, 1, 'atomic');
    git(work, ['branch', '-f', 'release', 'main']);
    onUpdate = (u) => (u.name === 'refs/heads/release' ? { status: 403, message: 'release needs a review' } : true);
    try {
      const r = await pushTo(['--atomic', 'main', 'release']);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, /^!\trefs\/heads\/main:refs\/heads\/main\t\[remote rejected\] \(atomic push failure\)$/m);
      assert.match(r.stdout, /^!\trefs\/heads\/release:refs\/heads\/release\t\[remote rejected\] \(release needs a review\)$/m);
      assert.equal(servedRef('main'), old);
      assert.equal(servedRef('refs/heads/release'), null);
    } finally {
      onUpdate = PROTECT_RELEASE;
    }
  });

  test('a push of allowed refs only succeeds, and the repository passes git fsck --full', async () => {
    git(work, ['branch', '-f', 'feature', 'main~1']);
    const r = await pushTo(['main', 'feature']);
    assert.equal(r.status, 0, r.stderr);
    for (const b of ['main', 'feature']) assert.equal(servedRef(b), git(work, ['rev-parse', b]).trim());
    assertFsck(repo);
  });

  test('false refuses with the default reason', async () => {
    onUpdate = () => false;
    try {
      git(work, ['branch', '-f', 'other', 'main']);
      const r = await pushTo(['other']);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, /^!\trefs\/heads\/other:refs\/heads\/other\t\[remote rejected\] \(refused by the server\)$/m);
      assert.equal(servedRef('refs/heads/other'), null);
    } finally {
      onUpdate = PROTECT_RELEASE;
    }
  });

  test('an authorize that throws refuses the push cleanly, the error logged; the worker serves the next push', async () => {
    const started = servers!.handler.pool.stats().started;
    commits(work, 1, 'throws');
    onUpdate = () => { throw new Error('the permissions database is down'); };
    try {
      const r = await pushTo(['main']);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, /^!\trefs\/heads\/main:refs\/heads\/main\t\[remote rejected\] \(authorize failed\)$/m);
      assert.doesNotMatch(r.stderr, /permissions database/);
      assert.ok(logged.some((l) => /authorize refs\/heads\/main: the permissions database is down/.test(l)), logged.join('\n'));
    } finally {
      onUpdate = PROTECT_RELEASE;
    }
    const next = await pushTo(['main']);
    assert.equal(next.status, 0, next.stderr);
    assert.equal(servedRef('main'), git(work, ['rev-parse', 'main']).trim());
    assert.equal(servers!.handler.pool.stats().started, started, 'no worker was replaced');
    assertFsck(repo);
  });

  test('a client that goes away while its verdict is pending: nothing moves, nothing is held, the next push works', async () => {
    commits(work, 1, 'gone');
    const old = servedRef('main');
    let release!: (v: AuthorizeResult) => void;
    const asked = new Promise<void>((resolve) => {
      onUpdate = () => {
        resolve();
        return new Promise<AuthorizeResult>((r) => { release = r; });
      };
    });
    try {
      // git push and its git-remote-http in a process group of their own, to be killed together.
      const child = spawn('git', ['push', `${servers!.httpBase}/r.git`, 'main'], { cwd: work, env: GIT_ENV, stdio: 'ignore', detached: true });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // A push that fails before its update is judged would leave `asked` pending for ever.
      await Promise.race([asked, exited.then((code) => { throw new Error(`the push ended (${code}) before authorize was asked about its update`); })]);
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      const pool = servers!.handler.pool;
      await waitFor('the killed worker\'s job to be over', () => servers!.handler.inFlight === 0 && pool.stats().queued === 0 && pool.stats().workers.every((w) => !w.busy));
      // The verdict comes once the job is over: nobody takes it.
      release(true);
      // Once the killed worker has exited, the server removes what it left; the late verdict
      // moved nothing meanwhile.
      await waitFor('the quarantine to be removed', () => quarantines(repo).length === 0);
      assert.equal(servedRef('main'), old);
    } finally {
      onUpdate = PROTECT_RELEASE;
    }
    const next = await pushTo(['main']);
    assert.equal(next.status, 0, next.stderr);
    assert.equal(servedRef('main'), git(work, ['rev-parse', 'main']).trim());
    assertFsck(repo);
  });

  test('fetches ask authorize for the request phases only', async () => {
    seen.length = 0;
    const clone = path.join(root, 'clone');
    const r = await runAsync('git', ['clone', '-q', `${servers!.httpBase}/r.git`, clone], root, GIT_ENV);
    assert.equal(r.status, 0, r.stderr);
    const f = await runAsync('git', ['fetch', '-q', 'origin', 'feature'], clone, GIT_ENV);
    assert.equal(f.status, 0, f.stderr);
    assert.ok(seen.length >= 4, seen.join('\n'));
    for (const s of seen) assert.match(s, /^git-upload-pack (advertise|fetch)$/);
  });
});

test('an authorize that never answers: the request time ends the push, and the next one works', { timeout: 60_000 }, async () => {
  const root = tmpDir('tsgit-rp-authorize-hang-');
  const work = workRepo(root, 'work', 2);
  const repo = path.join(root, 'served', 'r.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', repo]);
  let hang = true;
  const servers = await startLibraryServers({
    root: path.join(root, 'served'),
    authorize: (_req, r) => (r.phase !== 'update' ? { user: 'alice' } : hang ? new Promise<AuthorizeResult>(() => undefined) : true),
    workers: { size: 1, maxRequestTime: 3 },
  });
  try {
    const r = await runAsync('git', ['push', `${servers.httpBase}/r.git`, 'main'], work, GIT_ENV);
    assert.notEqual(r.status, 0, r.stderr);
    assert.match(r.stderr, /RPC failed|the remote end hung up/);
    assert.equal(gitOrNull(repo, ['rev-parse', '--verify', '-q', 'main']), null);
    await waitFor('the quarantine to be removed', () => quarantines(repo).length === 0);
    hang = false;
    const next = await runAsync('git', ['push', `${servers.httpBase}/r.git`, 'main'], work, GIT_ENV);
    assert.equal(next.status, 0, next.stderr);
    assert.equal(git(repo, ['rev-parse', 'main']), git(work, ['rev-parse', 'main']));
    assertFsck(repo);
  } finally {
    await servers.stop();
    rmrf(root);
  }
});

/** git's stdout, or null when it fails (a ref that is not there). */
function gitOrNull(cwd: string, args: string[]): string | null {
  try {
    return git(cwd, args);
  } catch {
    return null;
  }
}

