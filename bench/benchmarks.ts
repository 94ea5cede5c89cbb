// The benchmark list. Each entry runs the same work with tsgit (`node bin/tsgit <tsgit argv>`) and
// with git-core (`git <git argv>`), in the corpus's bare repository unless `cwd` says otherwise.
//
// Strings in argv, cwd and stdin may use placeholders, replaced before each run:
//   {gitDir}  the corpus (bare repository)     {head}     its HEAD commit id
//   {pack}    the corpus's one .pack file      {idx}      its .idx file
//   {scratch} an empty directory private to this benchmark, removed at the end
//   {root}    the tsgit source tree
// setup/cleanup run before/after every single measured command (both tools, every run), e.g. to
// remove a clone target. Add entries for your issue here; `issue` groups them in BENCHMARKS.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { connect as netConnect } from 'node:net';
import path from 'node:path';
import { ensureBitmapCorpus } from './bitmap-corpus.js';
import { LFS_CONFIG, ensureLfsCorpus } from './lfs-corpus.js';
import { ensurePushedCorpus } from './pushed-corpus.js';
import type { CorpusName } from './corpus.js';
import type { PushResult } from './push-driver.js';
import type { LoadResult } from './serve-load-driver.js';

export type Issue = 'foundation' | 'index-pack' | 'serve' | 'clone' | 'checkout' | 'bitmaps' | 'push' | 'real-repositories';

export interface BenchContext {
  root: string;
  gitDir: string;
  head: string;
  pack: string;
  idx: string;
  scratch: string;
}

export interface Benchmark {
  /** Short and unique; filters on the command line match `${issue}/${name}`. */
  name: string;
  issue: Issue;
  corpus: CorpusName;
  tsgit: string[];
  git: string[];
  cwd?: string;
  stdin?: string;
  setup?: (ctx: BenchContext, tool: 'tsgit' | 'git') => void | Promise<void>;
  cleanup?: (ctx: BenchContext, tool: 'tsgit' | 'git') => void | Promise<void>;
  /** Once the runs are over (a server that setup started for all of them). */
  finish?: (ctx: BenchContext) => void | Promise<void>;
  /** Variables set for tsgit's runs only, with the placeholders of the arguments. */
  tsgitEnv?: Record<string, string>;
}

/** serve-8-concurrent-clones: a port unlikely to be taken, and how many clients. */
const CLONE_PORT = 39418;
const CLONES = 8;

/** serve-20-sequential-fetches-bitmap: its port, how many fetches, and how far behind each is. */
const FETCH_PORT = 39419;
const FETCHES = 20;
const FETCH_BEHIND = 100;

/** The serve-load and sequential-push benchmarks' ports (git:// and smart HTTP): unlikely to be taken. */
const LOAD_GIT_PORT = 39422;
const LOAD_HTTP_PORT = 39423;

/** serve-100-sequential-pushes-*: how many pushes, one commit each. */
const PUSHES = 100;

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

let setAsideCount = 0;
/**
 * Moves a run's output out of the way instead of deleting it; the scratch directory goes, with
 * all of it, once the benchmark's runs are over. On ext4 without a journal (this machine's root)
 * an inode freed within the last minute is passed over when a new file is allocated, so a run
 * that follows the deletion of the previous run's thousands of files spends its time in the
 * kernel's inode search: an LFS checkout measured 1.0 s after a rename and 4.8 s after a
 * deletion, growing with every run.
 */
function setAside(ctx: BenchContext, name: string): void {
  const from = path.join(ctx.scratch, name);
  if (!fs.existsSync(from)) return;
  const trash = path.join(ctx.scratch, 'set-aside');
  fs.mkdirSync(trash, { recursive: true });
  fs.renameSync(from, path.join(trash, `${name}-${++setAsideCount}`));
}

// The clone benchmarks' git daemon: started before and stopped after every measured clone, on a
// port derived from this process's id, serving the corpus through a symlink named repo.git.
const DAEMON_PORT = 20000 + (process.pid % 20000);
const DAEMON_URL = `git://127.0.0.1:${DAEMON_PORT}/repo.git`;
let cloneDaemon: ReturnType<typeof spawn> | null = null;

