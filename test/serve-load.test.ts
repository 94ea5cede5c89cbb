// `tsgit serve` with two workers under load, with git-core as the client on loopback: 32 clones
// at once over each transport, all served in arrival order; a client that stops reading mid-pack
// while the server's memory stays put; a worker killed with SIGKILL mid-request while others are
// served; repacks and ref updates during a stream of fetches; SIGTERM and SIGINT while a request
// is in flight.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir } from './helpers.js';
import {
  fetchBody, fetchOverGit, makeBigRepo, postUploadPack, rssOf, sleep, treeRss, waitFor, withServe, workersOf, type AccessLine,
} from './serve-process.js';
import { runAsync } from './transport-servers.js';
import { Repository } from '../src/repository/repository.js';
import { uploadPack } from '../src/server/upload-pack.js';

let work: string;
let root: string;
let small: string;
let big: string;
let bigHead: string;

before(() => {
  work = tmpDir('tsgit-serve-load-');
  root = path.join(work, 'root');
  small = makeRepo(12, { bare: true, at: path.join(root, 'small.git') });
  git(small, ['repack', '-adbq']);
  big = makeBigRepo(root, 'big.git', 48);
  bigHead = git(big, ['rev-parse', 'main']).trim();
});

after(() => rmrf(work));

async function clone(url: string, dir: string): Promise<void> {
  const r = await runAsync('git', ['clone', '-q', '--bare', url, dir], work, GIT_ENV);
  assert.equal(r.status, 0, `git clone ${url}: ${r.stderr}`);
}

/**
 * Served in arrival order: a request that came clearly before another (by more than `slack` ms)
 * was not taken by a worker after it. Only requests that needed a worker count (not refusals).
 */
function assertFifo(lines: AccessLine[], slack = 30): void {
  const served = lines.filter(l => l.outcome === 'ok');
  for (const a of served) {
    for (const b of served) {
      if (a.start + slack < b.start) {
        assert.ok(a.start + a.wait <= b.start + b.wait + slack,
          `taken out of order:\n  ${a.raw}\n  ${b.raw}`);
      }
    }
  }
}

test('32 concurrent clones over smart HTTP and 32 over git:// are all served, in arrival order, and pass fsck', { timeout: 120_000 }, async () => {
  await withServe(root, work, [], async (s) => {
    for (const [kind, url] of [['http', s.httpUrl], ['git', s.gitUrl]] as const) {
      const dirs = Array.from({ length: 32 }, (_, i) => path.join(work, `clone-${kind}-${i}`));
      await Promise.all(dirs.map(d => clone(`${url}/small.git`, d)));
      const head = git(small, ['rev-parse', 'main']);
      for (const d of dirs) {
        assert.equal(git(d, ['rev-parse', 'main']), head);
        git(d, ['fsck', '--full', '--strict']);
        rmrf(d);
      }
    }
    const lines = s.access();
    assert.ok(lines.length >= 32 * 3 + 32, `${lines.length} access lines`);
    assert.deepEqual(lines.filter(l => l.outcome !== 'ok').map(l => l.raw), []);
    assert.equal(lines.filter(l => l.transport === 'git').length, 32);
    assert.ok(lines.some(l => l.wait > 50), 'some requests waited for a worker');
    assertFifo(lines);
    const { code } = await s.stop();
    assert.equal(code, 0);
  });
});

test('a client that stops reading mid-pack costs the server no more memory while it waits', { timeout: 120_000 }, async () => {
  await withServe(root, work, [], async (s) => {
    const pid = s.pid;
    // The pack holds the blobs' bytes as they are: incompressible.
    const size = 48 * 1024 * 1024;
    // Settled: the workers have opened the repositories they were told to.
    await sleep(1000);
    for (const open of [() => postUploadPack(s.httpUrl + '/big.git', fetchBody(bigHead), 512 * 1024),
      () => fetchOverGit(s.gitPort, 'big.git', 512 * 1024)]) {
      const before = rssOf(pid);
      const reader = await open();
      await waitFor('the first half MiB', () => reader.received() >= 512 * 1024);
      // Until the kernel's socket buffers are full (they grow as the connection goes on): settled.
      // The workers' memory grows meanwhile by the pack windows they read to fill them, a cache;
      // what a worker hands its sink is bounded by the in-process test below.
      let stalled = treeRss(pid);
      for (let i = 0; i < 20; i++) {
        await sleep(250);
        const now = treeRss(pid);
        if (Math.abs(now - stalled) < 512 * 1024) break;
        stalled = now;
      }
      let peak = stalled;
      for (let i = 0; i < 10; i++) {
        await sleep(200);
        peak = Math.max(peak, treeRss(pid));
      }
      assert.ok(reader.received() < size / 2, `the client has only ${reader.received()} bytes`);
      // The server's own process relays HTTP answers: held whole, the pack (48 MiB) would be in
      // it. A third of that leaves room for garbage a loaded machine's V8 has not collected yet
      // (11 MiB was seen at a load of 8), and still fails a server that buffers the answer.
      assert.ok(rssOf(pid) - before < 16 * 1024 * 1024, `the server grew by ${rssOf(pid) - before} bytes for a client that read ${reader.received()}`);
      assert.ok(peak - stalled < 4 * 1024 * 1024, `memory grew by ${peak - stalled} bytes while the client did not read`);
      reader.resume();
      const { complete, bytes } = await reader.done;
      assert.ok(complete, 'the answer ends once the client reads again');
      assert.ok(bytes > size, `${bytes} bytes, for a blob of ${size}`);
    }
  });
});

