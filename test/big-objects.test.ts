// Objects too big to hold twice: a 48 MB incompressible blob (a build artefact, a model, a video
// committed without LFS) indexed from a file and from a stream in pieces, and cloned and checked
// out, against git: the .idx and the work tree are git's, and the process's peak memory stays far
// below the blob's size (it was three times the blob in index-pack, whose window doubled to hold
// the whole entry, and over twice in checkout, which read the pack and inflated the blob whole).
// Also the streaming inflater they share, fed a stream cut at every kind of place.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Inflater } from '../src/core/zlib.js';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

const BLOB = 48 << 20;
/** Peak RSS allowed: Node (45 MiB) and some room; holding the blob twice takes 140 and more. */
const PEAK = 110 << 20;

let work: string;
let bare: string;
let pack: string;

/** A script that runs the tsgit CLI with its arguments and says its peak RSS on stderr as it exits. */
let peakScript: string;

/** The peak RSS a run of peakScript reported in `stderr`, and stderr without it. */
function peakOf(stderr: string): { stderr: string; peak: number } {
  const m = /\npeak-rss (\d+)\n/.exec(stderr);
  assert.ok(m, `no peak reported: ${stderr}`);
  return { stderr: stderr.slice(0, m.index) + stderr.slice(m.index + m[0].length), peak: Number(m[1]) };
}

/** Runs tsgit and returns its status, stderr and peak RSS in bytes (the whole process, every thread). */
function tsgitPeak(cwd: string, args: string[], input?: Buffer): { status: number | null; stderr: string; peak: number } {
  const r = spawnSync(process.execPath, [peakScript, ...args], { cwd, env: GIT_ENV, input, maxBuffer: 1 << 30 });
  return { status: r.status, ...peakOf(r.stderr.toString()) };
}

before(() => {
  work = tmpDir('tsgit-big-objects-');
  peakScript = path.join(work, 'peak.mjs');
  // VmHWM, the peak of this process's own memory: getrusage's maxRSS also counts what the process
  // held before exec, which is the test runner that forked it.
  fs.writeFileSync(peakScript, `import fs from 'node:fs';
process.on('exit', () => {
  const hwm = /VmHWM:\\s*(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'latin1'));
  process.stderr.write('\\npeak-rss ' + Number(hwm[1]) * 1024 + '\\n');
});
process.argv = [process.argv[0], ${JSON.stringify(TSGIT)}, ...process.argv.slice(2)];
await import(${JSON.stringify(TSGIT)});
`);
  const src = path.join(work, 'src');
  git(work, ['init', '-q', '-b', 'main', src]);
  fs.writeFileSync(path.join(src, 'model.bin'), crypto.randomBytes(BLOB), { mode: 0o755 });
  fs.writeFileSync(path.join(src, 'README'), 'a small file beside it\n');
  git(src, ['add', '-A']);
  git(src, ['commit', '-q', '-m', 'big']);
  bare = path.join(work, 'bare.git');
  git(work, ['clone', '-q', '--bare', src, bare]);
  git(bare, ['repack', '-adq']);
  pack = path.join(bare, 'objects', 'pack', fs.readdirSync(path.join(bare, 'objects', 'pack')).find((f) => f.endsWith('.pack'))!);
});

after(() => rmrf(work));

