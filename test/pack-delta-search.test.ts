// The pack writer's delta search (packing/write/delta-search.ts) against git's pack-objects, on a
// repository shaped as a server's is between two gcs: history that came a small push at a time, so
// each version of each file is a loose object, and some larger pushes kept as packs. tsgit's
// repack and upload-pack must store and send such history as deltas, about as small as git's,
// and what they write must pass git fsck. Objects stored whole in one pack are not diffed against
// each other (git's try_delta passes them over too), so a well-packed repository costs nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, gitBuf, GIT_ENV, pkt, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

let work: string;
/** The bare repository the pushes went to: loose objects and a few packs. */
let server: string;

/** `lines` lines of text, of which version `version` changes one. */
function text(lines: number, version: number, seed: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(i % 37 === version % 37 ? `${seed} line ${i} edited in version ${version}` : `${seed} line ${i} is the same in every version of this file`);
  return out.join('\n') + '\n';
}

function packBytes(dir: string): number {
  const packs = path.join(dir, 'objects', 'pack');
  return fs.readdirSync(packs).filter((n) => n.endsWith('.pack')).reduce((sum, n) => sum + fs.statSync(path.join(packs, n)).size, 0);
}

/** The longest delta chain of every pack in `dir`, and how many objects are deltas. */
function chains(dir: string): { longest: number; deltas: number } {
  const packs = path.join(dir, 'objects', 'pack');
  let longest = 0, deltas = 0;
  for (const n of fs.readdirSync(packs).filter((f) => f.endsWith('.idx'))) {
    const out = git(dir, ['verify-pack', '-v', path.join(packs, n)]);
    for (const m of out.matchAll(/^chain length = (\d+): (\d+) objects?$/gm)) {
      longest = Math.max(longest, Number(m[1]));
      deltas += Number(m[2]);
    }
  }
  return { longest, deltas };
}

function objectsOf(dir: string): string {
  return git(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)']);
}

function copy(from: string, name: string): string {
  const to = path.join(work, name);
  fs.cpSync(from, to, { recursive: true });
  return to;
}

before(() => {
  work = tmpDir('tsgit-delta-search-');
  server = path.join(work, 'server.git');
  git(work, ['init', '-q', '--bare', server]);
  const wt = path.join(work, 'wt');
  git(work, ['init', '-q', wt]);
  fs.mkdirSync(path.join(wt, 'docs'));
  // 60 one-commit pushes (each below git's unpack limit, so each stays loose), then one push of
  // 120 new files (kept as a pack), then 60 more small ones: a file edited in each, a file that
  // only grows, and a second file of the first file's name in another directory.
  const commit = (v: number, extra = false) => {
    fs.writeFileSync(path.join(wt, 'main.c'), text(400, v, 'main'));
    fs.appendFileSync(path.join(wt, 'log.txt'), `entry ${v}: ${'x'.repeat(60)}\n`);
    fs.writeFileSync(path.join(wt, 'docs', 'main.c'), text(200, Math.floor(v / 3), 'docs'));
    if (extra) for (let i = 0; i < 120; i++) fs.writeFileSync(path.join(wt, 'docs', `page${i}.txt`), text(30, i, `page ${i}`));
    git(wt, ['add', '-A']);
    git(wt, ['commit', '-q', '-m', `version ${v}`]);
    git(wt, ['push', '-q', server, 'HEAD:refs/heads/main']);
  };
  for (let v = 0; v < 60; v++) commit(v);
  commit(60, true);
  for (let v = 61; v < 120; v++) commit(v);
});

after(() => rmrf(work));

