// Benchmark corpora: bare repositories generated deterministically with `git fast-import`, cached
// outside the source tree (TSGIT_BENCH_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/tsgit-bench), and
// checked against recorded ids after every build: the same ids on any machine prove the generator is
// deterministic. Pack files themselves may differ between git versions and thread counts; the
// objects in them do not.
//
// A build goes: load the text pool -> git init --bare <name>.git.tmp-<pid> -> stream the simulated
// history into fast-import -> repack -adf -> pack-refs -> compare HEAD and refs with the recorded
// ids -> collect statistics -> write tsgit-bench.json -> rename into place. The json is written
// last, so a corpus directory without it is a broken build and is rebuilt.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { sha1 } from '../src/core/hash.js';
import { FAST_IMPORT_MALLOC } from './fast-import-malloc.js';
import { History, type HistorySpec, type HistoryStats } from './history.js';
import { seedFrom } from './random.js';
import { loadTextPool } from './text-pool.js';

/** Bump when the generator's output changes; cached corpora of another version are rebuilt. */
export const GENERATOR_VERSION = 2;
export const CACHE_ENV = 'TSGIT_BENCH_CACHE';
const METADATA = 'tsgit-bench.json';

export type CorpusName = 'small' | 'large' | 'wide' | 'history';

export interface CorpusDefinition {
  name: CorpusName;
  description: string;
  history: HistorySpec;
  repack: { window: number; depth: number };
  /** HEAD and a digest of all refs, recorded from a build; null until first recorded. */
  expected: { head: string; refs: string } | null;
}

const common = {
  executablePerMille: 20, symlinkPerMille: 4, deletePerMille: 5, renamePerMille: 3,
} as const;

export const CORPORA: Record<CorpusName, CorpusDefinition> = {
  small: {
    name: 'small',
    description: 'CI corpus: ~2k commits, a few hundred files, merges, maint and topic branches, tags of both kinds',
    history: {
      ...common,
      seed: seedFrom('tsgit-bench small'),
      commits: 2000, initialFiles: 150, dirs: 40, initialDirDepth: 2,
      smallFileLines: [8, 80], bigFileLines: [200, 600], bigFilePerMille: 20,
      touches: [1, 3], hunks: [1, 3], hunkLines: [0, 6], hotSkew: 2, addPerMille: 40,
      topicPerMille: 120, topicCommits: [1, 6], topicSlots: 4,
      maintPerMille: 60, maintMergeEvery: 12, tagPerMille: 25, annotatedPerMille: 500,
    },
    repack: { window: 10, depth: 50 },
    expected: { head: 'c12fb639a41b2075e25d34f27796832d0cd7dd71', refs: '1ae680018e31a3a001717a328f4f7ad84978abff' },
  },
  large: {
    name: 'large',
    description: 'Benchmark corpus: 80k+ commits, 400k+ objects, ~5k files at HEAD, a pack of 250 MB+ with delta chains up to 50',
    history: {
      ...common,
      seed: seedFrom('tsgit-bench large'),
      commits: 95000, initialFiles: 1500, dirs: 420, initialDirDepth: 2,
      smallFileLines: [20, 400], bigFileLines: [1500, 5000], bigFilePerMille: 40,
      touches: [1, 2], hunks: [1, 6], hunkLines: [0, 40], hotSkew: 3, addPerMille: 30,
      topicPerMille: 150, topicCommits: [1, 10], topicSlots: 6,
      maintPerMille: 50, maintMergeEvery: 15, tagPerMille: 25, annotatedPerMille: 450,
    },
    repack: { window: 10, depth: 50 },
    expected: { head: '906116240814a804829208e18d172f09635bb56a', refs: 'da9acde1e601b25c05419ac99a8e230283e61858' },
  },
  wide: {
    name: 'wide',
    description: 'Checkout corpus: 100k+ files at HEAD in nested directories, 5 commits',
    history: {
      ...common,
      seed: seedFrom('tsgit-bench wide'),
      commits: 5, initialFiles: 112000, dirs: 7000, initialDirDepth: 5,
      smallFileLines: [3, 80], bigFileLines: [400, 1500], bigFilePerMille: 5,
      touches: [800, 1500], hunks: [1, 2], hunkLines: [0, 5], hotSkew: 1, addPerMille: 30,
      topicPerMille: 0, topicCommits: [1, 1], topicSlots: 0,
      maintPerMille: 0, maintMergeEvery: 1, tagPerMille: 1000, annotatedPerMille: 500,
    },
    repack: { window: 10, depth: 50 },
    expected: { head: '480d802d8ca827c11eca474348fc9373678fd9c5', refs: '9dff4e6cc3c2245f4887e9cbdded0fd5a7c5f267' },
  },
  history: {
    name: 'history',
    description: "A real project's shape (git.git's): 80k commits, flat wide directories (tests ~1,500 files, docs ~700) touched by most commits, messages of real length",
    history: {
      ...common,
      seed: seedFrom('tsgit-bench history'),
      commits: 80000, initialFiles: 400, dirs: 60, initialDirDepth: 2,
      smallFileLines: [20, 400], bigFileLines: [800, 2500], bigFilePerMille: 20,
      touches: [0, 1], hunks: [1, 4], hunkLines: [0, 12], hotSkew: 3, addPerMille: 15,
      topicPerMille: 150, topicCommits: [1, 10], topicSlots: 6,
      maintPerMille: 50, maintMergeEvery: 15, tagPerMille: 25, annotatedPerMille: 450,
      flatDirs: [
        { name: 't', prefix: 't#-', suffix: '.sh', initialFiles: 900, touchPerMille: 700, addPerMille: 11 },
        { name: 'Documentation', prefix: 'git-', suffix: '.txt', initialFiles: 420, touchPerMille: 600, addPerMille: 6 },
        { name: '', prefix: '', suffix: '.c', initialFiles: 150, touchPerMille: 250, addPerMille: 5 },
      ],
      messageBody: { paragraphs: [1, 3], lines: [2, 6] },
    },
    repack: { window: 10, depth: 50 },
    expected: { head: '01ba0363bc0a1e94702de3aaae4a563b572454d4', refs: '308eed0070a28976c7544681b1aaa68c32ba3dc2' },
  },
};