async function startCloneDaemon(ctx: BenchContext): Promise<void> {
  const served = path.join(ctx.scratch, 'served');
  fs.rmSync(path.join(ctx.scratch, 'clone'), { recursive: true, force: true });
  fs.mkdirSync(served, { recursive: true });
  if (!fs.existsSync(path.join(served, 'repo.git'))) fs.symlinkSync(ctx.gitDir, path.join(served, 'repo.git'));
  cloneDaemon = spawn('git', ['daemon', '--export-all', `--base-path=${served}`, '--listen=127.0.0.1', `--port=${DAEMON_PORT}`,
    '--reuseaddr', served], { stdio: 'ignore' });
  for (let i = 0; i < 400; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = netConnect(DAEMON_PORT, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (up) return;
    if (cloneDaemon.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`git daemon did not start listening on port ${DAEMON_PORT}`);
}

async function stopCloneDaemon(ctx: BenchContext): Promise<void> {
  const child = cloneDaemon;
  cloneDaemon = null;
  await terminate(child);
  setAside(ctx, 'clone');
}

/** A clone of the corpus from the clone daemon, with each tool's global options and clone's own. */
function daemonClone(name: string, tsgitOptions: string[], gitOptions: string[], cloneOptions: string[]): Benchmark {
  const clone = ['clone', '-q', ...cloneOptions, DAEMON_URL, '{scratch}/clone'];
  return {
    name, issue: 'clone', corpus: 'large', cwd: '{scratch}',
    tsgit: [...tsgitOptions, ...clone],
    git: [...gitOptions, ...clone],
    setup: (ctx) => startCloneDaemon(ctx),
    cleanup: (ctx) => stopCloneDaemon(ctx),
  };
}

export const BENCHMARKS: Benchmark[] = [
  {
    // The receiving end of a push of the whole corpus (every ref) into an empty repository, as git
    // 2.39's client sends it (report-status-v2, side-band-64k, quiet): pack in, objects fsck'd
    // (git with receive.fsckObjects=true, as tsgit by default), connectivity, refs, report.
    name: 'receive-pack-large-into-empty',
    issue: 'push',
    corpus: 'large',
    cwd: '{scratch}/recv.git',
    stdin: '{scratch}/push-request',
    tsgit: ['receive-pack', '--stateless-rpc', '.'],
    git: ['-c', 'receive.fsckObjects=true', 'receive-pack', '--stateless-rpc', '.'],
    setup: (ctx) => { writePushRequest(ctx); freshRepo(path.join(ctx.scratch, 'recv.git')); },
  },
  {
    // One small push (one commit on top of main) into a repository holding the corpus: what each
    // of a hundred sequential pushes costs the server when it is started per push (stdio, ssh).
    name: 'receive-pack-small-push',
    issue: 'push',
    corpus: 'large',
    cwd: '{scratch}/server.git',
    stdin: '{scratch}/small-push-request',
    tsgit: ['receive-pack', '--stateless-rpc', '.'],
    git: ['-c', 'receive.fsckObjects=true', 'receive-pack', '--stateless-rpc', '.'],
    setup: (ctx) => prepareSmallPush(ctx),
  },
  {
    // The client: a push of the corpus's last 100 first-parent commits to a copy of it whose main
    // is 100 behind, both clients talking to the same git receive-pack (a local path).
    name: 'push-100-commits',
    issue: 'push',
    corpus: 'large',
    tsgit: ['push', '-q', '--receive-pack=git receive-pack', '{scratch}/behind.git', '{head}:refs/heads/main'],
    git: ['push', '-q', '--receive-pack=git receive-pack', '{scratch}/behind.git', '{head}:refs/heads/main'],
    setup: (ctx) => cloneBehind(ctx, 100),
  },
  pushBenchmark('serve-100-sequential-pushes-http', 'http'),
  pushBenchmark('serve-100-sequential-pushes-git', 'git'),
  {
    name: 'rev-list-objects',
    issue: 'foundation',
    corpus: 'large',
    tsgit: ['rev-list', '--objects', '--all'],
    git: ['rev-list', '--objects', '--all'],
  },
  {
    name: 'cat-file-batch-all',
    issue: 'foundation',
    corpus: 'large',
    tsgit: ['cat-file', '--batch', '--batch-all-objects'],
    git: ['cat-file', '--batch', '--batch-all-objects'],
  },
  // Indexing a pack in place, outside any repository (so neither tool runs collision checks).
  indexPackInPlace('index-pack', '{scratch}'),
  // The same pack indexed inside the corpus's own repository, which holds every object of it: both
  // tools compare each object with the stored one (git's collision check), as a fetch does for
  // whatever its pack repeats of what the repository has.
  indexPackInPlace('index-pack-known', '{gitDir}'),
  {
    // Receiving a pack into an empty repository, as clone does.
    name: 'index-pack-stdin',
    issue: 'index-pack',
    corpus: 'large',
    cwd: '{scratch}/recv.git',
    stdin: '{pack}',
    tsgit: ['index-pack', '--stdin'],
    git: ['index-pack', '--stdin'],
    setup: (ctx) => freshRepo(path.join(ctx.scratch, 'recv.git')),
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'recv.git'), { recursive: true, force: true }),
  },
  {
    // The same with fsck and connectivity checks (tsgit's clone default; git's fetch.fsckObjects).
    name: 'index-pack-stdin-strict',
    issue: 'index-pack',
    corpus: 'large',
    cwd: '{scratch}/recv.git',
    stdin: '{pack}',
    tsgit: ['index-pack', '--strict', '--stdin'],
    git: ['index-pack', '--strict', '--stdin'],
    setup: (ctx) => freshRepo(path.join(ctx.scratch, 'recv.git')),
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'recv.git'), { recursive: true, force: true }),
  },
  {
    // A full clone's request, as git 2.39's clone sends it over smart HTTP (every branch and tag
    // wanted, its v0 capabilities, no haves, done), replayed to upload-pack --stateless-rpc. git
    // serves it without bitmaps, the case the issue's target is set for.
    name: 'upload-pack-full-clone',
    issue: 'serve',
    corpus: 'large',
    stdin: '{scratch}/clone-request',
    tsgit: ['upload-pack', '--stateless-rpc', '.'],
    git: ['-c', 'pack.useBitmaps=false', 'upload-pack', '--stateless-rpc', '.'],
    setup: (ctx) => writeCloneRequest(ctx),
  },
  {
    // A full clone of the pushed copy of the corpus (bench/pushed-corpus.ts: its last 300 commits
    // pushed one at a time, so their objects are loose): both tools search deltas for them, and
    // with --check-output the log gives the bytes each sends.
    name: 'upload-pack-full-clone-pushed',
    issue: 'serve',
    corpus: 'small',
    cwd: '{scratch}/pushed.git',
    stdin: '{scratch}/pushed-clone-request',
    tsgit: ['upload-pack', '--stateless-rpc', '.'],
    git: ['upload-pack', '--stateless-rpc', '.'],
    setup: (ctx) => {
      const link = path.join(ctx.scratch, 'pushed.git');
      if (!fs.existsSync(link)) fs.symlinkSync(ensurePushedCorpus(ctx.gitDir), link);
      writeCloneRequest(ctx, link, 'pushed-clone-request');
    },
  },
  {
    // `repack -a -d` of a fresh copy of the pushed corpus: the auto gc a server runs after pushes.
    // The packs' sizes are compared by hand (BENCHMARKS.md).
    name: 'repack-pushed',
    issue: 'serve',
    corpus: 'small',
    cwd: '{scratch}/repack.git',
    tsgit: ['repack', '-a', '-d', '-q'],
    git: ['repack', '-a', '-d', '-q'],
    setup: (ctx) => {
      const copy = path.join(ctx.scratch, 'repack.git');
      fs.rmSync(copy, { recursive: true, force: true });
      fs.cpSync(ensurePushedCorpus(ctx.gitDir), copy, { recursive: true });
    },
  },
  {
    // Eight git clients cloning at once from one server: `tsgit serve` over smart HTTP, and git
    // daemon over git:// (git has no HTTP server of its own). The server's CPU and peak memory are
    // measured, its upload-packs included; a driver started by setup runs the clients, checks that
    // every clone got the corpus's HEAD, and then stops the server.
    name: 'serve-8-concurrent-clones',
    issue: 'serve',
    corpus: 'large',
    cwd: '{scratch}',
    tsgit: ['serve', '--port', String(CLONE_PORT), '--no-git-daemon', '--export-all', '{gitDir}/..'],
    // git daemon dies of the driver's SIGTERM; the alias's shell turns that into a clean exit.
    git: ['-c', `alias.serve-clones=!git daemon --reuseaddr --export-all --listen=127.0.0.1 --port=${CLONE_PORT} --base-path={gitDir}/.. {gitDir}/.. || true`, 'serve-clones'],
    setup: (ctx, tool) => startCloneDriver(ctx, tool),
    cleanup: (ctx, tool) => checkCloneDriver(ctx, tool),
  },
  checkoutBenchmark('checkout-large', 'large'),
  checkoutBenchmark('checkout-wide', 'wide'),
  {
    // 2,000 LFS-tracked files through `git-lfs filter-process` (bench/lfs-corpus.ts): each tool
    // checks out a fresh `clone -n` of a file:// remote with git-lfs configured in the clone, so
    // both drive the same git-lfs, which delays every file, fetches the objects from the remote's
    // lfs/objects, and hands them back one at a time. (The corpus is unused.)
    name: 'checkout-lfs-2000',
    issue: 'real-repositories',
    corpus: 'small',
    cwd: '{scratch}/wt',
    tsgit: ['checkout', '-q'],
    git: ['checkout', '-q'],
    setup: (ctx) => cloneLfsWithoutCheckout(ctx),
    cleanup: (ctx) => setAside(ctx, 'wt'),
  },
  // A full clone (with checkout) from git daemon on loopback; the daemon serves the corpus
  // (without bitmaps, so its own counting is part of both tools' wall time). Each tool with its
  // defaults: tsgit checks every object, git checks none.
  daemonClone('clone', [], [], []),
  // Both checking every object (git's transfer.fsckObjects=true: index-pack --strict and its
  // connectivity check), and neither.
  daemonClone('clone-fsck-both', [], ['-c', 'transfer.fsckObjects=true'], []),
  daemonClone('clone-fsck-neither', ['-c', 'transfer.fsckObjects=false'], [], []),
  // Without a work tree: transport, negotiation and index-pack only.
  daemonClone('clone-bare', [], [], ['--bare']),
  {
    // The full clone's request of upload-pack-full-clone, served from the bitmapped copy of the
    // corpus (bench/bitmap-corpus.ts, linked as {scratch}/repo.git) with bitmaps on for both tools
    // (git's pack.useBitmaps default): counting is bitmap arithmetic, the pack is copied verbatim.
    name: 'upload-pack-full-clone-bitmap',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}/repo.git',
    stdin: '{scratch}/clone-request',
    tsgit: ['upload-pack', '--stateless-rpc', '.'],
    git: ['upload-pack', '--stateless-rpc', '.'],
    setup: (ctx) => { linkBitmapCorpus(ctx); writeCloneRequest(ctx); },
  },
  {
    // A fetch by a clone 100 first-parent commits behind HEAD: want HEAD, have HEAD~100, with git
    // 2.39's fetch capabilities (thin pack, include-tag), from the bitmapped copy.
    name: 'upload-pack-fetch-100-behind-bitmap',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}/repo.git',
    stdin: '{scratch}/fetch-request',
    tsgit: ['upload-pack', '--stateless-rpc', '.'],
    git: ['upload-pack', '--stateless-rpc', '.'],
    setup: (ctx) => writeFetchRequest(ctx, linkBitmapCorpus(ctx), 100),
  },
  {
    // The same fetch as ssh serves it: a fresh process per connection on stdin/stdout (not
    // --stateless-rpc), the repository named by path. tsgit's process relays it to a `tsgit serve
    // --socket` started once for all runs (TSGIT_SERVE_SOCKET), whose warm worker answers; git's is
    // git-upload-pack itself. The wall is the per-connection process's, start to exit.
    name: 'upload-pack-fetch-100-behind-relayed',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}',
    stdin: '{scratch}/fetch-request',
    tsgit: ['upload-pack', '{scratch}/root/repo.git'],
    git: ['upload-pack', '{scratch}/root/repo.git'],
    tsgitEnv: { TSGIT_SERVE_SOCKET: '{scratch}/serve.sock' },
    setup: (ctx) => startRelayServer(ctx),
    finish: () => stopRelayServer(),
  },
  {
    // Counting reachable objects from the bitmap alone (git's `rev-list --use-bitmap-index`): open
    // the .bitmap, OR the tips' bitmaps, count bits; on the bitmapped copy of large.
    name: 'rev-list-count-bitmap',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}/repo.git',
    tsgit: ['rev-list', '--use-bitmap-index', '--count', '--objects', '--all'],
    git: ['rev-list', '--use-bitmap-index', '--count', '--objects', '--all'],
    setup: (ctx) => { linkBitmapCorpus(ctx); },
  },
  {
    // Listing every reachable object from the bitmap (ids in pack order, no paths).
    name: 'rev-list-objects-bitmap',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}/repo.git',
    tsgit: ['rev-list', '--use-bitmap-index', '--objects', '--all'],
    git: ['rev-list', '--use-bitmap-index', '--objects', '--all'],
    setup: (ctx) => { linkBitmapCorpus(ctx); },
  },
  {
    // Twenty git clients, one after the other, each fetching HEAD when 100 first-parent commits
    // behind, over git:// from the bitmapped copy: `tsgit serve` (its warm upload-pack workers)
    // against git daemon (an upload-pack process per fetch). As in serve-8-concurrent-clones the
    // measured command is the server, from start to the driver's SIGTERM after the last fetch:
    // CPU and RSS are the server's with its upload-packs, wall includes the clients' time. So the
    // table's CPU includes the server's start (for tsgit: starting its workers and opening the
    // repository in them), paid once by a server that runs all day.
    // What such a server costs per fetch is printed after the run ("steady state"): the driver
    // reads the server's process tree's CPU from /proc (utime+stime of the listening process and
    // of every live descendant, plus cutime+cstime of each, which holds the children they reaped:
    // git daemon's per-connection processes and their upload-pack and pack-objects) once the
    // first fetch, and again the tenth, have been answered, and after the last; the differences
    // divided by the fetches between are the server CPU per fetch over fetches 2-20 (after one
    // warm-up fetch) and over 11-20 (after ten, once node's JIT has compiled the hot code). The
    // first fetch waits until the server has settled (its CPU still for three seconds): what it
    // spent starting is printed apart, and is in the table's CPU.
    name: 'serve-20-sequential-fetches-bitmap',
    issue: 'bitmaps',
    corpus: 'large',
    cwd: '{scratch}',
    tsgit: ['serve', '--port', '0', '--git-port', String(FETCH_PORT), '--export-all', '{gitDir}/..'],
    git: ['-c', `alias.serve-fetches=!git daemon --reuseaddr --export-all --listen=127.0.0.1 --port=${FETCH_PORT} --base-path={gitDir}/.. {gitDir}/.. || true`, 'serve-fetches'],
    setup: (ctx, tool) => startFetchDriver(ctx, tool),
    cleanup: (ctx, tool) => checkFetchDriver(ctx, tool),
  },
  serveLoadBenchmark('serve-64-concurrent-clones-git', 'git', 'clone', 64),
  serveLoadBenchmark('serve-64-concurrent-clones-http', 'http', 'clone', 64),
  serveLoadBenchmark('serve-200-concurrent-fetches-git', 'git', 'fetch', 200),
  serveLoadBenchmark('serve-200-concurrent-fetches-http', 'http', 'fetch', 200),
];