describe('the delta search', () => {
  it('starts from a server repository that is mostly loose', () => {
    const counted = git(server, ['count-objects', '-v']);
    assert.ok(Number(/^count: (\d+)$/m.exec(counted)![1]) > 300, counted);
    assert.ok(Number(/^packs: (\d+)$/m.exec(counted)![1]) >= 1, counted);
  });

  it('repack stores history that came loose as deltas, about as small as git repack does', () => {
    const ours = copy(server, 'repack-ts.git'), theirs = copy(server, 'repack-git.git');
    const r = tsgit(ours, ['repack', '-a', '-d', '-q']);
    assert.equal(r.status, 0, r.stderr.toString());
    git(theirs, ['repack', '-a', '-d', '-q']);
    assert.equal(git(ours, ['fsck', '--full', '--no-dangling']), '');
    assert.equal(objectsOf(ours), objectsOf(theirs));
    const size = packBytes(ours), gitSize = packBytes(theirs);
    // Whole, the versions would take over ten times git's pack.
    assert.ok(size <= 1.5 * gitSize, `tsgit's pack ${size} bytes against git's ${gitSize}`);
    const { longest, deltas } = chains(ours);
    assert.ok(deltas > 300, `${deltas} deltas`);
    assert.ok(longest <= 50, `a chain ${longest} deep, past git's pack.depth`);
    // Repacked again, the deltas are reused as they are stored.
    const again = tsgit(ours, ['repack', '-a', '-d', '-q']);
    assert.equal(again.status, 0, again.stderr.toString());
    assert.ok(packBytes(ours) <= size * 1.01);
  });

  it('upload-pack sends loose history as deltas to git clone, about as small as git does', () => {
    const ours = path.join(work, 'clone-ts.git'), theirs = path.join(work, 'clone-git.git');
    const r = git(work, ['clone', '-q', '--bare', '--no-local', `--upload-pack=${process.execPath} ${TSGIT} upload-pack`, server, ours]);
    assert.equal(r, '');
    git(work, ['clone', '-q', '--bare', '--no-local', server, theirs]);
    assert.equal(git(ours, ['fsck', '--full', '--no-dangling']), '');
    assert.equal(objectsOf(ours), objectsOf(theirs));
    const size = packBytes(ours), gitSize = packBytes(theirs);
    assert.ok(size <= 1.5 * gitSize, `tsgit sent ${size} bytes against git's ${gitSize}`);
  });

  it('says so as git does: remote: Compressing objects', () => {
    const dest = path.join(work, 'clone-progress.git');
    const r = gitResult(['clone', '--progress', '--bare', '--no-local', `--upload-pack=${process.execPath} ${TSGIT} upload-pack`, server, dest]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /remote: Compressing objects: 100% \(\d+\/\d+\), done\./);
  });

  it('a fetch gets a new version stored loose as a delta against the version the client has', () => {
    // The client has main~1; main changed main.c, log.txt and docs/main.c, each now loose.
    const want = git(server, ['rev-parse', 'main']).trim(), have = git(server, ['rev-parse', 'main~1']).trim();
    const request = pkt(`want ${want} multi_ack_detailed side-band-64k thin-pack ofs-delta agent=git/2.39.5\n`) + '0000' +
      pkt(`have ${have}\n`) + pkt('done\n');
    const ours = tsgit(server, ['upload-pack', '--stateless-rpc', '.'], request);
    assert.equal(ours.status, 0, ours.stderr.toString());
    const theirs = gitBuf(server, ['upload-pack', '--stateless-rpc', '.'], request);
    // Whole, main.c alone would be over 5 KiB compressed.
    assert.ok(ours.stdout.length <= theirs.length + 512, `tsgit sent ${ours.stdout.length} bytes, git ${theirs.length}`);
    // And git takes it: a clone one commit behind fetches through tsgit and checks out clean.
    const behind = path.join(work, 'behind');
    git(work, ['clone', '-q', '--no-local', '-b', 'main', server, behind]);
    git(behind, ['reset', '-q', '--hard', 'HEAD~1']);
    git(behind, ['update-ref', 'refs/remotes/origin/main', 'HEAD']);
    git(behind, ['-c', 'fetch.unpackLimit=1', 'fetch', '-q', `--upload-pack=${process.execPath} ${TSGIT} upload-pack`, 'origin']);
    assert.equal(git(behind, ['rev-parse', 'origin/main']).trim(), want);
    assert.equal(git(behind, ['fsck', '--full', '--no-dangling']), '');
  });

  it('does not diff the objects one pack stores whole, as git does not', () => {
    // One pack with no deltas at all: both servers send every object whole.
    const flat = copy(server, 'flat.git');
    git(flat, ['repack', '-a', '-d', '-q', '-F', '--window=0']);
    assert.equal(chains(flat).deltas, 0);
    const ours = path.join(work, 'flat-ts.git'), theirs = path.join(work, 'flat-git.git');
    git(work, ['clone', '-q', '--bare', '--no-local', `--upload-pack=${process.execPath} ${TSGIT} upload-pack`, flat, ours]);
    git(work, ['clone', '-q', '--bare', '--no-local', flat, theirs]);
    assert.equal(chains(ours).deltas, 0);
    assert.equal(chains(theirs).deltas, 0);
    // New versions pushed on top, loose: that pack's whole objects of the same paths join the
    // search, as bases and targets of the loose ones, but never two of them together.
    const grown = copy(flat, 'flat-grown.git');
    const packDir = path.join(grown, 'objects', 'pack');
    const flatIds = new Set(git(grown, ['show-index'], fs.readFileSync(path.join(packDir, fs.readdirSync(packDir).find((f) => f.endsWith('.idx'))!)))
      .split('\n').filter(Boolean).map((l) => l.split(' ')[1]!));
    const wt = path.join(work, 'flat-wt');
    git(work, ['clone', '-q', '-b', 'main', grown, wt]);
    for (let v = 200; v < 203; v++) {
      fs.writeFileSync(path.join(wt, 'main.c'), text(400, v, 'main'));
      git(wt, ['commit', '-q', '-am', `version ${v}`]);
      git(wt, ['push', '-q', 'origin', 'HEAD:refs/heads/main']);
    }
    const r = tsgit(grown, ['repack', '-a', '-d', '-q']);
    assert.equal(r.status, 0, r.stderr.toString());
    const deltas = git(grown, ['verify-pack', '-v', ...fs.readdirSync(packDir).filter((f) => f.endsWith('.idx')).map((f) => path.join(packDir, f))])
      .split('\n').map((l) => /^([0-9a-f]{40}) \w+ +\d+ \d+ \d+ \d+ ([0-9a-f]{40})$/.exec(l)).filter((m) => m !== null);
    assert.ok(deltas.length >= 3, `${deltas.length} deltas`);
    for (const [, target, base] of deltas) assert.ok(!(flatIds.has(target!) && flatIds.has(base!)), `${target} against ${base}, both whole in one pack`);
  });
});

function gitResult(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync('git', args, { cwd: work, env: GIT_ENV });
  return { status: r.status, stderr: r.stderr.toString() };
}
