// The bounds of `tsgit serve`, each met by a client that goes past it, on loopback: a queue past its
// bound answers 503 (with Retry-After) or ERR at once, and a client gone while queued is dropped;
// time spent queued is nobody's idle time, while a request's total time is bounded; a slowloris
// is cut off at the init timeout, whatever it dribbles (headers, a body, a git:// request line);
// an oversized POST is refused and its connection closed at once; connections past
// --max-connections make room the way git daemon does, by address; startup problems are one
// `fatal:` line. And the library's HTTP handler serves what its `authorize` allows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, pktBytes, rmrf, tmpDir, TSGIT } from './helpers.js';
import { fetchBody, fetchOverGit, makeBigRepo, postUploadPack, sleep, waitFor, withServe } from './serve-process.js';
import { runAsync } from './transport-servers.js';
import { createGitHttpHandler, createUploadPackHandler } from '../src/index.js';
import { createDaemon } from '../src/server/daemon.js';

let work: string;
let root: string;
let bigHead: string;

before(() => {
  work = tmpDir('tsgit-serve-limits-');
  root = path.join(work, 'root');
  makeRepo(6, { bare: true, at: path.join(root, 'small.git') });
  bigHead = git(makeBigRepo(root, 'big.git', 24), ['rev-parse', 'main']).trim();
});

after(() => rmrf(work));

/** Connects to the git:// port from `localAddress`, optionally sending a request line for `repo`. */
function gitConnection(port: number, repo: string | null, localAddress = '127.0.0.1'): Promise<{ socket: net.Socket; data: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let data = '';
    const t0 = Date.now();
    const closed = new Promise<number>(r => socket.on('close', () => r(Date.now() - t0)));
    socket.on('data', (d: Buffer) => { data += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      if (repo) socket.write(pktBytes(`git-upload-pack /${repo}\0host=127.0.0.1\0`));
      resolve({ socket, data: () => data, closed });
    });
    socket.once('error', reject);
  });
}

/** A raw HTTP exchange: `request` written as given, the reply collected until the server closes or `ms` pass. */
function rawHttp(port: number, write: (s: net.Socket) => void, ms = 10_000): Promise<{ reply: string; closedAfter: number; firstByteAfter: number }> {
  return new Promise(resolve => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const t0 = Date.now();
    let first = -1;
    socket.on('data', (d: Buffer) => {
      if (first < 0) first = Date.now() - t0;
      reply += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('close', () => { clearTimeout(timer); resolve({ reply, closedAfter: Date.now() - t0, firstByteAfter: first }); });
    socket.once('connect', () => write(socket));
  });
}

test('past the queue\'s bound: ERR and 503 with Retry-After at once; a client gone while queued is dropped', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--workers', '1', '--max-queue', '2'], async (s) => {
    // The one worker is held by a client that does not read.
    const holder = await fetchOverGit(s.gitPort, 'big.git', 64 * 1024);
    await waitFor('the worker to be held', () => holder.received() >= 64 * 1024);
    const queued = await gitConnection(s.gitPort, 'small.git');
    const leaving = await gitConnection(s.gitPort, 'small.git');
    await sleep(300);
    const t0 = Date.now();
    const refusedGit = await gitConnection(s.gitPort, 'small.git');
    const gitClosed = await refusedGit.closed;
    assert.match(refusedGit.data(), /^[0-9a-f]{4}ERR the server is busy: too many requests are waiting$/);
    const refusedHttp = await fetch(`${s.httpUrl}/small.git/info/refs?service=git-upload-pack`);
    const elapsed = Date.now() - t0;
    assert.equal(refusedHttp.status, 503);
    assert.match(refusedHttp.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    assert.match(await refusedHttp.text(), /busy/);
    assert.ok(gitClosed < 1000 && elapsed < 2000, `refused after ${gitClosed} ms (git://) and ${elapsed} ms (both)`);
    // A client that hangs up while queued leaves the queue: it is never served.
    leaving.socket.destroy();
    await sleep(200);
    assert.equal(queued.data(), '', 'nothing is sent to a queued client');
    holder.destroy();
    await waitFor('the queued client to be served', () => queued.data().includes('0000'));
    assert.match(queued.data(), /^[0-9a-f]{4}[0-9a-f]{40} HEAD\0/);
    queued.socket.end(Buffer.from('0000'));
    await queued.closed;
    await waitFor('every line', () => s.access().length >= 5);
    const outcomes = s.access().map(l => `${l.transport} ${l.repository} ${l.outcome}`).sort();
    assert.deepEqual(outcomes, ['git big.git gone', 'git small.git busy', 'git small.git gone', 'git small.git ok', 'http-get small.git busy']);
  });
});

