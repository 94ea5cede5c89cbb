// What a hostile or broken client gets from tsgit's server: malformed pkt-lines and unadvertised
// wants are answered with ERR and the request ends; oversized bodies (declared, streamed, or a
// gzip bomb) are refused; paths that try to leave the root (`..`, encoded forms, absolute paths,
// symlinks) find nothing; a client that hangs up mid-pack has its upload-pack ended while other
// clients are served. The HTTP handler and the git:// daemon run in this process; every request
// they take runs `tsgit upload-pack` as a child, which these tests also watch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn as spawnAsync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { git, GIT_ENV, httpRequest, makeRepo, pktBytes, postService, rmrf, tmpDir, TSGIT } from './helpers.js';
import { createUploadPackHandler } from '../src/server/http.js';
import { startLibraryServers, type LibraryServers } from './library-servers.js';

let work: string;
let root: string;
let servers: LibraryServers;
let base: string;
let gitPort: number;
let head: string;
let dangling: string;
const LIMIT = 1 << 20;

before(async () => {
  work = tmpDir('tsgit-serve-bad-');
  root = path.join(work, 'root');
  const small = makeRepo(4, { bare: true, at: path.join(root, 'small.git') });
  head = git(small, ['rev-parse', 'main']).trim();
  // An object in the repository that no ref reaches.
  const tree = git(small, ['rev-parse', 'main^{tree}']).trim();
  dangling = git(small, ['commit-tree', tree, '-m', 'secret']).trim();
  // A repository big enough that its pack takes a while to send: 24 MiB of incompressible blobs.
  const big = path.join(root, 'big.git');
  fs.mkdirSync(big);
  git(big, ['init', '-q', '--bare', '-b', 'main', '.']);
  const lines: string[] = [];
  for (let i = 0; i < 24; i++) {
    const data = crypto.randomBytes(1 << 20).toString('base64');
    lines.push('commit refs/heads/main', `committer C <c@example.com> ${1700000000 + i} +0000`, 'data 2', 'c', `M 100644 inline f${i}`, `data ${data.length}`, data);
  }
  lines.push('');
  git(big, ['fast-import', '--quiet'], lines.join('\n'));
  // A repository outside the root, and a symlink inside the root leading to it.
  const outside = makeRepo(2, { bare: true, at: path.join(work, 'outside.git') });
  fs.symlinkSync(outside, path.join(root, 'escape.git'));
  servers = await startLibraryServers({ root, exportAll: true, limits: { maxRequestBytes: LIMIT }, timeouts: { idle: 20 } },
    { exportAll: true, timeouts: { idle: 20 } });
  ({ httpBase: base, gitPort } = servers);
});

after(async () => {
  await servers.stop();
  rmrf(work);
});

/** A raw request to the server under test: the path is sent exactly as given, not normalised. */
const request = (method: string, rawPath: string, body?: Buffer | ((req: http.ClientRequest) => void), headers: Record<string, string> = {}) =>
  httpRequest(base, method, rawPath, body, headers);

const uploadRequest = (body: Buffer, extra: Record<string, string> = {}) => postService(base, '/small.git', 'upload-pack', body, extra);

/** upload-pack processes this test process started that are still running. */
function runningUploadPacks(): number[] {
  const out = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(l => l.includes('upload-pack')).map(l => Number(l.trim().split(/\s+/)[0]));
}

async function waitFor(cond: () => boolean, what: string, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 50));
  }
}