export interface CorpusStats {
  commits: number;
  merges: number;
  objects: number;
  annotatedTags: number;
  lightweightTags: number;
  branches: number;
  filesAtHead: number;
  maxPathComponents: number;
  packs: number;
  packBytes: number;
  /** Longest delta chain and how many objects are at that depth (git verify-pack -s). */
  maxDeltaChain: number;
  objectsAtMaxChain: number;
  deltas: number;
  countObjects: Record<string, string>;
  /** Bytes written into fast-import (commits excluded): a guide to what inflating everything costs. */
  generatedBlobBytes: number;
}

export interface CorpusMetadata {
  name: CorpusName;
  generator: number;
  typescript: string;
  poolDigest: string;
  head: string;
  refs: string;
  git: string;
  buildSeconds: { fastImport: number; repack: number; total: number };
  stats: CorpusStats;
}

export interface Corpus {
  gitDir: string;
  head: string;
}

/** Where corpora live; read at call time so tests can point it at a temporary directory. */
export function cacheDir(): string {
  const override = process.env[CACHE_ENV];
  if (override) return path.resolve(override);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'tsgit-bench');
}

export function corpusDir(name: CorpusName): string {
  return path.join(cacheDir(), `${name}.git`);
}

/** git with the user's and system configuration shut out, so settings like core.compression cannot leak in. */
const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', TZ: 'UTC',
};