test('queued time counts against no idle timeout; a request\'s total time is bounded', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--workers', '1', '--timeout', '3', '--max-request-time', '6'], async (s) => {
    // Holds the one worker for 6 s, never idle for 3: it reads 256 KiB every 250 ms.
    const slow = await fetchOverGit(s.gitPort, 'big.git', 32 * 1024);
    const trickle = setInterval(() => slow.allow(256 * 1024), 250);
    try {
      await waitFor('the worker to be held', () => slow.received() >= 32 * 1024);
      const t0 = Date.now();
      const [overGit, overHttp] = await Promise.all([
        runAsync('git', ['ls-remote', `${s.gitUrl}/small.git`], work, GIT_ENV),
        runAsync('git', ['ls-remote', `${s.httpUrl}/small.git`], work, GIT_ENV),
      ]);
      assert.equal(overGit.status, 0, overGit.stderr);
      assert.equal(overHttp.status, 0, overHttp.stderr);
      assert.ok(Date.now() - t0 > 3500, `served after ${Date.now() - t0} ms: they did wait longer than the idle timeout`);
      clearInterval(trickle);
      // What the kernel still holds for it is read at once: the cut is behind it.
      slow.resume();
      assert.equal((await slow.done).complete, false, 'the slow client was cut off');
    } finally {
      clearInterval(trickle);
    }
    const lines = s.access();
    const cut = lines.find(l => l.repository === 'big.git')!;
    assert.equal(cut.outcome, 'timeout', cut.raw);
    assert.ok(cut.time >= 5500 && cut.time < 10_000, cut.raw);
    assert.ok(lines.filter(l => l.repository === 'small.git').every(l => l.outcome === 'ok'), lines.map(l => l.raw).join('\n'));
    assert.ok(lines.some(l => l.repository === 'small.git' && l.wait > 3000), 'a request waited past the idle timeout');
  });
});

test('a client that stops reading is cut off after --timeout, over both transports', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--timeout', '2'], async (s) => {
    const stalled = [await fetchOverGit(s.gitPort, 'big.git', 64 * 1024), await postUploadPack(s.httpUrl + '/big.git', fetchBody(bigHead), 64 * 1024)];
    const t0 = Date.now();
    await waitFor('both to be cut off', () => s.access().filter(l => l.repository === 'big.git').length === 2, 20_000);
    assert.ok(Date.now() - t0 < 10_000, `cut after ${Date.now() - t0} ms`);
    for (const c of stalled) {
      c.resume();
      assert.equal((await c.done).complete, false);
    }
    const lines = s.access().filter(l => l.repository === 'big.git');
    assert.deepEqual(lines.map(l => `${l.transport} ${l.outcome}`).sort(), ['git timeout', 'http-post timeout'], lines.map(l => l.raw).join('\n'));
    assert.ok(lines.every(l => /took nothing for 2 seconds/.test(l.reason ?? '')), lines.map(l => l.raw).join('\n'));
  });
});

test('a slowloris is cut off at the init timeout: HTTP headers, an HTTP body, a git:// request line', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--init-timeout', '2'], async (s) => {
    const dribble = (text: string) => (socket: net.Socket) => {
      let i = 0;
      const t = setInterval(() => {
        if (socket.destroyed || i >= text.length) return clearInterval(t);
        socket.write(text[i++]!);
      }, 1000);
      socket.on('close', () => clearInterval(t));
    };
    const [headers, body, line] = await Promise.all([
      rawHttp(s.httpPort, dribble('GET /small.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: x\r\n\r\n'), 15_000),
      rawHttp(s.httpPort, socket => {
        socket.write('POST /small.git/git-upload-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-upload-pack-request\r\nContent-Length: 100\r\n\r\n');
        dribble('0032want '.padEnd(100, '0'))(socket);
      }, 15_000),
      rawHttp(s.gitPort, dribble(pktBytes('git-upload-pack /small.git\0host=x\0').toString('latin1')), 15_000),
      // Meanwhile a client that says what it wants is served.
      runAsync('git', ['ls-remote', `${s.httpUrl}/small.git`], work, GIT_ENV).then(r => assert.equal(r.status, 0, r.stderr)),
    ]);
    for (const [what, r] of [['headers', headers], ['body', body], ['request line', line]] as const) {
      assert.ok(r.closedAfter >= 1500 && r.closedAfter < 6000, `${what}: closed after ${r.closedAfter} ms`);
    }
    assert.match(headers.reply, /^HTTP\/1\.1 408/);
    assert.match(body.reply, /^HTTP\/1\.1 408 [^]*request body not received within 2 seconds/);
    assert.match(line.reply, /^[0-9a-f]{4}ERR no request within 2 seconds$/);
  });
});