test('a worker killed mid-request: its client gets an error, the others are served, the worker is replaced', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--verbose'], async (s) => {
    const victim = await postUploadPack(s.httpUrl + '/big.git', fetchBody(bigHead), 256 * 1024);
    await waitFor('the victim to be served', () => victim.received() >= 256 * 1024);
    const m = [...s.stderr().matchAll(/worker (\d+) serving upload-pack (\S+)/g)].filter(x => x[2]!.endsWith('big.git')).pop();
    assert.ok(m, `the server says which worker serves the victim:\n${s.stderr()}`);
    const pid = Number(m[1]);
    const others = Array.from({ length: 6 }, (_, i) => clone(`${i % 2 ? s.gitUrl : s.httpUrl}/small.git`, path.join(work, `other-${i}`)));
    process.kill(pid, 'SIGKILL');
    victim.resume();
    const cut = await victim.done;
    assert.equal(cut.complete, false, 'the victim sees its answer cut, not a short one');
    await Promise.all(others);
    for (let i = 0; i < 6; i++) {
      git(path.join(work, `other-${i}`), ['fsck', '--full']);
      rmrf(path.join(work, `other-${i}`));
    }
    await waitFor('a successor', () => workersOf(s.pid).length === 2 && !workersOf(s.pid).includes(pid));
    await clone(`${s.httpUrl}/small.git`, path.join(work, 'after-kill'));
    rmrf(path.join(work, 'after-kill'));
    assert.match(s.stderr(), new RegExp(`worker ${pid} exited unexpectedly`));
    const killed = s.access().filter(l => l.outcome === 'killed');
    assert.equal(killed.length, 1, s.access().map(l => l.raw).join('\n'));
    assert.equal(killed[0]!.repository, 'big.git');
  });
});

test('repacks (git repack -adb) and ref updates during a stream of fetches: every fetch is whole', { timeout: 120_000 }, async () => {
  const served = makeRepo(30, { bare: true, at: path.join(root, 'moving.git') });
  git(served, ['repack', '-adbq']);
  const editor = path.join(work, 'moving-editor');
  git(work, ['clone', '-q', served, editor]);
  await withServe(root, work, [], async (s) => {
    const clones = [path.join(work, 'moving-http'), path.join(work, 'moving-git')];
    await clone(`${s.httpUrl}/moving.git`, clones[0]!);
    await clone(`${s.gitUrl}/moving.git`, clones[1]!);
    let changing = true;
    const changes = (async () => {
      for (let i = 0; changing && i < 40; i++) {
        fs.writeFileSync(path.join(editor, `f${i}.txt`), `change ${i}\n`);
        git(editor, ['add', '.']);
        git(editor, ['commit', '-qm', `change ${i}`]);
        git(editor, ['push', '-q', 'origin', `HEAD:main`, `HEAD:refs/heads/b${i % 3}`]);
        if (i % 2 === 0) await runAsync('git', ['repack', '-adbq'], served, GIT_ENV);
        await sleep(50);
      }
    })();
    const fetches: Promise<void>[] = clones.map(async dir => {
      for (let i = 0; i < 12; i++) {
        const r = await runAsync('git', ['fetch', '-q', 'origin', '+refs/heads/*:refs/heads/*'], dir, GIT_ENV);
        assert.equal(r.status, 0, `fetch ${i} into ${path.basename(dir)}: ${r.stderr}`);
        git(dir, ['fsck', '--connectivity-only']);
      }
    });
    await Promise.all(fetches);
    changing = false;
    await changes;
    for (const dir of clones) {
      await runAsync('git', ['fetch', '-q', 'origin', '+refs/heads/*:refs/heads/*'], dir, GIT_ENV);
      assert.equal(git(dir, ['rev-parse', 'main']), git(served, ['rev-parse', 'main']));
      git(dir, ['fsck', '--full']);
    }
    assert.deepEqual(s.access().filter(l => l.outcome !== 'ok').map(l => l.raw), []);
  });
});