function git(gitDir: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd: gitDir, env: GIT_ENV, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw new Error(`bench corpus: cannot run git ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`bench corpus: git ${args.join(' ')} in ${gitDir} failed (${r.status}): ${r.stderr.trim()}`);
  return r.stdout;
}

export function readMetadata(gitDir: string): CorpusMetadata | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(gitDir, METADATA), 'utf8')) as CorpusMetadata;
  } catch {
    return null;
  }
}

function isValid(def: CorpusDefinition, gitDir: string): CorpusMetadata | null {
  const meta = readMetadata(gitDir);
  if (meta === null || meta.generator !== GENERATOR_VERSION || meta.name !== def.name) return null;
  if (def.expected !== null && meta.head !== def.expected.head) return null;
  const r = spawnSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: gitDir, env: GIT_ENV, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === meta.head ? meta : null;
}

/**
 * The named corpus, built first if the cache lacks it or holds a stale one. Concurrent callers
 * (parallel test files) wait for one builder instead of building twice.
 */
export async function ensureCorpus(name: CorpusName, opts: { force?: boolean; log?: (msg: string) => void } = {}): Promise<Corpus> {
  const def = CORPORA[name];
  if (def === undefined) throw new Error(`bench corpus: unknown corpus "${name}" (known: ${Object.keys(CORPORA).join(', ')})`);
  const gitDir = corpusDir(name);
  const log = opts.log ?? (() => {});
  if (!opts.force) {
    const meta = isValid(def, gitDir);
    if (meta) return { gitDir, head: meta.head };
  }
  fs.mkdirSync(path.dirname(gitDir), { recursive: true });
  const release = await lock(`${gitDir}.lock`, log);
  try {
    if (!opts.force) {
      // Someone else may have built it while this process waited for the lock.
      const meta = isValid(def, gitDir);
      if (meta) return { gitDir, head: meta.head };
    }
    // Holding the lock, any other build directory is left over from a build that died.
    const dir = path.dirname(gitDir), prefix = `${path.basename(gitDir)}.tmp-`;
    for (const n of fs.readdirSync(dir)) if (n.startsWith(prefix)) fs.rmSync(path.join(dir, n), { recursive: true, force: true });
    const tmp = `${gitDir}.tmp-${process.pid}`;
    try {
      const meta = await buildCorpus(def, tmp, log);
      fs.rmSync(gitDir, { recursive: true, force: true });
      fs.renameSync(tmp, gitDir);
      return { gitDir, head: meta.head };
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
  } finally {
    release();
  }
}

/** A lock file holding the builder's pid; a lock whose process is gone is taken over. */
async function lock(file: string, log: (msg: string) => void): Promise<() => void> {
  for (let waited = false; ;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let pid: number, age: number;
    try {
      pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
      age = Date.now() - fs.statSync(file).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    // An empty lock may be one that its owner has created but not written yet.
    const stale = Number.isInteger(pid) ? !alive(pid) : age > 10_000;
    if (stale) {
      fs.rmSync(file, { force: true });
      continue;
    }
    if (!waited) log(`waiting for process ${pid}, which is building ${file.replace(/\.lock$/, '')} (remove ${file} if it is not)`);
    waited = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function buildCorpus(def: CorpusDefinition, gitDir: string, log: (msg: string) => void = () => {}): Promise<CorpusMetadata> {
  const t0 = performance.now();
  const pool = loadTextPool();
  fs.mkdirSync(gitDir, { recursive: true });
  git(gitDir, ['init', '-q', '--bare', '-b', 'main']);

  log(`${def.name}: generating ${def.history.commits} commits into fast-import`);
  const history = new History(def.history, pool);
  await fastImport(gitDir, history);
  const t1 = performance.now();

  const { window, depth } = def.repack;
  log(`${def.name}: git repack -adf --depth=${depth} --window=${window}`);
  // No bitmaps: the bitmap benchmarks add them to a copy; here both tools must do the same work.
  git(gitDir, ['-c', 'repack.writeBitmaps=false', 'repack', '-adfq', `--depth=${depth}`, `--window=${window}`]);
  git(gitDir, ['pack-refs', '--all', '--prune']);
  const t2 = performance.now();

  const head = git(gitDir, ['rev-parse', '--verify', 'HEAD']).trim();
  const refs = sha1(Buffer.from(git(gitDir, ['for-each-ref', '--format=%(objectname) %(refname)']))).toString('hex');
  if (def.expected !== null && (head !== def.expected.head || refs !== def.expected.refs)) {
    const msg = `bench corpus ${def.name}: generated HEAD ${head} (refs digest ${refs}), but the recorded ids are ` +
      `HEAD ${def.expected.head} (refs ${def.expected.refs}): the generator or its input is not deterministic`;
    if (pool.pinned) throw new Error(msg);
    process.emitWarning(msg);
  }
  if (def.expected === null) log(`${def.name}: no ids recorded yet; record head '${head}', refs '${refs}'`);

  log(`${def.name}: collecting statistics`);
  const stats = collectStats(gitDir, history.stats);
  const total = performance.now();
  const meta: CorpusMetadata = {
    name: def.name, generator: GENERATOR_VERSION, typescript: pool.version, poolDigest: pool.digest, head, refs,
    git: git(gitDir, ['version']).trim(),
    buildSeconds: { fastImport: round((t1 - t0) / 1000), repack: round((t2 - t1) / 1000), total: round((total - t0) / 1000) },
    stats,
  };
  fs.writeFileSync(path.join(gitDir, METADATA), JSON.stringify(meta, null, 2) + '\n');
  return meta;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

const FAST_IMPORT_ENV: NodeJS.ProcessEnv = { ...GIT_ENV, ...FAST_IMPORT_MALLOC };

async function fastImport(gitDir: string, history: History): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--done', '--active-branches=16'], {
    cwd: gitDir, env: FAST_IMPORT_ENV, stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr = (stderr + s).slice(-4000); });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  try {
    await pipeline(Readable.from(history.stream()), child.stdin);
  } catch (err) {
    await exited.catch(() => null);
    throw new Error(`bench corpus: streaming into git fast-import in ${gitDir} failed: ${stderr.trim() || String(err)}`, { cause: err });
  }
  const code = await exited;
  if (code !== 0) throw new Error(`bench corpus: git fast-import in ${gitDir} exited with ${code}: ${stderr.trim()}`);
}

function collectStats(gitDir: string, generated: HistoryStats): CorpusStats {
  const countObjects: Record<string, string> = {};
  for (const line of git(gitDir, ['count-objects', '-v']).trim().split('\n')) {
    const [k, v] = line.split(': ');
    countObjects[k!] = v!;
  }
  const packDir = path.join(gitDir, 'objects', 'pack');
  const packs = fs.readdirSync(packDir).filter((n) => n.endsWith('.pack'));
  let maxDeltaChain = 0, objectsAtMaxChain = 0, deltas = 0;
  for (const p of packs) {
    const idx = path.join(packDir, p.replace(/\.pack$/, '.idx'));
    for (const m of git(gitDir, ['verify-pack', '-s', idx]).matchAll(/chain length = (\d+): (\d+) objects?/g)) {
      const len = Number(m[1]), n = Number(m[2]);
      deltas += n;
      if (len > maxDeltaChain) { maxDeltaChain = len; objectsAtMaxChain = n; }
    }
  }
  const tags = git(gitDir, ['for-each-ref', '--format=%(objecttype)', 'refs/tags']).split('\n').filter(Boolean);
  const files = git(gitDir, ['ls-tree', '-r', '--name-only', '-z', 'HEAD']).split('\0').filter(Boolean);
  return {
    commits: Number(git(gitDir, ['rev-list', '--count', '--all']).trim()),
    merges: Number(git(gitDir, ['rev-list', '--count', '--merges', '--all']).trim()),
    objects: Number(countObjects['in-pack'] ?? 0) + Number(countObjects.count ?? 0),
    annotatedTags: tags.filter((t) => t === 'tag').length,
    lightweightTags: tags.filter((t) => t !== 'tag').length,
    branches: git(gitDir, ['for-each-ref', '--format=x', 'refs/heads']).split('\n').filter(Boolean).length,
    filesAtHead: files.length,
    maxPathComponents: files.reduce((m, f) => Math.max(m, f.split('/').length), 0),
    packs: packs.length,
    packBytes: packs.reduce((s, p) => s + fs.statSync(path.join(packDir, p)).size, 0),
    maxDeltaChain, objectsAtMaxChain, deltas,
    countObjects,
    generatedBlobBytes: generated.blobBytes,
  };
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

export function describeCorpus(meta: CorpusMetadata, gitDir: string): string {
  const s = meta.stats;
  return [
    `${meta.name}: ${gitDir}`,
    `  HEAD ${meta.head}  refs digest ${meta.refs}`,
    `  ${s.commits} commits (${s.merges} merges), ${s.objects} objects, ${s.branches} branches, ` +
      `${s.annotatedTags} annotated + ${s.lightweightTags} lightweight tags`,
    `  ${s.filesAtHead} files at HEAD (paths up to ${s.maxPathComponents} components)`,
    `  ${s.packs} pack(s), ${formatBytes(s.packBytes)}; ${s.deltas} deltas, longest chain ${s.maxDeltaChain} ` +
      `(${s.objectsAtMaxChain} objects); ${formatBytes(s.generatedBlobBytes)} of blob text generated`,
    `  built with ${meta.git}, typescript ${meta.typescript}, in ${meta.buildSeconds.total} s ` +
      `(fast-import ${meta.buildSeconds.fastImport} s, repack ${meta.buildSeconds.repack} s)`,
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const force = argv.includes('--force');
  const names = argv.filter((a) => !a.startsWith('--'));
  if (names.length === 0 || argv.includes('--help')) {
    console.log(`usage: npm run bench:corpus -- [--force] <${Object.keys(CORPORA).join('|')}>...\n` +
      `Builds (or finds in ${cacheDir()}) the named corpora and prints their statistics.`);
    return names.length === 0 && !argv.includes('--help') ? 129 : 0;
  }
  for (const name of names) {
    if (!(name in CORPORA)) {
      console.error(`unknown corpus "${name}" (known: ${Object.keys(CORPORA).join(', ')})`);
      return 129;
    }
  }
  for (const name of names as CorpusName[]) {
    const log = (msg: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
    const { gitDir } = await ensureCorpus(name, { force, log });
    console.log(describeCorpus(readMetadata(gitDir)!, gitDir));
  }
  return 0;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