test('an oversized garbage POST is refused and its connection closed at once', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--max-request-buffer', '1m'], async (s) => {
    const garbage = crypto.randomBytes(8 * 1024 * 1024);
    const head = 'POST /small.git/git-upload-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-upload-pack-request\r\n';
    const declared = await rawHttp(s.httpPort, socket => {
      socket.write(`${head}Content-Length: ${garbage.length}\r\n\r\n`);
      socket.write(garbage);
    });
    const chunked = await rawHttp(s.httpPort, socket => {
      socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      for (let p = 0; p < garbage.length; p += 65536) {
        socket.write(`10000\r\n`);
        socket.write(garbage.subarray(p, p + 65536));
        socket.write('\r\n');
      }
    });
    for (const [what, r] of [['declared', declared], ['chunked', chunked]] as const) {
      assert.match(r.reply, /^HTTP\/1\.1 413 [^]*Connection: close[^]*request body larger than 1048576 bytes/, what);
      assert.ok(r.firstByteAfter < 1000, `${what}: answered after ${r.firstByteAfter} ms`);
      assert.ok(r.closedAfter < 1500, `${what}: closed after ${r.closedAfter} ms`);
    }
    // Within the bound, garbage is the service's to refuse: an ERR line.
    const small = await postUploadPack(s.httpUrl + '/small.git', crypto.randomBytes(1000), Infinity, true);
    assert.match((await small.done).data.toString('latin1'), /^[0-9a-f]{4}ERR /);
  });
});

test('--max-connections: a newcomer from a quieter address takes the place of the busiest address\'s newest', { timeout: 120_000 }, async () => {
  await withServe(root, work, ['--max-connections', '2'], async (s) => {
    // Two connections from 127.0.0.1 that have not said what they want.
    const first = await gitConnection(s.gitPort, null);
    const second = await gitConnection(s.gitPort, null);
    await sleep(100);
    const third = await gitConnection(s.gitPort, 'small.git');
    await third.closed;
    assert.match(third.data(), /ERR too many connections/, 'the same address is refused');
    const other = await gitConnection(s.gitPort, 'small.git', '127.0.0.2');
    await second.closed;
    await waitFor('the advertisement', () => other.data().includes('0000'));
    assert.match(other.data(), /^[0-9a-f]{4}[0-9a-f]{40} HEAD\0/, 'another address is served');
    assert.ok(!first.socket.destroyed, 'the older connection is kept');
    for (const c of [first, other]) c.socket.destroy();
  });
});

test('startup problems are one fatal line: a port in use, a missing root', { timeout: 120_000 }, async () => {
  const busy = net.createServer();
  await new Promise<void>(resolve => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as net.AddressInfo).port;
  try {
    for (const [args, message] of [
      [['--port', String(port), '--no-git-daemon', root], `fatal: cannot listen for smart HTTP on 127.0.0.1:${port}: the address is already in use\n`],
      [['--port', '0', '--git-port', String(port), root], `fatal: cannot listen for git:// on 127.0.0.1:${port}: the address is already in use\n`],
      [['--port', '0', path.join(work, 'nowhere')], `fatal: cannot serve '${path.join(work, 'nowhere')}': no such directory\n`],
      [['--port', '0', '--max-request-buffer', 'lots', root], null],
    ] as const) {
      const r = await runAsync(process.execPath, [TSGIT, 'serve', ...args], work, GIT_ENV);
      if (message === null) {
        assert.equal(r.status, 129);
        assert.match(r.stderr, /^error: --max-request-buffer needs a size \(like 10m\), not 'lots'\n/);
      } else {
        assert.equal(r.status, 128, r.stderr);
        assert.equal(r.stderr, message);
      }
      assert.equal(r.stdout, '');
    }
  } finally {
    await new Promise(resolve => busy.close(resolve));
  }
});

