// `git http-backend` behind a small node:http server, as a CGI program per request, for the serve
// benchmarks' git side (git has no HTTP server of its own): node bench/cgi-server.js <port> <root>.
// The request's method, path, query, content type, length and Git-Protocol header become the
// CGI environment, its body http-backend's stdin; the "Status:" and other headers it prints become
// the response's, and the rest is piped to the client with backpressure. It ends on SIGTERM.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { parseCgiHead } from './cgi-head.js';

const [port, root] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const env: NodeJS.ProcessEnv = {
    ...process.env, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1), REQUEST_METHOD: req.method ?? 'GET', REMOTE_ADDR: req.socket.remoteAddress ?? '',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(cgi.stdin);
  cgi.stdin.on('error', () => undefined);
  res.on('close', () => { if (!res.writableFinished) cgi.kill(); });
  let head = Buffer.alloc(0);
  const onHead = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const parsed = parseCgiHead(head);
    if (!parsed) return;
    cgi.stdout.off('data', onHead);
    cgi.stdout.pause();
    res.writeHead(parsed.status, parsed.headers);
    res.write(head.subarray(parsed.bodyStart));
    cgi.stdout.pipe(res);
  };
  cgi.stdout.on('data', onHead);
  cgi.stdout.on('end', () => { if (!res.headersSent) res.writeHead(502).end(); });
});
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