/**
 * A TCP proxy to `port` that passes the server's bytes until `limit` of them, then holds the rest
 * until release(): a clone that is surely in flight when the test acts.
 */
async function holdingProxy(port: number, limit: number): Promise<{ port: number; held: () => boolean; release(): void; stop(): Promise<void> }> {
  let sent = 0, holding = false;
  const waiting: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer(client => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      const pass = () => {
        sent += chunk.length;
        if (!client.write(chunk)) {
          upstream.pause();
          client.once('drain', () => upstream.resume());
        }
      };
      if (sent + chunk.length <= limit || !holding && sent < limit) return pass();
      holding = true;
      upstream.pause();
      waiting.push(() => { pass(); upstream.resume(); });
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    held: () => holding,
    release: () => {
      limit = Infinity;
      for (const w of waiting.splice(0)) w();
    },
    stop: () => new Promise<void>(resolve => { for (const x of sockets) x.destroy(); server.close(() => resolve()); }),
  };
}

function refused(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => { c.destroy(); resolve(false); });
    c.once('error', () => resolve(true));
  });
}

test('SIGTERM during a clone: no new connections, the clone completes, then exit 0', { timeout: 120_000 }, async () => {
  await withServe(root, work, [], async (s) => {
    const proxy = await holdingProxy(s.httpPort, 1024 * 1024);
    try {
      const dir = path.join(work, 'sigterm-clone');
      const cloning = runAsync('git', ['clone', '-q', '--bare', `http://127.0.0.1:${proxy.port}/big.git`, dir], work, GIT_ENV);
      await waitFor('the clone to be mid-pack', () => proxy.held());
      s.proc.kill('SIGTERM');
      for (let i = 0; i < 40 && !(await refused(s.httpPort) && await refused(s.gitPort)); i++) await sleep(50);
      assert.ok(await refused(s.httpPort), 'no new HTTP connections once draining');
      assert.ok(await refused(s.gitPort), 'no new git:// connections once draining');
      assert.equal(s.proc.exitCode, null, 'still running: a clone is in flight');
      await sleep(300);
      proxy.release();
      const r = await cloning;
      const cloned = Date.now();
      assert.equal(r.status, 0, r.stderr);
      assert.equal(git(dir, ['rev-parse', 'main']).trim(), bigHead);
      git(dir, ['fsck', '--full']);
      const { code } = await s.exited;
      assert.equal(code, 0);
      assert.ok(Date.now() - cloned < 10_000, `exited ${Date.now() - cloned} ms after the clone was done: it drained, and did not wait out its grace period`);
      assert.deepEqual(workersOf(s.pid), []);
    } finally {
      await proxy.stop();
    }
  });
});

test('SIGINT drains within a few seconds, cutting a client that does not read', { timeout: 120_000 }, async () => {
  await withServe(root, work, [], async (s) => {
    const stalled = await postUploadPack(s.httpUrl + '/big.git', fetchBody(bigHead), 128 * 1024);
    await waitFor('the stalled client to be served', () => stalled.received() >= 128 * 1024);
    const t0 = Date.now();
    const { code } = await s.stop('SIGINT');
    assert.equal(code, 0);
    assert.ok(Date.now() - t0 < 6000, `took ${Date.now() - t0} ms`);
    stalled.resume();
    assert.equal((await stalled.done).complete, false);
  });
});

test('upload-pack gives a receiver that takes nothing more at most a step: one 24 MiB object, a bitmapped pack', { timeout: 120_000 }, async () => {
  const single = makeBigRepo(work, 'single.git', 24, 1);
  for (const bitmapped of [false, true]) {
    // The pack writer's path, then pack reuse's (the bitmapped pack copied verbatim).
    if (bitmapped) git(single, ['repack', '-adbq']);
    const gitDir = single;
    const repo = new Repository(gitDir, null);
    try {
      let given = 0;
      let release!: () => void;
      const blocked = new Promise<void>(r => { release = r; });
      const head = git(gitDir, ['rev-parse', 'main']).trim();
      const serving = uploadPack(repo, {
        input: (async function* () { yield fetchBody(head); })(),
        output: chunk => {
          given += chunk.length;
          return given > 256 * 1024 ? blocked : undefined;
        },
        statelessRpc: true,
      });
      await sleep(1000);
      assert.ok(given < 3 * 1024 * 1024, `bitmapped ${bitmapped}: ${given} bytes handed to a receiver that asked to wait`);
      release();
      await serving;
      assert.ok(given > 24 * 1024 * 1024, `bitmapped ${bitmapped}: ${given} bytes in all`);
    } finally {
      repo.close();
    }
  }
});
