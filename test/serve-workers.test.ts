// `tsgit serve` with its pool of long-lived upload-pack workers, with git-core as the client on
// loopback: sequential requests reuse one warm worker; what git changes in the served repository
// between fetches (new commits as loose objects, new and deleted refs, packed-refs, a bitmapped
// repack) is what the next fetch sees; a client hanging up mid-pack and a worker killed from outside
// leave the pool serving; workers are recycled after their request budget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { git, GIT_ENV, makeRepo, pkt, pktBytes, rmrf, tmpDir } from './helpers.js';
import { serve, type RunningServer } from '../src/server/serve.js';

const run = promisify(execFile);

let work: string;
let root: string;
let served: string;
let editor: string;

before(() => {
  work = tmpDir('tsgit-serve-workers-');
  root = path.join(work, 'root');
  served = makeRepo(20, { bare: true, at: path.join(root, 'project.git') });
  git(served, ['repack', '-adbq']);
  editor = path.join(work, 'editor');
  git(work, ['clone', '-q', served, editor]);
});

after(() => rmrf(work));

/** git run without blocking the event loop the server in this process needs. */
async function gitAsync(cwd: string, args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: GIT_ENV, maxBuffer: 1 << 28 })).stdout;
}

function serverRefs(): string {
  return git(served, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags']);
}

/** The client's view of the server's refs after a fetch, renamed back to the server's names. */
function fetchedRefs(clone: string): string {
  return git(clone, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/remotes/origin', 'refs/tags'])
    .split('\n').filter(l => l && !l.endsWith('/HEAD'))
    .map(l => l.replace(' refs/remotes/origin/', ' refs/heads/'))
    .sort((a, b) => (a.split(' ')[1]! < b.split(' ')[1]! ? -1 : 1)).join('\n') + '\n';
}

function commitInEditor(message: string): void {
  fs.writeFileSync(path.join(editor, `${message}.txt`), `${message}\n`);
  git(editor, ['add', '.']);
  git(editor, ['commit', '-qm', message]);
}

async function withServer(options: Parameters<typeof serve>[0]['workers'], fn: (s: RunningServer) => Promise<void>): Promise<void> {
  const s = await serve({ root, port: 0, gitPort: 0, exportAll: true, workers: options });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

async function waitFor(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await new Promise(r => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A git:// client may hang up before upload-pack has told the pool it is done; the worker that has
 * its connection sees it go and ends the request.
 */
async function settled(s: RunningServer): Promise<void> {
  await waitFor('every request to end', () => s.pool.stats().workers.every(w => !w.busy));
}

/** Files under objects/pack that process `pid` holds open, deleted ones marked " (deleted)" (Linux). */
function packFilesHeld(pid: number): string[] {
  const fds = `/proc/${pid}/fd`;
  const held: string[] = [];
  for (const fd of fs.existsSync(fds) ? fs.readdirSync(fds) : []) {
    try {
      const target = fs.readlinkSync(path.join(fds, fd));
      if (target.includes('/objects/pack/')) held.push(target);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return held;
}

/** Pack files the pool's workers hold. There must be a worker to look at, or a check would pass for want of one. */
function poolPacksHeld(s: RunningServer): { open: string[]; deleted: string[] } {
  const workers = s.pool.stats().workers;
  assert.ok(workers.length > 0, 'a warm worker to look at');
  const open = workers.flatMap(w => packFilesHeld(w.pid));
  return { open, deleted: open.filter(t => t.endsWith(' (deleted)')) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the workers start with the server and open its repositories before any request', async () => {
  await withServer({ size: 2 }, async s => {
    const stats = s.pool.stats();
    assert.equal(stats.workers.length, 2, 'both workers started');
    await waitFor('each worker to open the served repository', () =>
      s.pool.stats().workers.every(w => packFilesHeld(w.pid).some(f => f.startsWith(path.join(fs.realpathSync(served), 'objects', 'pack')) && f.endsWith('.pack'))));
    const out = await gitAsync(work, ['ls-remote', `${s.gitUrl}/project.git`]);
    assert.match(out, /refs\/heads\/main/);
    assert.equal(s.pool.stats().started, 2, 'the request was served by a prestarted worker');
  });
});

test('sequential fetches over HTTP and git:// are served by one warm worker and see every change made in between', async () => {
  await withServer({ size: 3 }, async s => {
    const viaGit = path.join(work, 'seq-git');
    const viaHttp = path.join(work, 'seq-http');
    await gitAsync(work, ['clone', '-q', `${s.gitUrl}/project.git`, viaGit]);
    await gitAsync(work, ['clone', '-q', `${s.httpUrl}/project.git`, viaHttp]);
    let lateCommit = '';
    // Each step: what changes, the change, and a ref git leaves out of the advertisement.
    const steps: [string, () => void, string?][] = [
      ['new commits, pushed as loose objects', () => {
        commitInEditor('loose-1');
        commitInEditor('loose-2');
        git(editor, ['push', '-q', 'origin', 'main']);
      }],
      ['a new branch and an annotated tag', () => {
        commitInEditor('topic');
        git(editor, ['push', '-q', 'origin', 'HEAD:refs/heads/topic']);
        git(editor, ['tag', '-a', '-m', 'release', 'v1', 'HEAD~1']);
        git(editor, ['push', '-q', 'origin', 'v1']);
      }],
      ['a branch whose commit is not written yet (git hides it)', () => {
        const commit = git(served, ['cat-file', 'commit', 'main']).replace(/\n\n[^]*$/, '\n\nwritten later\n');
        lateCommit = commit;
        const id = git(served, ['hash-object', '-t', 'commit', '--stdin'], commit).trim();
        fs.writeFileSync(path.join(served, 'refs', 'heads', 'late'), `${id}\n`);
      }, 'refs/heads/late'],
      ['that commit written as a loose object', () => {
        git(served, ['hash-object', '-w', '-t', 'commit', '--stdin'], lateCommit);
      }],
      ['refs packed, a branch deleted', () => {
        git(served, ['pack-refs', '--all']);
        git(served, ['branch', '-D', 'topic']);
      }],
      ['a bitmapped repack after more commits', () => {
        commitInEditor('after-repack');
        git(editor, ['push', '-q', 'origin', 'main']);
        git(served, ['repack', '-adbq']);
      }],
      ['main rewound and a branch recreated at a new commit', () => {
        git(served, ['update-ref', 'refs/heads/main', 'main~2']);
        commitInEditor('topic-2');
        git(editor, ['push', '-q', '-f', 'origin', 'HEAD:refs/heads/topic']);
        git(served, ['repack', '-adbq']);
      }],
    ];
    for (const [what, change, hidden] of steps) {
      change();
      const expected = serverRefs().split('\n').filter(l => !hidden || !l.endsWith(` ${hidden}`)).join('\n');
      for (const clone of [viaGit, viaHttp]) {
        await gitAsync(clone, ['fetch', '-q', '--prune', '--tags', '-f', 'origin']);
        assert.equal(fetchedRefs(clone), expected, `${what}: ${path.basename(clone)} sees the server's refs`);
      }
      assert.ok(poolPacksHeld(s).open.length > 0, `${what}: the warm worker keeps the pack it reads open`);
      // The idle workers holding a repacked pack let go once the serving one has found it repacked.
      await waitFor(`${what}: no worker holds a pack that was removed`, () => poolPacksHeld(s).deleted.length === 0);
    }
    for (const clone of [viaGit, viaHttp]) git(clone, ['fsck', '--full', '--strict']);
    const stats = s.pool.stats();
    assert.equal(stats.started, 3, 'the workers were started with the server, and no other');
    const serving = stats.workers.filter(w => w.served > 0);
    assert.equal(serving.length, 1, 'one worker served every sequential request');
    // Two clones, then per step one git:// fetch and two HTTP requests (info/refs, POST) or more.
    assert.ok(serving[0]!.served >= 3 + steps.length * 3, `served ${serving[0]!.served}`);
  });
});

/** Reads the git:// advertisement, asks for `want`, and hangs up after `bytes` of the answer. */
async function hangUpMidPack(url: string, bytes: number): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.write(pktBytes(`git-upload-pack ${pathname}\0host=${hostname}\0`));
  let got = Buffer.alloc(0);
  let received = 0;
  let asked = false;
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      if (!asked) {
        got = Buffer.concat([got, d]);
        if (!got.includes('0000')) return;
        const head = got.toString('latin1', 4, 44);
        socket.write(Buffer.concat([pktBytes(`want ${head} side-band-64k\n`), Buffer.from('0000'), pktBytes('done\n')]));
        asked = true;
        return;
      }
      received += d.length;
      if (received >= bytes) {
        socket.destroy();
        resolve(received);
      }
    });
  });
}

/** POSTs a v0 want for the advertised HEAD over smart HTTP and hangs up after `bytes` of the answer. */
async function hangUpMidPackHttp(url: string, head: string, bytes: number, onFirstBytes: () => void): Promise<void> {
  const body = pkt(`want ${head} side-band-64k\n`) + '0000' + pkt('done\n');
  await new Promise<void>((resolve, reject) => {
    const req = http.request(`${url}/git-upload-pack`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' },
    }, res => {
      let received = 0;
      res.on('data', (d: Buffer) => {
        if (received === 0) onFirstBytes();
        received += d.length;
        if (received >= bytes) {
          req.destroy();
          resolve();
        }
      });
      res.on('end', () => reject(new Error(`the whole answer came (${received} bytes) before hanging up`)));
    });
    req.on('error', e => (req.destroyed ? undefined : reject(e)));
    req.end(body);
  });
}

test('a client hanging up mid-pack has its worker killed, and the next clone is served', async () => {
  const big = path.join(root, 'big.git');
  const src = makeRepo(1);
  try {
    // Incompressible content, so the pack is far larger than the socket and pipe buffers.
    fs.writeFileSync(path.join(src, 'noise.bin'), crypto.randomBytes(24 * 1024 * 1024));
    git(src, ['add', 'noise.bin']);
    git(src, ['commit', '-qm', 'noise']);
    git(work, ['clone', '-q', '--bare', src, big]);
  } finally {
    rmrf(src);
  }
  await withServer({ size: 2 }, async s => {
    await hangUpMidPack(`${s.gitUrl}/big.git`, 256 * 1024);
    const servingPid = s.pool.stats().workers.find(w => w.busy)?.pid;
    assert.ok(servingPid !== undefined, 'the request is still being served when its client hangs up');
    // Stopped promptly: the worker, which has the connection, sees the client go and ends the
    // request (keeping its worker), or is killed.
    await waitFor('the abandoned request to end', () => s.pool.stats().workers.every(w => !w.busy));
    await waitFor('the abandoned worker to be idle or gone', () =>
      s.pool.stats().workers.some(w => w.pid === servingPid) || !alive(servingPid!));
    // Over HTTP the response's end is the request's: a client gone before it has its worker killed.
    let killed = -1;
    await hangUpMidPackHttp(`${s.httpUrl}/big.git`, git(big, ['rev-parse', 'main']).trim(), 256 * 1024,
      () => { killed = s.pool.stats().workers.find(w => w.busy)?.pid ?? -1; });
    assert.ok(killed > 0, 'a worker was serving the HTTP request');
    const started = s.pool.stats().started;
    await waitFor('the abandoned HTTP request to end', () => s.pool.stats().workers.every(w => !w.busy));
    await waitFor(`worker ${killed} to be killed`, () => !alive(killed));
    assert.ok(s.pool.stats().workers.every(w => w.pid !== killed), 'the killed worker left the pool');
    const clone = path.join(work, 'after-hangup');
    await gitAsync(work, ['clone', '-q', '--bare', `${s.gitUrl}/big.git`, clone]);
    assert.equal(git(clone, ['rev-parse', 'main']), git(big, ['rev-parse', 'main']));
    git(clone, ['fsck', '--full']);
    // The client has its pack before the worker has said it is done: a moment later it is idle.
    await waitFor('the clone\'s worker to be idle', () => s.pool.stats().workers.every(w => !w.busy));
    const now = s.pool.stats();
    assert.ok(now.started <= started + 1, 'at most one worker was started for the next clone');
    assert.ok(now.workers.length > 0 && now.workers.every(w => w.pid !== killed && !w.busy));
  });
  rmrf(big);
});

test('a worker killed with SIGKILL is replaced', async () => {
  await withServer({ size: 1 }, async s => {
    const out = await gitAsync(work, ['ls-remote', `${s.gitUrl}/project.git`]);
    assert.match(out, /refs\/heads\/main/);
    await settled(s);
    const [first] = s.pool.stats().workers;
    assert.ok(first && !first.busy);
    process.kill(first.pid, 'SIGKILL');
    // Its successor is started at once, before any request needs it.
    await waitFor('the killed worker to be replaced', () => {
      const workers = s.pool.stats().workers;
      return workers.length === 1 && workers[0]!.pid !== first.pid;
    });
    const successor = s.pool.stats().workers[0]!.pid;
    const clone = path.join(work, 'after-kill');
    await gitAsync(work, ['clone', '-q', `${s.httpUrl}/project.git`, clone]);
    assert.equal(git(clone, ['rev-parse', 'origin/main']), git(served, ['rev-parse', 'main']));
    const stats = s.pool.stats();
    assert.equal(stats.started, 2);
    assert.equal(stats.workers[0]!.pid, successor, 'the successor served the clone');
  });
});

test('a worker is replaced after maxRequests requests', async () => {
  await withServer({ size: 1, maxRequests: 2 }, async s => {
    const pids: number[] = [];
    for (let i = 0; i < 3; i++) {
      await gitAsync(work, ['ls-remote', `${s.gitUrl}/project.git`]);
      await settled(s);
      pids.push(s.pool.stats().workers[0]?.pid ?? -1);
    }
    assert.equal(s.pool.stats().started, 2, 'the prestarted worker and its one successor');
    assert.ok(pids[0]! > 0, 'the first request leaves its worker in the pool');
    assert.ok(pids[1]! > 0 && pids[1] !== pids[0], 'the second request uses up its budget: the worker is replaced at once');
    assert.equal(pids[2], pids[1], 'the successor serves the third');
    await waitFor('the retired worker to exit', () => !alive(pids[0]!));
  });
});
