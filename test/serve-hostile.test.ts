// `tsgit serve`'s smart-HTTP front end against raw-socket clients that HTTP client libraries would
// never be: the bytes are written exactly as given, the server's whole answer read until it closes.
// Each test starts the server it uses and stops it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { git, GIT_ENV, makeRepo, pktBytes, rmrf, tmpDir } from './helpers.js';
import { fetchBody, withServe, type Served } from './serve-process.js';
import { runAsync } from './transport-servers.js';

let work: string;
let root: string;
let head: string;

before(() => {
  work = tmpDir('tsgit-serve-hostile-');
  root = path.join(work, 'root');
  head = git(makeRepo(3, { bare: true, at: path.join(root, 'small.git') }), ['rev-parse', 'main']).trim();
  git(root, ['clone', '-q', '--bare', 'small.git', 'push.git']);
  git(path.join(root, 'push.git'), ['config', 'http.receivepack', 'true']);
});

after(() => rmrf(work));

/** A receive-pack request's commands: create refs/heads/new at main. */
const pushCommands = (): Buffer => Buffer.concat([pktBytes(`${'0'.repeat(40)} ${head} refs/heads/new\0report-status\n`), Buffer.from('0000')]);

/** After the hostile requests, git's own client is still served. */
async function assertStillServes(s: Served, repo: string): Promise<void> {
  const ls = await runAsync('git', ['ls-remote', `${s.httpUrl}/${repo}`], work, GIT_ENV);
  assert.equal(ls.status, 0, ls.stderr);
}

/** Writes `bytes`, then (with `halfClose`) ends our side, and collects the answer until the server closes. */
function exchange(port: number, bytes: Buffer, halfClose: boolean, ms = 10_000): Promise<string> {
  return new Promise(resolve => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (d: Buffer) => { reply += d.toString('latin1'); });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('close', () => { clearTimeout(timer); resolve(reply); });
    socket.once('connect', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
  });
}

test('a client that half-closes after its requests still gets every answer', { timeout: 60_000 }, async () => {
  await withServe(root, work, ['--timeout', '5', '--init-timeout', '5'], async (s) => {
    const get = Buffer.from('GET /small.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: x\r\n\r\n');
    const body = fetchBody(head);
    const post = Buffer.concat([Buffer.from('POST /small.git/git-upload-pack HTTP/1.1\r\nHost: x\r\n'
      + `Content-Type: application/x-git-upload-pack-request\r\nContent-Length: ${body.length}\r\n\r\n`), body]);

    const advertised = await exchange(s.httpPort, get, true);
    assert.match(advertised, /^HTTP\/1\.1 200 /);
    assert.ok(advertised.includes(`${head} HEAD\0`), advertised);

    const fetched = await exchange(s.httpPort, post, true);
    assert.match(fetched, /^HTTP\/1\.1 200 /);
    assert.ok(fetched.includes('PACK'), fetched.slice(0, 200));

    // Pipelined, then the FIN: both answered, in order, and the connection ends after the last.
    const both = await exchange(s.httpPort, Buffer.concat([get, post]), true);
    assert.equal([...both.matchAll(/HTTP\/1\.1 200 /g)].length, 2, both.slice(0, 300));
    assert.ok(both.indexOf('PACK') > both.indexOf(`${head} HEAD\0`));

    // A FIN that cuts a request short is still an error, at once.
    const cut = await exchange(s.httpPort, post.subarray(0, post.length - 5), true);
    assert.match(cut, /^HTTP\/1\.1 400 /);

    await assertStillServes(s, 'small.git');
    assert.equal(s.stderr(), '');
  });
});

test('a push whose gzip body is corrupt or cut short is answered 400, as a fetch\'s is', { timeout: 60_000 }, async () => {
  await withServe(root, work, ['--timeout', '5', '--init-timeout', '5'], async (s) => {
    const commands = pushCommands();
    const gz = zlib.gzipSync(commands);
    const bodies = {
      'not gzip': Buffer.alloc(100, 0x1f),
      'cut short': gz.subarray(0, 20),
      'corrupt': Buffer.concat([gz.subarray(0, 10), Buffer.alloc(gz.length - 10, 0xaa)]),
    };
    for (const [what, body] of Object.entries(bodies)) {
      const reply = await exchange(s.httpPort, Buffer.concat([Buffer.from('POST /push.git/git-receive-pack HTTP/1.1\r\nHost: x\r\n'
        + 'Content-Type: application/x-git-receive-pack-request\r\nContent-Encoding: gzip\r\n'
        + `Content-Length: ${body.length}\r\n\r\n`), body]), false);
      assert.match(reply, /^HTTP\/1\.1 400 /, `${what}: ${JSON.stringify(reply)}`);
      assert.match(reply, /bad request body/, what);
    }
    assert.equal(git(path.join(root, 'push.git'), ['for-each-ref', '--format=%(refname)']).trim(), 'refs/heads/main');
    await assertStillServes(s, 'push.git');
  });
});

test('a push body that stalls before any answer gets 408 at the idle timeout, and its worker is freed', { timeout: 60_000 }, async () => {
  await withServe(root, work, ['--timeout', '2', '--init-timeout', '2', '--workers', '1'], async (s) => {
    const commands = pushCommands();
    const head_ = 'POST /push.git/git-receive-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-receive-pack-request\r\n';
    const stalls = {
      'Content-Length past what is sent': Buffer.from(`${head_}Content-Length: ${commands.length + 1000}\r\n\r\n${commands.toString('latin1')}`, 'latin1'),
      'chunked, no last chunk': Buffer.from(`${head_}Transfer-Encoding: chunked\r\n\r\n${commands.length.toString(16)}\r\n${commands.toString('latin1')}\r\n`, 'latin1'),
      'headers only': Buffer.from(`${head_}Content-Length: 100\r\n\r\n`),
    };
    for (const [what, bytes] of Object.entries(stalls)) {
      const t0 = Date.now();
      const reply = await exchange(s.httpPort, bytes, false);
      assert.match(reply, /^HTTP\/1\.1 408 [^]*request body stalled/, `${what}: ${JSON.stringify(reply)}`);
      assert.ok(Date.now() - t0 < 6000, `${what}: closed after ${Date.now() - t0} ms`);
    }
    const lines = s.access().filter(l => l.repository === 'push.git');
    assert.deepEqual(lines.map(l => `${l.status} ${l.outcome}`), ['408 timeout', '408 timeout', '408 timeout']);
    // The one worker is free again.
    await assertStillServes(s, 'push.git');
  });
});

test('CONNECT is answered 405, not dropped without a word', { timeout: 30_000 }, async () => {
  await withServe(root, work, [], async (s) => {
    const reply = await exchange(s.httpPort, Buffer.from('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'), false);
    assert.match(reply, /^HTTP\/1\.1 405 [^]*\r\nConnection: close\r\n[^]*method not allowed\n$/);
    await assertStillServes(s, 'small.git');
  });
});
