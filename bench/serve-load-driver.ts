// The clients of the serve-load benchmarks (benchmarks.ts: serveLoadBenchmark), started in the
// background while the measured server runs: node bench/serve-load-driver.js '<config JSON>'.
// Once the server listens and has settled (its CPU still for three seconds, at most a minute), all
// clients start at once, each asking what git 2.39 asks (the request file: a clone's wants, or a
// fetch's want and have) over git:// or smart HTTP, and reading the answer to its end, where it is
// checked: a pack came, and the answer ended with its flush. A client without its whole answer
// after the deadline (10 minutes unless the config says) has failed. The clients are raw protocol
// clients that drop the pack as it comes: a real clone would spend ~20 s of CPU indexing it, on the
// same two CPUs as the server. While they run, the server's process tree is sampled every 250 ms
// for its memory (the sum over the tree: git daemon forks a process per client); its CPU is read
// before the first client and after the last. The results go to a JSON file and the server is sent
// SIGTERM, whether or not the clients or the driver failed (drive-server.ts). Memory is the
// proportional set size (Pss: a page shared by n processes counts 1/n in each), not RSS: git's
// upload-packs all map the same pack, and the sum of their RSS would count it once per client.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { driveServer } from './drive-server.js';
import { sleep, ticksPerSecond, tree } from './server-tree.js';

interface Config {
  transport: 'git' | 'http';
  port: number;
  repo: string;
  clients: number;
  request: string;
  result: string;
  /** How long the clients have for their answers (default 10 minutes). */
  clientTimeoutMs?: number;
}

export interface LoadClient {
  ok: boolean;
  ms: number;
  bytes: number;
  error: string | null;
}

export interface LoadResult {
  clients: LoadClient[];
  /** From the first client's start to the last one's end. */
  totalMs: number;
  /** The server tree's CPU clock ticks over the clients' run, and the clock's rate. */
  ticks: number;
  ticksPerSecond: number;
  /** Highest sum of Pss over the server's process tree while the clients ran (bytes). */
  peakPss: number;
}

const cfg = JSON.parse(process.argv[2]!) as Config;
const body = fs.readFileSync(cfg.request);
const CLIENT_TIMEOUT_MS = cfg.clientTimeoutMs ?? 600_000;
const timedOut = `no whole answer within ${CLIENT_TIMEOUT_MS / 1000} s`;

function pkt(s: string): Buffer {
  return Buffer.concat([Buffer.from((Buffer.byteLength(s) + 4).toString(16).padStart(4, '0')), Buffer.from(s)]);
}

/**
 * Reads pkt-lines as they come: the advertisement up to its flush, then the answer: ACK/NAK lines
 * and side-band packets, whole once a flush follows the pack. An ERR line or band 3 is a failure.
 */
class Reader {
  private buf: Buffer = Buffer.alloc(0);
  bytes = 0;
  sawPack = false;
  done = false;
  error: string | null = null;

  constructor(private advertising: boolean, private readonly onAdvertised: () => void) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let p = 0;
    while (!this.done && this.buf.length - p >= 4) {
      const len = parseInt(this.buf.toString('latin1', p, p + 4), 16);
      if (Number.isNaN(len)) {
        this.fail(`bad pkt-line ${JSON.stringify(this.buf.toString('latin1', p, p + 4))}`);
        break;
      }
      if (len < 4) {
        p += 4;
        if (len !== 0) continue;
        if (this.advertising) {
          this.advertising = false;
          this.onAdvertised();
        } else if (this.sawPack) {
          this.done = true;
        }
        continue;
      }
      if (this.buf.length - p < len) break;
      const payload = this.buf.subarray(p + 4, p + len);
      p += len;
      if (payload.toString('latin1', 0, 4) === 'ERR ') this.fail(payload.toString('utf8').trim());
      else if (!this.advertising && this.sawPack === false && payload[0] === 1 && payload.toString('latin1', 1, 5) === 'PACK') this.sawPack = true;
      else if (!this.advertising && payload[0] === 3 && this.sawPack) this.fail(payload.toString('utf8', 1).trim());
    }
    this.buf = this.buf.subarray(p);
  }

  private fail(message: string): void {
    this.error = message;
    this.done = true;
  }
}

function overGit(): Promise<LoadClient> {
  const t0 = Date.now();
  return new Promise(resolve => {
    const socket = net.connect(cfg.port, '127.0.0.1');
    const reader = new Reader(true, () => socket.write(body));
    const timer = setTimeout(() => finish(timedOut), CLIENT_TIMEOUT_MS);
    const finish = (error: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: !error, ms: Date.now() - t0, bytes: reader.bytes, error });
    };
    socket.write(pkt(`git-upload-pack /${cfg.repo}\0host=127.0.0.1\0`));
    socket.on('data', (d: Buffer) => {
      reader.push(d);
      if (reader.done) finish(reader.error);
    });
    socket.on('error', e => finish(e.message));
    socket.on('close', () => finish(reader.done ? reader.error : 'the server closed the connection before the end of the pack'));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** A request and its whole answer; `deadline` (epoch ms) ends one still going. */
function get(path: string, reader: Reader, deadline: number, post?: Buffer): Promise<string | null> {
  return new Promise(resolve => {
    const timer = setTimeout(() => {
      done(timedOut);
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    const done = (error: string | null) => {
      clearTimeout(timer);
      resolve(error);
    };
    const req = http.request({
      host: '127.0.0.1', port: cfg.port, path, agent, method: post ? 'POST' : 'GET',
      headers: post ? { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Length': String(post.length) } : {},
    }, res => {
      if (res.statusCode !== 200) {
        res.resume();
        return done(`HTTP ${res.statusCode} for ${path}`);
      }
      res.on('data', (d: Buffer) => reader.push(d));
      res.on('end', () => done(reader.error ?? (post && !reader.done ? 'the answer ended before the end of the pack' : null)));
      res.on('error', e => done(e.message));
    });
    req.on('error', e => done(e.message));
    req.end(post);
  });
}

async function overHttp(): Promise<LoadClient> {
  const t0 = Date.now();
  // The advertisement's first line is "# service=git-upload-pack" and its flush.
  const deadline = t0 + CLIENT_TIMEOUT_MS;
  const advert = new Reader(false, () => undefined);
  let error = await get(`/${cfg.repo}/info/refs?service=git-upload-pack`, advert, deadline);
  const answer = new Reader(false, () => undefined);
  if (!error) error = await get(`/${cfg.repo}/git-upload-pack`, answer, deadline, body);
  return { ok: !error, ms: Date.now() - t0, bytes: advert.bytes + answer.bytes, error };
}

void driveServer(cfg.port, cfg.result, async (server, pss): Promise<LoadResult> => {
  const before = tree(server).ticks;
  const t0 = Date.now();
  const clients = await Promise.all(Array.from({ length: cfg.clients }, () => (cfg.transport === 'git' ? overGit() : overHttp())));
  const totalMs = Date.now() - t0;
  const peakPss = pss.stop();
  // Reaped children's CPU is counted once the server has waited for them.
  await sleep(300);
  return { clients, totalMs, ticks: tree(server).ticks - before, ticksPerSecond: ticksPerSecond(), peakPss };
});