/**
 * Many clients at once against one server (issue #15), on the bitmapped copy of the corpus (a
 * server of CI fleets keeps bitmaps: git's repack writes them for bare repositories): `clients`
 * clones of every branch and tag, or fetches 100 first-parent commits behind, all started together
 * by bench/serve-load-driver.ts once the server has settled. tsgit serve (two workers on two CPUs,
 * its defaults otherwise) against git daemon over git:// (--max-connections=0: its default of 32
 * would refuse or kill clients past it) or `git http-backend` run as CGI by bench/cgi-server.ts
 * over smart HTTP. The measured command is the server from start to the driver's SIGTERM, so the
 * table's figures include starting and settling; what matters is printed after each run: time
 * until every client was done, p50/p99 client latency, failures, the server tree's peak memory
 * (the sum of its processes' Pss, sampled every 250 ms) and its CPU per request.
 */
function serveLoadBenchmark(name: string, transport: 'git' | 'http', kind: 'clone' | 'fetch', clients: number): Benchmark {
  const port = transport === 'git' ? LOAD_GIT_PORT : LOAD_HTTP_PORT;
  return {
    name,
    issue: 'serve',
    corpus: 'large',
    cwd: '{scratch}',
    ...loadServers(transport, []),
    setup: (ctx, tool) => startLoadDriver(ctx, tool, { transport, port, kind, clients }),
    cleanup: (ctx, tool) => checkLoadDriver(ctx, tool, name),
  };
}