test('the library handler: `authorize` decides access, without it git-daemon-export-ok does (as http-backend)', { timeout: 120_000 }, async () => {
  assert.equal(createUploadPackHandler, createGitHttpHandler);
  const plainRoot = path.join(work, 'library-root');
  makeRepo(3, { bare: true, at: path.join(plainRoot, 'project.git') });
  const handlers = {
    authorized: createGitHttpHandler({ root: plainRoot, authorize: () => true }),
    anonymous: createGitHttpHandler({ root: plainRoot }),
    strict: createGitHttpHandler({ root: plainRoot, authorize: () => true, exportAll: false }),
  };
  const servers: http.Server[] = [];
  try {
    const urls: Record<string, string> = {};
    for (const [name, handler] of Object.entries(handlers)) {
      const server = http.createServer(handler);
      servers.push(server);
      await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
      urls[name] = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/project.git`;
    }
    const r = await runAsync('git', ['clone', '-q', urls.authorized!, path.join(work, 'library-clone')], work, GIT_ENV);
    assert.equal(r.status, 0, r.stderr);
    git(path.join(work, 'library-clone'), ['fsck', '--full']);
    for (const name of ['anonymous', 'strict']) {
      assert.equal((await fetch(`${urls[name]}/info/refs?service=git-upload-pack`)).status, 404, name);
    }
    fs.writeFileSync(path.join(plainRoot, 'project.git', 'git-daemon-export-ok'), '');
    for (const name of ['anonymous', 'strict']) {
      assert.equal((await fetch(`${urls[name]}/info/refs?service=git-upload-pack`)).status, 200, name);
    }
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise(resolve => server.close(resolve));
    }
    for (const h of Object.values(handlers)) await h.close();
  }
});

test('a service is served as its config says: http.uploadpack and daemon.uploadpack, git daemon\'s --disable', { timeout: 120_000 }, async () => {
  const cfgRoot = path.join(work, 'config-root');
  const repo = makeRepo(2, { bare: true, at: path.join(cfgRoot, 'project.git') });
  const handler = createGitHttpHandler({ root: cfgRoot, exportAll: true });
  const daemons = [createDaemon({ root: cfgRoot, exportAll: true, pool: handler.pool }),
    createDaemon({ root: cfgRoot, exportAll: true, pool: handler.pool, services: { 'upload-pack': { enabled: false, overridable: false } } })];
  const server = http.createServer(handler);
  try {
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const ports = [];
    for (const d of daemons) {
      await new Promise<void>(resolve => d.listen(0, '127.0.0.1', resolve));
      ports.push((d.address() as net.AddressInfo).port);
    }
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/project.git/info/refs?service=git-upload-pack`;
    const advertised = async (port: number) => {
      const c = await gitConnection(port, 'project.git');
      await c.closed.catch(() => undefined);
      return c;
    };
    assert.equal((await fetch(url)).status, 200);
    git(repo, ['config', 'http.uploadpack', 'false']);
    const off = await fetch(url);
    assert.equal(off.status, 403);
    assert.match(await off.text(), /service not enabled: 'git-upload-pack'/);
    const refusedByRule = await advertised(ports[1]!);
    assert.match(refusedByRule.data(), /ERR service not enabled: git-upload-pack/, '--disable without override');
    git(repo, ['config', 'daemon.uploadpack', 'false']);
    const refusedByConfig = await advertised(ports[0]!);
    assert.match(refusedByConfig.data(), /ERR service not enabled: git-upload-pack/, 'daemon.uploadpack=false');
    git(repo, ['config', 'daemon.uploadpack', 'true']);
    const served = await gitConnection(ports[0]!, 'project.git');
    await waitFor('the advertisement', () => served.data().includes('0000'));
    served.socket.destroy();
  } finally {
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
    for (const d of daemons) await new Promise(resolve => d.close(resolve));
    await handler.close();
  }
});
