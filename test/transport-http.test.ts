// Smart HTTP details against git http-backend: a redirected first request (later requests go to
// where it led), credentials in the URL and from the library's callback, a 401 that cannot be
// answered, a 404, gzip-encoded responses, gzip-encoded request bodies, the Git-Protocol header,
// and a server that only speaks the dumb protocol.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { clone } from '../src/client/clone.js';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { addCommits, clientEnv, makeServerRepo, runAsync, startHttpBackend, type HttpServer } from './transport-servers.js';

let root: string;
let scratch: string;
const credentials = { username: 'alice', password: 's3cret/!' };

before(() => {
  root = tmpDir('tsgit-http-root-');
  scratch = tmpDir('tsgit-http-');
  makeServerRepo(path.join(root, 'repo.git'));
});

after(() => {
  rmrf(root);
  rmrf(scratch);
});

async function withServer(options: Parameters<typeof startHttpBackend>[1], body: (s: HttpServer) => Promise<void>): Promise<void> {
  const server = await startHttpBackend(root, options);
  try {
    await body(server);
  } finally {
    await server.stop();
  }
}

function fsckClean(dir: string): void {
  const r = spawnSync('git', ['fsck', '--full', '--no-dangling'], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('a redirect is followed for info/refs, and the requests after it go to the new place', async () => {
  await withServer({ redirects: true }, async (s) => {
    for (const version of [0, 2] as const) {
      s.log.length = 0;
      const dir = path.join(scratch, `redirect-v${version}`);
      const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', s.url('redirect/repo.git'), dir], scratch, clientEnv(scratch, version));
      assert.equal(r.status, 0, r.stderr);
      fsckClean(dir);
      const v = version === 2 ? ' version=2' : '';
      assert.equal(s.log[0], `GET /redirect/repo.git/info/refs?service=git-upload-pack${v}`);
      assert.equal(s.log[1], `GET /repo.git/info/refs?service=git-upload-pack${v}`);
      assert.ok(s.log.slice(2).length > 0 && s.log.slice(2).every((l) => l.startsWith(`POST /repo.git/git-upload-pack${v}`)), s.log.join('\n'));
      // As git does, the remote keeps the URL the user gave.
      assert.equal(spawnSync('git', ['config', 'remote.origin.url'], { cwd: dir, encoding: 'utf8' }).stdout.trim(), s.url('redirect/repo.git'));
      rmrf(dir);
    }
  });
});

test('credentials from the URL; a wrong password fails without showing it', async () => {
  await withServer({ credentials }, async (s) => {
    const auth = (user: string, pass: string) => s.url('auth/repo.git').replace('http://', `http://${user}:${encodeURIComponent(pass)}@`);
    const dir = path.join(scratch, 'auth-url');
    const ok = await runAsync(process.execPath, [TSGIT, 'clone', '-q', auth(credentials.username, credentials.password), dir], scratch, clientEnv(scratch, 2));
    assert.equal(ok.status, 0, ok.stderr);
    fsckClean(dir);
    rmrf(dir);
    const bad = await runAsync(process.execPath, [TSGIT, 'clone', auth('alice', 'wrong'), dir], scratch, clientEnv(scratch, 2));
    assert.equal(bad.status, 128);
    assert.match(bad.stderr, /fatal: Authentication failed for 'http:\/\/alice@127\.0\.0\.1:\d+\/auth\/repo\.git'/);
    assert.doesNotMatch(bad.stderr, /wrong/);
    assert.ok(!fs.existsSync(dir));
  });
});

test('credentials from the library callback, asked for once per 401', async () => {
  await withServer({ credentials }, async (s) => {
    const asked: { realm: string | null; previous: unknown }[] = [];
    const dir = path.join(scratch, 'auth-callback');
    await clone(s.url('auth/repo.git'), {
      directory: dir, env: clientEnv(scratch, 2),
      transport: { credentials: (req) => { asked.push({ realm: req.realm, previous: req.previous }); return credentials; } },
    });
    fsckClean(dir);
    assert.deepEqual(asked, [{ realm: 'tsgit test', previous: null }]);
    rmrf(dir);
    const refusals: unknown[] = [];
    await assert.rejects(clone(s.url('auth/repo.git'), {
      directory: dir, env: clientEnv(scratch, 2),
      transport: { credentials: (req) => { refusals.push(req.previous); return refusals.length < 3 ? { username: 'alice', password: `guess${refusals.length}` } : null; } },
    }), /Authentication failed/);
    assert.deepEqual(refusals, [null, { username: 'alice', password: 'guess1' }, { username: 'alice', password: 'guess2' }]);
    assert.ok(!fs.existsSync(dir));
  });
});

test('gzip-encoded responses, gzip-encoded requests, and the Git-Protocol header', async () => {
  await withServer({ gzip: true }, async (s) => {
    for (const version of [0, 2] as const) {
      const env = clientEnv(scratch, version);
      const dir = path.join(scratch, `gzip-v${version}`);
      const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', s.url('repo.git'), dir], scratch, env);
      assert.equal(r.status, 0, r.stderr);
      fsckClean(dir);
      // Enough local commits that the haves exceed 1 KiB: the request body goes gzipped.
      const lines: string[] = [];
      for (let i = 0; i < 60; i++) {
        lines.push('commit refs/heads/local', `committer C O Mitter <c@example.com> ${1800000000 + i} +0000`, 'data 2', 'l\n');
        if (i === 0) lines.push('from refs/heads/main^0');
        lines.push(`M 100644 inline l${i}`, 'data 2', `${i % 10}\n`);
      }
      git(dir, ['fast-import', '--quiet'], lines.join('\n') + '\n', env);
      addCommits(path.join(root, 'repo.git'), 'main', 1, `gzip-v${version}`);
      s.log.length = 0;
      const f = await runAsync(process.execPath, [TSGIT, 'fetch', '-q'], dir, env);
      assert.equal(f.status, 0, f.stderr);
      assert.ok(s.log.some((l) => l.startsWith('POST') && l.endsWith(' gzip')), s.log.join('\n'));
      assert.ok(s.log.every((l) => l.includes('version=2') === (version === 2)), s.log.join('\n'));
      fsckClean(dir);
      rmrf(dir);
    }
  });
});

test('a missing repository, and a server that only speaks dumb HTTP', async () => {
  await withServer({}, async (s) => {
    const r = await runAsync(process.execPath, [TSGIT, 'ls-remote', s.url('nope.git')], scratch, clientEnv(scratch, 2));
    assert.equal(r.status, 128);
    assert.equal(r.stderr, `fatal: repository '${s.url('nope.git')}' not found\n`);
  });
  await withServer({ dumb: true }, async (s) => {
    const r = await runAsync(process.execPath, [TSGIT, 'ls-remote', s.url('repo.git')], scratch, clientEnv(scratch, 2));
    assert.equal(r.status, 128);
    assert.match(r.stderr, /does not speak git's smart HTTP protocol .*dumb HTTP is not supported/);
  });
});

test('https with a certificate $GIT_SSL_CAINFO trusts; a clear error for one nothing trusts', async (t) => {
  if (spawnSync('openssl', ['version']).error) {
    t.skip('openssl is not installed: no certificate to serve');
    return;
  }
  const key = path.join(scratch, 'key.pem'), cert = path.join(scratch, 'cert.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  await withServer({ tls: { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') } }, async (s) => {
    for (const version of [0, 2] as const) {
      const dir = path.join(scratch, `https-v${version}`);
      const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', s.url('repo.git'), dir], scratch,
        { ...clientEnv(scratch, version), GIT_SSL_CAINFO: cert });
      assert.equal(r.status, 0, r.stderr);
      fsckClean(dir);
      rmrf(dir);
    }
    const dir = path.join(scratch, 'https-untrusted');
    const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', s.url('repo.git'), dir], scratch, clientEnv(scratch, 2));
    assert.equal(r.status, 128);
    assert.match(r.stderr, /^fatal: unable to access 'https:\/\/127\.0\.0\.1:\d+\/repo\.git': self[- ]signed certificate/);
    assert.ok(!fs.existsSync(dir));
  });
});