/**
 * The two servers of {scratch}/root on the load ports, measured from start to the driver's
 * SIGTERM: tsgit serve (HTTP and git://), and for git `git http-backend` as CGI behind
 * bench/cgi-server.ts (HTTP) or git daemon (git://). `enable` goes to both tsgit serve and git
 * daemon (--enable=receive-pack).
 */
function loadServers(transport: 'git' | 'http', enable: string[]): Pick<Benchmark, 'tsgit' | 'git'> {
  const server = transport === 'git'
    ? `git daemon --reuseaddr --export-all --max-connections=0 ${enable.map(e => `${e} `).join('')}--listen=127.0.0.1 --port=${LOAD_GIT_PORT} --base-path={scratch}/root {scratch}/root`
    : `node {root}/dist/bench/cgi-server.js ${LOAD_HTTP_PORT} {scratch}/root`;
  return {
    tsgit: ['serve', '--quiet', '--port', String(LOAD_HTTP_PORT), '--git-port', String(LOAD_GIT_PORT), '--export-all', ...enable, '{scratch}/root'],
    // The server dies of the driver's SIGTERM; the alias's shell turns that into a clean exit.
    git: ['-c', `alias.serve-load=!${server} || true`, 'serve-load'],
  };
}

/**
 * {scratch}/root/repo.git, alone under the served root: `source` hard-linked, made once, or anew
 * when `fresh`. The links are safe to write through: neither git nor tsgit writes into a file of
 * a repository in place (objects, refs and config are written aside and renamed over).
 */
function servedRoot(ctx: BenchContext, source: string, fresh: boolean): string {
  const repo = path.join(ctx.scratch, 'root', 'repo.git');
  if (fresh) fs.rmSync(repo, { recursive: true, force: true });
  if (fs.existsSync(repo)) return repo;
  fs.mkdirSync(path.dirname(repo), { recursive: true });
  execFileSync('cp', ['-al', source, repo]);
  return repo;
}

function startLoadDriver(ctx: BenchContext, tool: 'tsgit' | 'git', o: { transport: 'git' | 'http'; port: number; kind: 'clone' | 'fetch'; clients: number }): void {
  // The bitmapped corpus, read only.
  const repo = servedRoot(ctx, ensureBitmapCorpus(ctx.gitDir), false);
  if (o.kind === 'clone') writeCloneRequest(ctx);
  else writeFetchRequest(ctx, repo, FETCH_BEHIND);
  const result = path.join(ctx.scratch, `load-${tool}.json`);
  fs.rmSync(result, { force: true });
  const config = {
    transport: o.transport, port: o.port, repo: 'repo.git', clients: o.clients, result,
    request: path.join(ctx.scratch, o.kind === 'clone' ? 'clone-request' : 'fetch-request'),
  };
  const child = spawn(process.execPath, [path.join(ctx.root, 'dist', 'bench', 'serve-load-driver.js'), JSON.stringify(config)], { detached: true, stdio: 'ignore' });
  child.unref();
}

function checkLoadDriver(ctx: BenchContext, tool: 'tsgit' | 'git', name: string): void {
  const r = JSON.parse(fs.readFileSync(path.join(ctx.scratch, `load-${tool}.json`), 'utf8')) as LoadResult | { error: string };
  if ('error' in r) throw new Error(`${tool}: the driver failed: ${r.error}`);
  const ms = r.clients.map(c => c.ms).sort((a, b) => a - b);
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((ms.length * p) / 100))]!;
  const bad = r.clients.filter(c => !c.ok);
  const cpu = (r.ticks * 1000) / r.ticksPerSecond;
  process.stderr.write(`${tool} ${name}: ${r.clients.length} clients, all done in ${(r.totalMs / 1000).toFixed(2)} s; ` +
    `latency p50 ${pct(50)} ms, p99 ${pct(99)} ms; ${bad.length} failed; peak server memory (Pss) ${Math.round(r.peakPss / 1048576)} MiB; ` +
    `server CPU ${(cpu / 1000).toFixed(2)} s, ${(cpu / Math.max(1, r.clients.length - bad.length)).toFixed(1)} ms per request served\n`);
  if (bad.length > 0) process.stderr.write(`${tool}: ${bad.length} of ${r.clients.length} clients failed, the first with: ${bad[0]!.error}\n`);
  // tsgit's goal is no failure at all; git's are a fact to report (git daemon listens with a
  // backlog of 5, so a burst of connections waits out SYN retries or is reset).
  if (bad.length > 0 && tool === 'tsgit') throw new Error(`${bad.length} of ${r.clients.length} clients failed: ${bad[0]!.error}`);
}