describe('malformed and unauthorised requests', () => {
  test('a malformed pkt-line over HTTP gets ERR and the request ends', async () => {
    const r = await uploadRequest(Buffer.from('zzzzwant nothing\n'));
    assert.equal(r.status, 200);
    assert.match(r.body.toString('latin1'), /^[0-9a-f]{4}ERR .*invalid pkt-line length "zzzz"/);
    const r2 = await uploadRequest(Buffer.from('0003'));
    assert.match(r2.body.toString('latin1'), /^[0-9a-f]{4}ERR .*0003 is not a valid packet/);
  });

  test('a malformed pkt-line on stdin gets ERR and exit 128', () => {
    const r = spawnSync(process.execPath, [TSGIT, 'upload-pack', '--stateless-rpc', path.join(root, 'small.git')],
      { input: Buffer.from('00zz'), env: GIT_ENV });
    assert.equal(r.status, 128);
    assert.match(r.stdout.toString('latin1'), /^[0-9a-f]{4}ERR .*not a hex digit/);
    assert.match(r.stderr.toString(), /^fatal: /);
  });

  test('a want of an object no ref reaches is refused, in v0 and in v2', async () => {
    const v0 = await uploadRequest(Buffer.concat([pktBytes(`want ${dangling} side-band-64k ofs-delta\n`), Buffer.from('0000'), pktBytes('done\n')]));
    assert.match(v0.body.toString('latin1'), new RegExp(`ERR upload-pack: not our ref ${dangling}`));
    assert.doesNotMatch(v0.body.toString('latin1'), /PACK/);
    const v2 = await uploadRequest(Buffer.concat([pktBytes('command=fetch\n'), Buffer.from('0001'), pktBytes(`want ${dangling}\n`), pktBytes('done\n'), Buffer.from('0000')]),
      { 'Git-Protocol': 'version=2' });
    assert.match(v2.body.toString('latin1'), new RegExp(`ERR upload-pack: not our ref ${dangling}`));
    // The advertised tip itself is fine.
    const ok = await uploadRequest(Buffer.concat([pktBytes(`want ${head} ofs-delta\n`), Buffer.from('0000'), pktBytes('done\n')]));
    assert.match(ok.body.toString('latin1'), /NAK\n(.|\n)*PACK/);
  });

  test('an unknown filter is refused with a clear error', async () => {
    const cfg = path.join(root, 'small.git');
    git(cfg, ['config', 'uploadpack.allowFilter', 'true']);
    try {
      const r = await uploadRequest(Buffer.concat([pktBytes('command=fetch\n'), Buffer.from('0001'), pktBytes(`want ${head}\n`), pktBytes('filter nonsense:1\n'), pktBytes('done\n'), Buffer.from('0000')]),
        { 'Git-Protocol': 'version=2' });
      assert.match(r.body.toString('latin1'), /ERR invalid filter-spec "nonsense:1": unknown filter/);
    } finally {
      git(cfg, ['config', '--unset', 'uploadpack.allowFilter']);
    }
  });

  test('the authorization callback decides per request and repository', async () => {
    const seen: string[] = [];
    const handler = createUploadPackHandler({
      root, exportAll: true,
      authorize: (req, r) => {
        seen.push(`${r.phase} ${r.repository.name}`);
        if (r.repository.name === 'big.git') return false;
        return req.headers.authorization === 'Bearer ok' ? true : { status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
      },
    });
    const server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      const get = (p: string, headers: Record<string, string> = {}) => fetch(`${url}${p}`, { headers });
      assert.equal((await get('/big.git/info/refs?service=git-upload-pack', { Authorization: 'Bearer ok' })).status, 403);
      const denied = await get('/small.git/info/refs?service=git-upload-pack');
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('www-authenticate'), 'Bearer');
      const allowed = await get('/small.git/info/refs?service=git-upload-pack', { Authorization: 'Bearer ok' });
      assert.equal(allowed.status, 200);
      assert.match(await allowed.text(), /^001e# service=git-upload-pack\n0000/);
      assert.deepEqual(seen, ['advertise big.git', 'advertise small.git', 'advertise small.git']);
    } finally {
      server.closeAllConnections();
      await new Promise(resolve => server.close(resolve));
      await handler.close();
    }
  });
});