describe('a blob bigger than memory should hold twice', () => {
  it('index-pack of a file: git\'s .idx, without holding the entry', () => {
    const theirs = path.join(work, 'git.idx'), ours = path.join(work, 'ts.idx');
    git(work, ['index-pack', '-o', theirs, pack]);
    const r = tsgitPeak(work, ['index-pack', '-o', ours, pack]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.readFileSync(ours).equals(fs.readFileSync(theirs)));
    assert.ok(r.peak < PEAK, `peak RSS ${r.peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
  });

  it('index-pack --stdin: the same pack arriving on a pipe, and a pack cut inside the blob refused', () => {
    const dest = path.join(work, 'stdin.git');
    git(work, ['init', '-q', '--bare', dest]);
    const data = fs.readFileSync(pack);
    const r = tsgitPeak(dest, ['index-pack', '--stdin'], data);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.peak < PEAK, `peak RSS ${r.peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
    git(dest, ['fsck', '--full']);
    const cut = tsgitPeak(dest, ['index-pack', '--stdin'], data.subarray(0, data.length >> 1));
    assert.equal(cut.status, 128);
    assert.match(cut.stderr, /early EOF/);
  });

  it('clone: the work tree is git\'s, git status is clean, and the blob is never held whole', () => {
    const theirs = path.join(work, 'git-clone'), ours = path.join(work, 'ts-clone');
    git(work, ['clone', '-q', `file://${bare}`, theirs]);
    const r = tsgitPeak(work, ['clone', '-q', `file://${bare}`, ours]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.peak < PEAK, `peak RSS ${r.peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
    for (const name of ['model.bin', 'README']) {
      assert.ok(fs.readFileSync(path.join(ours, name)).equals(fs.readFileSync(path.join(theirs, name))), name);
      assert.equal(fs.statSync(path.join(ours, name)).mode, fs.statSync(path.join(theirs, name)).mode, `${name}'s mode`);
    }
    assert.equal(git(ours, ['status', '--porcelain']), '');
  });

  it('receive-pack: a push of it from git is written loose (three objects, under receive.unpackLimit) without holding it', () => {
    const dest = path.join(work, 'pushed.git');
    git(work, ['init', '-q', '--bare', dest]);
    const r = spawnSync('git', ['push', '-q', `--receive-pack=${process.execPath} ${peakScript} receive-pack`, dest, 'main'],
      { cwd: path.join(work, 'src'), env: GIT_ENV });
    const { stderr, peak } = peakOf(r.stderr.toString());
    assert.equal(r.status, 0, stderr);
    assert.ok(peak < PEAK, `peak RSS ${peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
    const id = git(work, ['-C', path.join(work, 'src'), 'rev-parse', 'main:model.bin']).trim();
    assert.ok(fs.existsSync(path.join(dest, 'objects', id.slice(0, 2), id.slice(2))), 'the blob is a loose object');
    assert.deepEqual(fs.readdirSync(dest + '/objects').filter((n) => n.startsWith('tmp')), [], 'no temporary file left');
    git(dest, ['fsck', '--full', '--strict']);
    assert.equal(git(dest, ['rev-parse', 'main']), git(path.join(work, 'src'), ['rev-parse', 'main']));
  });

  it('index-pack into a repository that has the blob compares the two copies in pieces, and finds them apart when they differ', () => {
    const dest = path.join(work, 'has-it.git');
    git(work, ['clone', '-q', '--bare', path.join(work, 'src'), dest]);
    const id = git(path.join(work, 'src'), ['rev-parse', 'main:model.bin']).trim();
    const loose = path.join(dest, 'objects', id.slice(0, 2), id.slice(2));
    assert.ok(fs.existsSync(loose), 'the repository has the blob, loose');
    const data = fs.readFileSync(pack);
    const same = tsgitPeak(dest, ['index-pack', '--stdin', '--strict'], data);
    assert.equal(same.status, 0, same.stderr);
    assert.ok(same.peak < PEAK, `peak RSS ${same.peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
    // The repository's copy made to differ in one byte, its name kept: git's collision check.
    const content = fs.readFileSync(path.join(work, 'src', 'model.bin'));
    content[BLOB >> 1] ^= 1;
    fs.rmSync(path.join(dest, 'objects', 'pack'), { recursive: true, force: true });
    fs.mkdirSync(path.join(dest, 'objects', 'pack'));
    // A new file, not the one the clone hard-linked from src.
    fs.rmSync(loose);
    fs.writeFileSync(loose, zlib.deflateSync(Buffer.concat([Buffer.from(`blob ${BLOB}\0`), content]), { level: 1 }));
    const differs = tsgitPeak(dest, ['index-pack', '--stdin', '--strict'], data);
    assert.equal(differs.status, 128);
    assert.match(differs.stderr, new RegExp(`SHA1 COLLISION FOUND WITH ${id}`));
    assert.deepEqual(fs.readdirSync(path.join(dest, 'objects', 'pack')), [], 'nothing left behind');
  });

  it('push: a new loose blob is read in chunks and deflated a step at a time into the pack it sends', () => {
    const dest = path.join(work, 'to-git.git');
    git(work, ['init', '-q', '--bare', dest]);
    const src = path.join(work, 'src');
    const id = git(src, ['rev-parse', 'main:model.bin']).trim();
    assert.ok(fs.existsSync(path.join(src, '.git', 'objects', id.slice(0, 2), id.slice(2))), 'the blob is loose');
    const r = tsgitPeak(src, ['push', '-q', '--receive-pack=git receive-pack', dest, 'main']);
    assert.equal(r.status, 0, r.stderr);
    // The blob once, as the pack writer reads it; not its compressed file nor its compressed form too.
    assert.ok(r.peak < PEAK + BLOB, `peak RSS ${r.peak >> 20} MiB for a ${BLOB >> 20} MiB blob`);
    git(dest, ['fsck', '--full', '--strict']);
    assert.equal(git(dest, ['rev-parse', 'main']), git(src, ['rev-parse', 'main']));
  });
});

describe('Inflater.feed', () => {
  const data = Buffer.concat([crypto.randomBytes(300_000), Buffer.from('text '.repeat(200_000))]);
  const stream = zlib.deflateSync(data);
  const trailing = Buffer.from('PACK-next-entry');
  const input = Buffer.concat([stream, trailing]);

  /** Feeds input in pieces ending at `cuts` (then the rest), as a window that keeps only what is new. */
  function feedCut(cuts: number[], size = data.length): { out: Buffer; used: number } {
    const inflater = new Inflater();
    inflater.begin();
    const parts: Buffer[] = [];
    let fed = 0, produced = 0;
    for (const end of [...cuts, input.length]) {
      if (end <= fed) continue;
      fed += inflater.feed(input, fed, end, size, produced, Buffer.allocUnsafe(65536), (p) => { produced += p.length; parts.push(Buffer.from(p)); },
        'pack', () => 'test stream');
      if (inflater.ended) break;
      assert.equal(fed, end, 'all input used while the stream goes on');
    }
    assert.ok(inflater.ended, 'the stream ended');
    return { out: Buffer.concat(parts), used: fed };
  }

  it('gives the content and the stream\'s length wherever the input is cut', () => {
    const cuts: number[][] = [[], [1], [2, 3, 4], [stream.length - 4], [stream.length - 1], [stream.length], [stream.length + 1]];
    for (let k = 1; k < 40; k++) cuts.push([Math.floor((stream.length * k) / 40)]);
    cuts.push(Array.from({ length: 300 }, (_, i) => i * 997));
    for (const c of cuts) {
      const { out, used } = feedCut(c);
      assert.ok(out.equals(data), `content, cut at ${c.join(',')}`);
      assert.equal(used, stream.length, `length, cut at ${c.join(',')}`);
    }
  });

  it('refuses a stream longer or shorter than declared, and data that is not zlib', () => {
    assert.throws(() => feedCut([1000], data.length - 1), /inflates to more than the declared/);
    assert.throws(() => feedCut([1000], data.length + 1), /inflates to \d+ bytes, declared/);
    const inflater = new Inflater();
    inflater.begin();
    assert.throws(() => inflater.feed(Buffer.from('not zlib at all'), 0, 15, 10, 0, Buffer.alloc(64), () => {}, 'pack', () => 'junk'), /junk: zlib/);
  });
});
