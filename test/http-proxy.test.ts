// HTTP remotes reached through a proxy, against git as the oracle: a loopback proxy that forwards
// absolute-form requests and opens CONNECT tunnels, recording what it is asked, in front of a
// plain and an https `git http-backend`. The proxy comes from $http_proxy, $https_proxy or
// http.proxy; an empty http.proxy and $no_proxy go around it; a proxy that wants credentials gets
// them from its URL. git and tsgit must agree on the outcome and on what the proxy saw.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { makeServerRepo, runAsync, startHttpBackend, type HttpServer } from './transport-servers.js';

let root = '', plain: HttpServer, secure: HttpServer | null = null, cert = '';
let proxy: http.Server, proxyPort = 0;
const seen: string[] = [];
/** When set, the proxy wants these credentials (407 otherwise). */
let wanted: string | null = null;
const haveOpenssl = !spawnSync('openssl', ['version']).error;

before(async () => {
  root = tmpDir('tsgit-http-proxy-');
  makeServerRepo(path.join(root, 'srv', 'repo.git'));
  plain = await startHttpBackend(path.join(root, 'srv'));
  if (haveOpenssl) {
    const key = path.join(root, 'key.pem');
    cert = path.join(root, 'cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    secure = await startHttpBackend(path.join(root, 'srv'), { tls: { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') } });
  }
  const authorized = (h: http.IncomingHttpHeaders) =>
    wanted === null || h['proxy-authorization'] === `Basic ${Buffer.from(wanted).toString('base64')}`;
  proxy = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!authorized(req.headers)) {
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="proxy"' });
      res.end();
      return;
    }
    const target = new URL(req.url!);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    if (!authorized(req.headers)) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n');
      return;
    }
    const [host, port] = req.url!.split(':');
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as net.AddressInfo).port;
});

after(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await plain.stop();
  await secure?.stop();
  rmrf(root);
});

interface Seen { status: number | null; proxied: string[] }

async function run(tool: 'git' | 'tsgit', url: string, config: string[], env: NodeJS.ProcessEnv): Promise<Seen & { stderr: string }> {
  seen.length = 0;
  const args = [...config.flatMap((c) => ['-c', c]), 'ls-remote', url];
  const e: NodeJS.ProcessEnv = { ...GIT_ENV };
  for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY']) delete e[name];
  Object.assign(e, env);
  const r = tool === 'git' ? await runAsync('git', args, root, e) : await runAsync(process.execPath, [TSGIT, ...args], root, e);
  return { status: r.status, proxied: [...seen], stderr: r.stderr };
}

/** git and tsgit agree on the outcome and on the requests the proxy saw; returns tsgit's. */
async function both(url: string, config: string[], env: NodeJS.ProcessEnv = {}): Promise<Seen> {
  const theirs = await run('git', url, config, env);
  const ours = await run('tsgit', url, config, env);
  const what = `${config.join(' ')} ${JSON.stringify(env)}`;
  assert.equal(ours.status, theirs.status, `${what}: tsgit ${ours.stderr} / git ${theirs.stderr}`);
  // A tunnel is one CONNECT per connection, which each tool opens as it likes; what was asked is the same.
  const shape = (s: string[]) => [...new Set(s)];
  assert.deepEqual(shape(ours.proxied), shape(theirs.proxied), `${what}: what the proxy saw`);
  return ours;
}

test('plain http goes through $http_proxy or http.proxy as absolute-form requests; an empty http.proxy and $no_proxy go direct', async () => {
  const url = plain.url('repo.git');
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const through = await both(url, [], { http_proxy: proxyUrl });
  assert.equal(through.status, 0);
  assert.ok(through.proxied.some((l) => l.startsWith(`GET ${url}/info/refs`)), through.proxied.join('\n'));
  assert.ok((await both(url, [`http.proxy=127.0.0.1:${proxyPort}`])).proxied.length > 0);
  assert.deepEqual((await both(url, ['http.proxy='], { http_proxy: proxyUrl })).proxied, []);
  assert.deepEqual((await both(url, [], { http_proxy: proxyUrl, no_proxy: 'example.com,127.0.0.1' })).proxied, []);
  // $https_proxy is not for plain http.
  assert.deepEqual((await both(url, [], { https_proxy: proxyUrl })).proxied, []);
});

test('a proxy that wants credentials gets them from its URL, and refuses without them', async () => {
  wanted = 'pat:pw';
  try {
    const url = plain.url('repo.git');
    assert.equal((await both(url, [`http.proxy=http://pat:pw@127.0.0.1:${proxyPort}`])).status, 0);
    assert.notEqual((await both(url, [`http.proxy=http://127.0.0.1:${proxyPort}`])).status, 0);
  } finally {
    wanted = null;
  }
});

test('https goes through a CONNECT tunnel with TLS to the server inside it', async (t) => {
  if (!secure) {
    t.skip('openssl is not installed: no certificate to serve');
    return;
  }
  const url = secure.url('repo.git');
  const trust = { GIT_SSL_CAINFO: cert };
  const through = await both(url, [], { ...trust, https_proxy: `http://127.0.0.1:${proxyPort}` });
  assert.equal(through.status, 0);
  assert.deepEqual([...new Set(through.proxied)], [`CONNECT 127.0.0.1:${secure.port}`]);
  assert.deepEqual((await both(url, [], { ...trust, http_proxy: `http://127.0.0.1:${proxyPort}` })).proxied, []);
});