describe('bodies too large', () => {
  test('a declared Content-Length of gigabytes is refused before reading it', async () => {
    const r = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}/small.git/git-upload-pack`, {
        method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Length': String(3 * 2 ** 30) },
      }, res => { res.resume(); resolve(res.statusCode!); });
      req.on('error', reject);
      req.write(Buffer.alloc(1000, 0x30));
    });
    assert.equal(r, 413);
  });

  test('a streamed body past the limit is cut off', async () => {
    const chunk = Buffer.from(`0032want ${head}\n`.repeat(1000));
    const r = await request('POST', '/small.git/git-upload-pack', req => {
      let sent = 0;
      const more = () => {
        while (sent < 4 * LIMIT) {
          sent += chunk.length;
          if (!req.write(chunk)) return req.once('drain', more);
        }
        req.end();
      };
      req.on('error', () => undefined);
      more();
    }, { 'Content-Type': 'application/x-git-upload-pack-request' }).catch(e => ({ status: -1, body: Buffer.from(String(e)), headers: {} }));
    assert.ok(r.status === 413 || r.status === -1, `status ${r.status}`);
    assert.equal((await request('GET', '/small.git/info/refs?service=git-upload-pack')).status, 200, 'still serving');
  });

  test('a gzip bomb is refused once it inflates past the limit', async () => {
    const bomb = zlib.gzipSync(Buffer.from(`0032want ${head}\n`.repeat(64 * LIMIT / 50)));
    assert.ok(bomb.length < LIMIT);
    const r = await uploadRequest(bomb, { 'Content-Encoding': 'gzip' }).catch(() => ({ status: -1, body: Buffer.alloc(0), headers: {} }));
    assert.ok(r.status === 413 || r.status === -1, `status ${r.status}`);
  });

  test('a gzip body within the limit is served', async () => {
    const body = zlib.gzipSync(Buffer.concat([pktBytes(`want ${head} ofs-delta\n`), Buffer.from('0000'), pktBytes('done\n')]));
    const r = await uploadRequest(body, { 'Content-Encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.match(r.body.toString('latin1'), /NAK\n(.|\n)*PACK/);
  });
});

describe('paths that try to leave the root', () => {
  const attempts = [
    '/../../etc/passwd/info/refs?service=git-upload-pack',
    '/%2e%2e/%2e%2e/etc/passwd/info/refs?service=git-upload-pack',
    '/%2E%2E%2Foutside.git/info/refs?service=git-upload-pack',
    '/small.git/..%2F..%2Foutside.git/info/refs?service=git-upload-pack',
    '//etc/info/refs?service=git-upload-pack',
    '/escape.git/info/refs?service=git-upload-pack',
    '/escape/info/refs?service=git-upload-pack',
    '/.git/info/refs?service=git-upload-pack',
    '/small.git%00/info/refs?service=git-upload-pack',
  ];
  test('over HTTP: 404 for every escape, while the real repository is served', async () => {
    for (const p of [...attempts, `/${encodeURIComponent(path.join(work, 'outside.git'))}/info/refs?service=git-upload-pack`]) {
      const r = await request('GET', p);
      assert.equal(r.status, 404, `${p}: ${r.status} ${r.body}`);
    }
    assert.equal((await request('GET', '/small.git/info/refs?service=git-upload-pack')).status, 200);
    assert.equal((await request('GET', '/small/info/refs?service=git-upload-pack')).status, 200);
  });

  test('over git://: ERR for every escape', async () => {
    for (const p of ['/../outside.git', '/escape.git', '/%2e%2e/outside.git', path.join(work, 'outside.git'), '/small.git/../../outside.git', '~root/x.git']) {
      const reply = await daemonExchange(Buffer.from(pktBytes(`git-upload-pack ${p}\0host=localhost\0`)));
      assert.match(reply.toString('latin1'), /^[0-9a-f]{4}ERR access denied or repository not exported/, p);
    }
    const ok = await daemonExchange(pktBytes('git-upload-pack /small.git\0host=localhost\0'), Buffer.from('0000'));
    assert.match(ok.toString('latin1'), new RegExp(`^[0-9a-f]{4}${head} HEAD\0`));
  });

  test('over git://: commands sent along with the request line are answered', async () => {
    // One write: the daemon reads them with the request line and must pass them on to upload-pack.
    const ask = Buffer.concat([pktBytes('git-upload-pack /small.git\0host=localhost\0\0version=2\0'),
      pktBytes('command=ls-refs\n'), Buffer.from('0001'), pktBytes('ref-prefix refs/heads/\n'), Buffer.from('0000')]);
    const reply = (await daemonExchange(ask)).toString('latin1');
    assert.match(reply, /^000eversion 2\n/);
    assert.match(reply, new RegExp(`0000[0-9a-f]{4}${head} refs/heads/main\n0000$`));
  });

  test('over git://: a malformed request line gets ERR and a closed connection', async () => {
    const reply = await daemonExchange(Buffer.from('zz01garbage'));
    assert.match(reply.toString('latin1'), /^[0-9a-f]{4}ERR .*not a hex digit/);
    const other = await daemonExchange(pktBytes('git-receive-pack /small.git\0host=x\0'));
    assert.match(other.toString('latin1'), /ERR service not enabled/);
  });
});

/** Sends bytes to the daemon and collects everything until it closes the connection. */
function daemonExchange(...parts: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Ending our side ends upload-pack's input, as a client that has no more to say does.
    const sock = net.connect(gitPort, '127.0.0.1', () => { for (const p of parts) sock.write(p); sock.end(); });
    sock.on('data', c => chunks.push(c));
    sock.on('close', () => resolve(Buffer.concat(chunks)));
    sock.on('error', reject);
    setTimeout(() => sock.destroy(), 15000).unref();
  });
}

describe('clients that go away', () => {
  test('a client that says nothing is dropped after --timeout seconds', async () => {
    const started = Date.now();
    const child = spawnAsync(process.execPath, [TSGIT, 'upload-pack', '--timeout', '1', path.join(root, 'small.git')], { env: GIT_ENV });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString('latin1'); });
    const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
    assert.equal(code, 128);
    assert.ok(Date.now() - started < 10_000);
    assert.match(out, new RegExp(`^[0-9a-f]{4}${head} HEAD\0`));
    assert.match(out, /ERR .*no data from the client for 1 seconds/);
  });


  test('closing the socket mid-pack ends that upload-pack; other clients are still served', async () => {
    const bigHead = git(path.join(root, 'big.git'), ['rev-parse', 'main']).trim();
    const body = Buffer.concat([pktBytes(`want ${bigHead} side-band-64k ofs-delta\n`), Buffer.from('0000'), pktBytes('done\n')]);
    const before = new Set(runningUploadPacks());
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${base}/big.git/git-upload-pack`, {
        method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' },
      }, res => {
        let got = 0;
        res.on('data', (c: Buffer) => {
          got += c.length;
          if (got > 100_000) { req.destroy(); resolve(); }
        });
        res.on('error', () => undefined);
      });
      req.on('error', e => { if (!req.destroyed) reject(e); });
      req.end(body);
    });
    const started = runningUploadPacks().filter(p => !before.has(p));
    // Meanwhile another client clones as usual.
    const dst = path.join(work, 'after-hangup');
    await new Promise<void>((resolve, reject) => {
      const child = spawnAsync('git', ['clone', '-q', '--bare', `${base}/small.git`, dst]);
      child.on('exit', code => (code === 0 ? resolve() : reject(new Error(`clone exited ${code}`))));
    });
    assert.equal(execFileSync('git', ['rev-parse', 'main'], { cwd: dst, env: GIT_ENV }).toString().trim(), head);
    await waitFor(() => runningUploadPacks().every(p => !started.includes(p)), 'the abandoned upload-pack to end');
  });
});

