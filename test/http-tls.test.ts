// https with a certificate no default store trusts, against git as the oracle: http.sslCAInfo and
// $GIT_SSL_CAINFO, http.sslCAPath, http.sslVerify=false and $GIT_SSL_NO_VERIFY, and the same
// settings for one URL (http.<url>.*) applying there and nowhere else. Both tools must agree on
// whether ls-remote gets through, and on the refs when it does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { makeServerRepo, runAsync, startHttpBackend, type HttpServer } from './transport-servers.js';

let root = '', cert = '', caDir = '', server: HttpServer | null = null;
const haveOpenssl = !spawnSync('openssl', ['version']).error;

before(async () => {
  if (!haveOpenssl) return;
  root = tmpDir('tsgit-http-tls-');
  const key = path.join(root, 'key.pem');
  cert = path.join(root, 'cert.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  // A CA directory as libcurl reads one: certificates named by their subject hash.
  caDir = path.join(root, 'certs');
  fs.mkdirSync(caDir);
  const hash = spawnSync('openssl', ['x509', '-hash', '-noout', '-in', cert], { encoding: 'utf8' }).stdout.trim();
  fs.copyFileSync(cert, path.join(caDir, `${hash}.0`));
  makeServerRepo(path.join(root, 'srv', 'repo.git'));
  server = await startHttpBackend(path.join(root, 'srv'), { tls: { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') } });
});

after(async () => {
  await server?.stop();
  if (root) rmrf(root);
});

async function both(config: string[], env: NodeJS.ProcessEnv = {}): Promise<number | null> {
  const args = [...config.flatMap((c) => ['-c', c]), 'ls-remote', server!.url('repo.git')];
  const e: NodeJS.ProcessEnv = { ...GIT_ENV };
  // Machines set these for every program (this one does); they are not what is tested.
  for (const name of ['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'GIT_SSL_NO_VERIFY', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'CURL_CA_BUNDLE']) {
    delete e[name];
  }
  Object.assign(e, env);
  const theirs = await runAsync('git', args, root, e);
  const ours = await runAsync(process.execPath, [TSGIT, ...args], root, e);
  const what = `${config.join(' ')} ${JSON.stringify(env)}`;
  assert.equal(ours.status, theirs.status, `${what}: tsgit ${ours.stderr} / git ${theirs.stderr}`);
  assert.equal(ours.stdout, theirs.stdout, `${what}: refs`);
  return ours.status;
}

test('the certificate is trusted where git trusts it, and checked where git checks it', async (t) => {
  if (!haveOpenssl) {
    t.skip('openssl is not installed: no certificate to serve');
    return;
  }
  const here = `https://127.0.0.1:${server!.port}`;
  assert.equal(await both([]), 128);
  assert.equal(await both([`http.sslCAInfo=${cert}`]), 0);
  assert.equal(await both([], { GIT_SSL_CAINFO: cert }), 0);
  assert.equal(await both([`http.sslCAPath=${caDir}`]), 0);
  assert.equal(await both(['http.sslVerify=false']), 0);
  assert.equal(await both([], { GIT_SSL_NO_VERIFY: '1' }), 0);
  assert.equal(await both([`http.${here}/.sslVerify=false`]), 0);
  assert.equal(await both([`http.${here}/other.sslVerify=false`]), 128);
  assert.equal(await both(['http.sslVerify=false', `http.${here}.sslVerify=true`]), 128);
});