/**
 * PUSHES small pushes, one after the other, to one long-running server (issue #17): tsgit serve
 * against git http-backend (HTTP) or git daemon (git://, both with --enable=receive-pack), serving
 * a fresh hard-linked copy of the corpus every run with http.receivepack and receive.fsckObjects
 * set. bench/push-driver.ts pushes the prepared commits with `git push` once the server has
 * settled. As for serve-load, the table is the server from start to SIGTERM; what each push costs
 * the server tree (its CPU over the pushes divided by their number) is printed after each run, and
 * the served main and a `git fsck` of the served repository are checked.
 */
function pushBenchmark(name: string, transport: 'git' | 'http'): Benchmark {
  return {
    name,
    issue: 'push',
    corpus: 'large',
    cwd: '{scratch}',
    ...loadServers(transport, transport === 'git' ? ['--enable=receive-pack'] : []),
    setup: (ctx, tool) => startPushDriver(ctx, tool, transport),
    cleanup: (ctx, tool) => checkPushDriver(ctx, tool, name),
  };
}

/**
 * {scratch}/client.git, borrowing the corpus's objects: PUSHES commits on top of HEAD, each
 * changing one small file at the top (a push of a commit, a tree and a blob), with fixed names
 * and dates so that every run and machine pushes the same objects. Made once by fast-import;
 * the commits come back oldest first.
 */
function pushCommits(ctx: BenchContext): { client: string; commits: string[] } {
  const client = path.join(ctx.scratch, 'client.git');
  if (!fs.existsSync(client)) {
    freshRepo(client);
    fs.writeFileSync(path.join(client, 'objects', 'info', 'alternates'), `${path.join(ctx.gitDir, 'objects')}\n`);
    const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`;
    let stream = '';
    for (let i = 1; i <= PUSHES; i++) {
      stream += `commit refs/heads/main\ncommitter B <b@example.com> ${1_700_000_000 + i * 60} +0000\n${data(`push ${i}\n`)}` +
        `${i === 1 ? `from ${ctx.head}\n` : ''}M 100644 inline bench-push.txt\n${data(`line ${i} of the pushes\n`)}\n`;
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: client, env: GIT_ENV, input: stream });
  }
  const commits = execFileSync('git', ['rev-list', '--reverse', `${ctx.head}..refs/heads/main`], { cwd: client, env: GIT_ENV })
    .toString().trim().split('\n');
  return { client, commits };
}

function startPushDriver(ctx: BenchContext, tool: 'tsgit' | 'git', transport: 'git' | 'http'): void {
  const { client, commits } = pushCommits(ctx);
  const repo = servedRoot(ctx, ctx.gitDir, true);
  for (const key of ['http.receivepack', 'receive.fsckObjects']) execFileSync('git', ['config', key, 'true'], { cwd: repo, env: GIT_ENV });
  const result = path.join(ctx.scratch, `push-${tool}.json`);
  fs.rmSync(result, { force: true });
  const port = transport === 'git' ? LOAD_GIT_PORT : LOAD_HTTP_PORT;
  const config = { port, url: `${transport}://127.0.0.1:${port}/repo.git`, client, commits, result };
  spawn(process.execPath, [path.join(ctx.root, 'dist', 'bench', 'push-driver.js'), JSON.stringify(config)], { detached: true, stdio: 'ignore' }).unref();
}

function checkPushDriver(ctx: BenchContext, tool: 'tsgit' | 'git', name: string): void {
  const r = JSON.parse(fs.readFileSync(path.join(ctx.scratch, `push-${tool}.json`), 'utf8')) as PushResult | { error: string };
  if ('error' in r) throw new Error(`${tool}: the push driver failed: ${r.error}`);
  const failed = r.pushes.find(p => !p.ok);
  if (failed) throw new Error(`${tool}: push ${r.pushes.length} of ${PUSHES} failed: ${failed.error}`);
  const repo = path.join(ctx.scratch, 'root', 'repo.git');
  const main = execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: repo, env: GIT_ENV }).toString().trim();
  const { commits } = pushCommits(ctx);
  if (main !== commits[commits.length - 1]) throw new Error(`${tool}: the served main is ${main}, not the last commit pushed, ${commits[commits.length - 1]}`);
  execFileSync('git', ['fsck', '--no-progress'], { cwd: repo, env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = r.pushes.map(p => p.ms).sort((a, b) => a - b);
  const cpuMs = (from: number, to: number) => {
    const a = r.cpu.find(c => c.after === from)!, b = r.cpu.find(c => c.after === to)!;
    return ((b.ticks - a.ticks) * 1000) / r.ticksPerSecond / (to - from);
  };
  process.stderr.write(`${tool} ${name}: ${ms.length} pushes, wall per push p50 ${ms[ms.length >> 1]} ms, ` +
    `mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(0)} ms; peak server memory (Pss) ${Math.round(r.peakPss / 1048576)} MiB; ` +
    `server CPU per push ${cpuMs(0, PUSHES).toFixed(1)} ms (pushes 1-${PUSHES}), ${cpuMs(10, PUSHES).toFixed(1)} ms (11-${PUSHES}), ` +
    `first push ${cpuMs(0, 1).toFixed(0)} ms; served main is the last commit, git fsck passed\n`);
}

/**
 * {scratch}/behind.git: the bitmapped corpus's history up to HEAD~100 only (fetched by id once), so
 * that a repository borrowing its objects really lacks the last 100 commits.
 */
function behindBase(ctx: BenchContext, corpus: string): { base: string; behind: string } {
  const base = path.join(ctx.scratch, 'behind.git');
  const behind = execFileSync('git', ['rev-parse', `HEAD~${FETCH_BEHIND}`], { cwd: corpus }).toString().trim();
  if (!fs.existsSync(path.join(base, 'refs', 'heads', 'main'))) {
    freshRepo(base);
    execFileSync('git', ['fetch', '-q', '--upload-pack=git -c uploadpack.allowAnySHA1InWant=true upload-pack', corpus, `${behind}:refs/heads/main`],
      { cwd: base, env: GIT_ENV });
  }
  return { base, behind };
}

/**
 * Helpers both client drivers define (they need `fs`, `net` and `port` in scope): treeTicks(pid)
 * is the CPU clock ticks (utime+stime+cutime+cstime) of pid and its live descendants, read once the
 * server has had a moment to reap what the last request left; listening() says whether the
 * server accepts connections yet.
 */
const DRIVER_HELPERS = `
    const treeTicks = async (pid) => {
      await new Promise(r => setTimeout(r, 300));
      const stats = new Map();
      for (const p of fs.readdirSync('/proc')) {
        if (!/^\\d+$/.test(p)) continue;
        try {
          const text = fs.readFileSync('/proc/' + p + '/stat', 'utf8');
          const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
          stats.set(+p, { ppid: +f[1], ticks: +f[11] + +f[12] + +f[13] + +f[14] });
        } catch { /* gone meanwhile */ }
      }
      let total = 0;
      const add = (p) => { total += stats.get(p).ticks; for (const [c, s] of stats) if (s.ppid === p) add(c); };
      add(pid);
      return total;
    };
    const listening = () => new Promise(r => { const s = net.connect(+port, '127.0.0.1', () => { s.destroy(); r(true); }); s.on('error', () => r(false)); });
`;

/**
 * Starts, in the background, the clients of serve-20-sequential-fetches-bitmap: once the server
 * listens, FETCHES fresh clients (each borrowing behind.git's objects, main at HEAD~100) fetch main
 * one after the other; their results are written down and the server on the port is stopped.
 */
function startFetchDriver(ctx: BenchContext, tool: 'tsgit' | 'git'): void {
  const corpus = linkBitmapCorpus(ctx);
  const { base, behind } = behindBase(ctx, corpus);
  const url = `git://127.0.0.1:${FETCH_PORT}/${path.basename(fs.realpathSync(corpus))}`;
  const result = path.join(ctx.scratch, `fetches-${tool}.json`);
  fs.rmSync(result, { force: true });
  const driver = `
    const { execFileSync } = require('node:child_process');
    const fs = require('node:fs');
    const net = require('node:net');
    const [url, scratch, base, behind, result, port, n] = process.argv.slice(1);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    ${DRIVER_HELPERS}
    (async () => {
      const deadline = Date.now() + 60000;
      while (!(await listening())) { if (Date.now() > deadline) break; await new Promise(r => setTimeout(r, 50)); }
      const fetches = [], cpu = [];
      const server = +execFileSync('ss', ['-ltnpH', 'sport = :' + port]).toString().match(/pid=(\\d+)/)[1];
      // A server that starts work of its own (tsgit's workers opening and rehearsing the
      // repository) is left to finish it: the first fetch comes once its CPU has not moved for
      // three seconds (at most a minute).
      const startedAt = Date.now();
      let startTicks = await treeTicks(server);
      for (let quiet = 0; quiet < 3 && Date.now() - startedAt < 60000;) {
        await new Promise(r => setTimeout(r, 700));
        const now = await treeTicks(server);
        quiet = now === startTicks ? quiet + 1 : 0;
        startTicks = now;
      }
      const settled = { ticks: startTicks, ms: Date.now() - startedAt };
      try {
      for (let i = 0; i < +n; i++) {
        const dir = scratch + '/fetch-' + i + '.git';
        fs.rmSync(dir, { recursive: true, force: true });
        execFileSync('git', ['init', '-q', '--bare', dir], { env });
        fs.writeFileSync(dir + '/objects/info/alternates', base + '/objects\\n');
        fs.writeFileSync(dir + '/refs/heads/main', behind + '\\n');
        const started = Date.now();
        let error = null, head = null;
        try {
          // No automatic gc after the fetch: it may run detached, using the CPU while the next
          // fetch is measured and writing into the directory about to be removed.
          execFileSync('git', ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', 'fetch', '-q', url, '+refs/heads/main:refs/heads/main'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
          head = execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: dir, env }).toString().trim();
        } catch (e) { error = String(e.message).slice(0, 500); }
        fetches.push({ ok: !error, head, error, ms: Date.now() - started });
        fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
        if (i === 0 || i === 9 || i === +n - 1) cpu.push({ after: i + 1, ticks: await treeTicks(server) });
      }
      } catch (e) { fetches.push({ ok: false, head: null, error: 'driver: ' + e.message, ms: 0 }); }
      fs.writeFileSync(result, JSON.stringify({ fetches, cpu, settled, ticksPerSecond: +execFileSync('getconf', ['CLK_TCK']).toString() }));
      process.kill(server, 'SIGTERM');
    })();`;
  const child = spawn(process.execPath, ['-e', driver, url, ctx.scratch, base, behind, result, String(FETCH_PORT), String(FETCHES)], { detached: true, stdio: 'ignore' });
  child.unref();
}

interface FetchDriverResult {
  fetches: { ok: boolean; head: string | null; error: string | null; ms: number }[];
  /** The server tree's CPU clock ticks after fetches 1, 10 and the last. */
  cpu: { after: number; ticks: number }[];
  /** The server tree's CPU clock ticks once it had settled, before the first fetch, and when. */
  settled: { ticks: number; ms: number };
  ticksPerSecond: number;
}

function checkFetchDriver(ctx: BenchContext, tool: 'tsgit' | 'git'): void {
  const result = path.join(ctx.scratch, `fetches-${tool}.json`);
  const { fetches, cpu, settled, ticksPerSecond } = JSON.parse(fs.readFileSync(result, 'utf8')) as FetchDriverResult;
  const bad = fetches.filter(f => !f.ok || f.head !== ctx.head);
  if (bad.length > 0) throw new Error(`${tool}: ${bad.length} of ${fetches.length} fetches failed: ${bad[0]!.error ?? `main at ${bad[0]!.head}`}`);
  const ms = fetches.map(f => f.ms).sort((a, b) => a - b);
  const last = cpu[cpu.length - 1]!;
  const perFetch = (from: { after: number; ticks: number }) =>
    `${(((last.ticks - from.ticks) * 1000) / ticksPerSecond / (last.after - from.after)).toFixed(1)} ms (fetches ${from.after + 1}-${last.after})`;
  process.stderr.write(`${tool}: ${fetches.length} fetches, median ${ms[ms.length >> 1]} ms each (client wall); ` +
    `steady-state server CPU per fetch ${perFetch(cpu[0]!)}, ${perFetch(cpu[1]!)}; ` +
    `first fetch ${(((cpu[0]!.ticks - settled.ticks) * 1000) / ticksPerSecond).toFixed(0)} ms; ` +
    `server start ${((settled.ticks * 1000) / ticksPerSecond).toFixed(0)} ms of CPU, settled after ${(settled.ms / 1000).toFixed(1)} s\n`);
}

/** {scratch}/repo.git: a link to the bitmapped copy of the corpus, built on first use. */
function linkBitmapCorpus(ctx: BenchContext): string {
  const link = path.join(ctx.scratch, 'repo.git');
  if (!fs.existsSync(link)) fs.symlinkSync(ensureBitmapCorpus(ctx.gitDir), link);
  return link;
}

let relayServer: ReturnType<typeof spawn> | null = null;

/**
 * {scratch}/root/repo.git (the bitmapped corpus, hard-linked: serve refuses a repository linked in
 * from outside its root) and its fetch request, and, once for all runs, `tsgit serve --socket
 * {scratch}/serve.sock` on it: ready when a request through the socket has been answered with a
 * pack, so the first measured run finds a worker with the repository open.
 */
async function startRelayServer(ctx: BenchContext): Promise<void> {
  const repo = servedRoot(ctx, ensureBitmapCorpus(ctx.gitDir), false);
  writeFetchRequest(ctx, repo, FETCH_BEHIND);
  if (relayServer) return;
  const socket = path.join(ctx.scratch, 'serve.sock');
  relayServer = spawn(process.execPath, [path.join(ctx.root, 'bin', 'tsgit'), 'serve', '--port', '0', '--no-git-daemon',
    '--export-all', '--quiet', '--socket', socket, path.dirname(repo)], { stdio: 'ignore', env: GIT_ENV });
  for (let i = 0; i < 400 && !fs.existsSync(socket); i++) await new Promise((r) => setTimeout(r, 25));
  const probe = spawnSync(process.execPath, [path.join(ctx.root, 'bin', 'tsgit'), 'upload-pack', repo],
    { input: fs.readFileSync(path.join(ctx.scratch, 'fetch-request')), env: { ...GIT_ENV, TSGIT_SERVE_SOCKET: socket }, maxBuffer: 1 << 30 });
  // The answer must be a pack (band 1 starting PACK), not an ERR line that would time as fast.
  if (probe.status !== 0 || !probe.stdout.includes('\x01PACK')) {
    await stopRelayServer();
    throw new Error(`tsgit serve --socket did not answer with a pack: ${probe.stdout.subarray(0, 200).toString('latin1')}`);
  }
}

async function stopRelayServer(): Promise<void> {
  const child = relayServer;
  relayServer = null;
  await terminate(child);
}

/** Sends a server a benchmark started SIGTERM and waits until it has gone. */
async function terminate(child: ReturnType<typeof spawn> | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A fetch's request: want HEAD, have HEAD~behind (first parents), as git 2.39's fetch asks. */
function writeFetchRequest(ctx: BenchContext, gitDir: string, behind: number): void {
  const file = path.join(ctx.scratch, 'fetch-request');
  if (fs.existsSync(file)) return;
  const [want, have] = execFileSync('git', ['rev-parse', 'HEAD', `HEAD~${behind}`], { cwd: gitDir }).toString().trim().split('\n');
  const caps = ' multi_ack_detailed no-done side-band-64k thin-pack include-tag ofs-delta deepen-since deepen-not agent=git/2.39.5';
  fs.writeFileSync(file, `${pkt(`want ${want}${caps}\n`)}0000${pkt(`have ${have}\n`)}${pkt('done\n')}`);
}

/**
 * Filling the work tree of a `clone -n` from HEAD, the last step of clone: each tool checks out
 * into its own fresh clone (objects hard-linked from the corpus), so both start from no index
 * and an empty directory. For git that is its initial checkout (unpack_trees + check_updates).
 */
function checkoutBenchmark(name: string, corpus: CorpusName): Benchmark {
  return {
    name,
    issue: 'checkout',
    corpus,
    cwd: '{scratch}/wt',
    tsgit: ['checkout', '-q'],
    git: ['checkout', '-q'],
    setup: (ctx) => cloneWithoutCheckout(ctx),
    cleanup: (ctx) => setAside(ctx, 'wt'),
  };
}

/** `index-pack -o <idx> <the corpus's pack>`, run in `cwd`. */
function indexPackInPlace(name: string, cwd: string): Benchmark {
  return {
    name,
    issue: 'index-pack',
    corpus: 'large',
    cwd,
    tsgit: ['index-pack', '-o', '{scratch}/out.idx', '{pack}'],
    git: ['index-pack', '-o', '{scratch}/out.idx', '{pack}'],
    cleanup: (ctx) => fs.rmSync(path.join(ctx.scratch, 'out.idx'), { force: true }),
  };
}

/** {scratch}/wt: a clone of the corpus without a checkout, as `git clone -n` leaves it. */
function cloneWithoutCheckout(ctx: BenchContext): void {
  const wt = path.join(ctx.scratch, 'wt');
  fs.rmSync(wt, { recursive: true, force: true });
  execFileSync('git', ['clone', '-q', '-n', ctx.gitDir, wt], { env: GIT_ENV });
}

/** {scratch}/wt: a `clone -n` of the LFS corpus over file://, git-lfs set up in its config. */
function cloneLfsWithoutCheckout(ctx: BenchContext): void {
  const wt = path.join(ctx.scratch, 'wt');
  fs.rmSync(wt, { recursive: true, force: true });
  const env = GIT_ENV;
  execFileSync('git', ['clone', '-q', '-n', `file://${ensureLfsCorpus()}`, wt], { env });
  for (const [key, value] of LFS_CONFIG) execFileSync('git', ['config', key, value], { cwd: wt, env });
}

function freshRepo(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync('git', ['init', '-q', '--bare', dir]);
}


const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`;

/** Update commands (the first with git 2.39's push capabilities), then a flush. */
function pushCommands(commands: { old: string; new: string; name: string }[]): string {
  const caps = 'report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5';
  return `${commands.map((c, i) => pkt(`${c.old} ${c.new} ${c.name}${i === 0 ? `\0${caps}` : ''}`)).join('')}0000`;
}

/** {scratch}/push-request: every ref of the corpus created, and the corpus's pack. */
function writePushRequest(ctx: BenchContext): void {
  const file = path.join(ctx.scratch, 'push-request');
  if (fs.existsSync(file)) return;
  const zero = '0'.repeat(40);
  const refs = execFileSync('git', ['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: ctx.gitDir }).toString().trim().split('\n');
  const commands = refs.map((l) => ({ old: zero, new: l.slice(0, 40), name: l.slice(41) }));
  fs.writeFileSync(file, pushCommands(commands));
  fs.appendFileSync(file, fs.readFileSync(ctx.pack));
}

/**
 * {scratch}/server.git: the corpus (its pack hard-linked) with main as in the corpus, and
 * {scratch}/small-push-request: one new commit on main, as a thin pack. Made once; before every
 * run main is set back and the objects of the previous run's push removed.
 */
function prepareSmallPush(ctx: BenchContext): void {
  const server = path.join(ctx.scratch, 'server.git');
  const request = path.join(ctx.scratch, 'small-push-request');
  const env = GIT_ENV;
  if (!fs.existsSync(request)) {
    execFileSync('git', ['clone', '-q', '--bare', '--local', ctx.gitDir, server], { env });
    const work = path.join(ctx.scratch, 'work');
    execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', server, work], { env });
    const tree = execFileSync('git', ['rev-parse', `${ctx.head}^{tree}`], { cwd: work, env }).toString().trim();
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: work, env, input: 'one more line\n' }).toString().trim();
    const newTree = execFileSync('git', ['mktree'], {
      cwd: work, env, input: execFileSync('git', ['ls-tree', tree], { cwd: work, env }).toString() + `100644 blob ${blob}\tbench-small-push.txt\n`,
    }).toString().trim();
    const commit = execFileSync('git', ['commit-tree', newTree, '-p', ctx.head, '-m', 'small push'], {
      cwd: work, env: { ...env, GIT_AUTHOR_NAME: 'B', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'B', GIT_COMMITTER_EMAIL: 'b@example.com' },
    }).toString().trim();
    const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '--thin', '-q'], { cwd: work, env, input: `${commit}\n^${ctx.head}\n` });
    fs.writeFileSync(request, pushCommands([{ old: ctx.head, new: commit, name: 'refs/heads/main' }]));
    fs.appendFileSync(request, pack);
  }
  execFileSync('git', ['update-ref', 'refs/heads/main', ctx.head], { cwd: server, env });
  for (const dir of fs.readdirSync(path.join(server, 'objects'))) {
    if (/^[0-9a-f]{2}$/.test(dir)) fs.rmSync(path.join(server, 'objects', dir), { recursive: true, force: true });
  }
  for (const f of fs.readdirSync(path.join(server, 'objects', 'pack'))) {
    if (!f.startsWith(path.basename(ctx.pack, '.pack'))) fs.rmSync(path.join(server, 'objects', 'pack', f), { force: true });
  }
  fs.rmSync(path.join(server, 'logs'), { recursive: true, force: true });
}

/** {scratch}/behind.git: the corpus (its pack hard-linked) with main `n` first-parent commits behind. */
function cloneBehind(ctx: BenchContext, n: number): void {
  const dir = path.join(ctx.scratch, 'behind.git');
  fs.rmSync(dir, { recursive: true, force: true });
  const env = GIT_ENV;
  execFileSync('git', ['clone', '-q', '--bare', '--local', ctx.gitDir, dir], { env });
  execFileSync('git', ['update-ref', 'refs/heads/main', `${ctx.head}~${n}`], { cwd: dir, env });
  execFileSync('git', ['config', 'receive.autogc', 'false'], { cwd: dir, env });
}

/** The want list of a full clone of every branch and tag, with git 2.39's clone capabilities. */
function writeCloneRequest(ctx: BenchContext, repo = ctx.gitDir, name = 'clone-request'): void {
  const file = path.join(ctx.scratch, name);
  if (fs.existsSync(file)) return;
  const oids = [...new Set(execFileSync('git', ['for-each-ref', '--format=%(objectname)', 'refs/heads', 'refs/tags'], { cwd: repo })
    .toString().trim().split('\n'))];
  const caps = ' multi_ack_detailed no-done side-band-64k thin-pack include-tag ofs-delta deepen-since deepen-not agent=git/2.39.5';
  const lines = oids.map((oid, i) => pkt(`want ${oid}${i === 0 ? caps : ''}\n`));
  fs.writeFileSync(file, `${lines.join('')}0000${pkt('done\n')}`);
}

/**
 * Starts, in the background, the clients of serve-8-concurrent-clones: once the server listens
 * they clone at once; when all are done their results are written down and the server, found as
 * the process listening on the port, is stopped.
 */
function startCloneDriver(ctx: BenchContext, tool: 'tsgit' | 'git'): void {
  const url = tool === 'tsgit' ? `http://127.0.0.1:${CLONE_PORT}/${path.basename(ctx.gitDir)}` : `git://127.0.0.1:${CLONE_PORT}/${path.basename(ctx.gitDir)}`;
  const result = path.join(ctx.scratch, `clones-${tool}.json`);
  fs.rmSync(result, { force: true });
  const driver = `
    const { execFile, execFileSync } = require('node:child_process');
    const fs = require('node:fs');
    const net = require('node:net');
    const [url, scratch, result, port, n] = process.argv.slice(1);
    ${DRIVER_HELPERS}
    const clone = i => new Promise(r => {
      const dir = scratch + '/clone-' + i + '.git';
      execFileSync('rm', ['-rf', dir]);
      execFile('git', ['clone', '-q', '--bare', url, dir], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }, (err) => {
        let head = null;
        try { head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim(); } catch {}
        execFileSync('rm', ['-rf', dir]);
        r({ ok: !err, head, error: err ? String(err.message).slice(0, 500) : null });
      });
    });
    (async () => {
      const deadline = Date.now() + 60000;
      while (!(await listening())) { if (Date.now() > deadline) break; await new Promise(r => setTimeout(r, 50)); }
      const clones = await Promise.all(Array.from({ length: +n }, (_, i) => clone(i)));
      require('node:fs').writeFileSync(result, JSON.stringify(clones));
      const ss = execFileSync('ss', ['-ltnpH', 'sport = :' + port]).toString();
      for (const m of ss.matchAll(/pid=(\\d+)/g)) process.kill(+m[1], 'SIGTERM');
    })();`;
  const child = spawn(process.execPath, ['-e', driver, url, ctx.scratch, result, String(CLONE_PORT), String(CLONES)], { detached: true, stdio: 'ignore' });
  child.unref();
}

function checkCloneDriver(ctx: BenchContext, tool: 'tsgit' | 'git'): void {
  const result = path.join(ctx.scratch, `clones-${tool}.json`);
  const clones = JSON.parse(fs.readFileSync(result, 'utf8')) as { ok: boolean; head: string | null; error: string | null }[];
  const bad = clones.filter(c => !c.ok || c.head !== ctx.head);
  if (bad.length > 0) throw new Error(`${tool}: ${bad.length} of ${clones.length} clones failed: ${bad[0]!.error ?? `HEAD ${bad[0]!.head}`}`);
}
