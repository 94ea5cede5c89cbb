// tsgit checkout against git checkout of the same commit: the work trees must be identical byte for
// byte (contents, exec bits, symlinks, submodule directories, names that are not UTF-8, converted
// line endings), git must find the work tree clean from the index's stat data alone, and the
// index must equal git's apart from stat data.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fromHex } from '../src/core/oid.js';
import { Repository } from '../src/repository/repository.js';
import { checkoutTree } from '../src/worktree/checkout.js';
import { readIndexFile } from '../src/worktree/index-file/read.js';
import { GIT_ENV, git, gitBuf, rmrf, tsgit } from './helpers.js';
import {
  cloneNoCheckout, compareWithGit, fastImport, indexWithoutStat, removeScratch, repoWith, scratch, snapshot, statDirty, WRITER_THREADS,
  type FileSpec,
} from './checkout-oracle.js';

afterEach(removeScratch);

const MIXED: FileSpec[] = [
  { mode: '100644', path: 'README', data: 'hello\n' },
  { mode: '100644', path: 'empty', data: '' },
  { mode: '100755', path: 'bin/run.sh', data: '#!/bin/sh\necho hi\n' },
  { mode: '100644', path: 'a/b/c/deep.txt', data: 'deep\n' },
  { mode: '100644', path: 'a/b.txt', data: 'sorts before a/b/\n' },
  { mode: '100644', path: 'a-b', data: 'sorts between a and a/\n' },
  { mode: '100644', path: 'binary.dat', data: Buffer.from([0, 1, 2, 255, 13, 10, 0]) },
  { mode: '120000', path: 'link-rel', data: 'a/b.txt' },
  { mode: '120000', path: 'a/link-up', data: '../README' },
  { mode: '120000', path: 'dangling', data: '/nonexistent/target' },
  { mode: '160000', path: 'modules/sub', oid: '1111111111111111111111111111111111111111' },
  { mode: '100644', path: '"caf\\351/na\\357ve"', data: 'latin-1 names\n' },
  { mode: '100644', path: 'unicode-\u00e9\u00e8.txt', data: 'utf-8 name\n' },
  { mode: '100644', path: 'big.txt', data: 'line of text\n'.repeat(50000) },
  // Incompressible: its zlib stream is longer than a guess based on text would ask for.
  { mode: '100644', path: 'random.bin', data: noise(200_000) },
];

/** Deterministic bytes that do not compress. */
function noise(n: number): Buffer {
  const parts: Buffer[] = [];
  let h = Buffer.from('seed');
  for (let len = 0; len < n; len += 20) parts.push(h = crypto.createHash('sha1').update(h).digest());
  return Buffer.concat(parts).subarray(0, n);
}

test('checkout writes what git writes: files, exec bits, symlinks, submodules, odd names', () => {
  const src = repoWith(MIXED);
  const { ours } = compareWithGit(src);
  assert.ok(fs.lstatSync(path.join(ours, 'modules/sub')).isDirectory());
  assert.deepEqual(fs.readdirSync(path.join(ours, 'modules/sub')), []);
  assert.equal(fs.statSync(path.join(ours, 'bin/run.sh')).mode & 0o100, 0o100);
  const index = readIndexFile(path.join(ours, '.git', 'index'))!;
  assert.deepEqual(index.entries.map(e => e.mode.toString(8)).sort(),
    ['100644', '100644', '100644', '100644', '100644', '100644', '100644', '100644', '100644', '100644', '100755', '120000', '120000', '120000', '160000']);
  assert.ok(index.cacheTree && index.cacheTree.entryCount === MIXED.length);
});

test('blobs and trees stored as deltas (offset and ref bases, long chains) check out as git does, on one thread or several', () => {
  const src = scratch('tsgit-checkout-src-');
  git(src, ['init', '-q', '-b', 'main', '.']);
  // Twenty versions of a few files, each growing a little: repack makes each older version a
  // delta of the next newer one, so the commit twelve back has chains twelve deep.
  const lines: string[] = [];
  for (let v = 1; v <= 20; v++) {
    lines.push('commit refs/heads/main', `committer C <c@example.com> ${1700000000 + v} +0000`, 'data 2', 'v');
    for (let f = 0; f < 5; f++) {
      const body = Array.from({ length: 300 + v * 20 }, (_, k) => `file ${f} line ${k} ${k < v * 20 ? `added in ${Math.floor(k / 20)}` : 'same'}`).join('\n') + '\n';
      lines.push(`M 100644 inline dir${f % 2}/file${f}.txt`, `data ${Buffer.byteLength(body)}`, body);
    }
  }
  git(src, ['fast-import', '--quiet'], lines.join('\n') + '\n');
  const old = git(src, ['rev-parse', 'main~12']).trim();
  for (const offsets of ['true', 'false']) {
    git(src, ['-c', `repack.useDeltaBaseOffset=${offsets}`, 'repack', '-adfq', '--depth=50', '--window=20']);
    const packDir = path.join(src, '.git/objects/pack');
    const stats = git(src, ['verify-pack', '-v', ...fs.readdirSync(packDir).filter(f => f.endsWith('.idx')).map(f => path.join(packDir, f))]);
    assert.match(stats, /chain length = 12: [1-9]/, 'the pack has no long delta chains to test');
    // The old commit's blobs are the deep deltas; check it out (the pack stays as repacked).
    const branch = `old-${offsets}`;
    git(src, ['branch', '-f', branch, old]);
    git(src, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
    // On one thread, and on writer threads, which read blobs where the main thread found them
    // and go to an object database of their own for a base named by id.
    for (const config of [[], WRITER_THREADS]) {
      compareWithGit(src, config);
    }
    git(src, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  }
});

test('checkoutTree (the clone step) fills the work tree and index from a commit id', async () => {
  const src = repoWith(MIXED);
  const wt = cloneNoCheckout(src);
  const repo = new Repository(path.join(wt, '.git'), wt);
  const seen: number[] = [];
  const meters: { title: string; total: number; delayed: boolean | undefined }[] = [];
  let stopped = 0;
  const head = fromHex(git(wt, ['rev-parse', 'HEAD']).trim())!;
  const result = await checkoutTree(repo, head, {
    progress: (title, total, hint) => {
      meters.push({ title, total, delayed: hint?.delayed });
      return { update: (n) => { seen.push(n); }, stop: () => { stopped++; } };
    },
  });
  repo.close();
  assert.equal(result.entries, MIXED.length);
  assert.deepEqual(meters, [{ title: 'Updating files', total: MIXED.length, delayed: true }]);
  assert.deepEqual(seen, MIXED.map((_, i) => i + 1));
  assert.equal(stopped, 1);
  assert.equal(git(wt, ['status', '--porcelain']), '');
});

test('the cache-tree is left invalid where the index cannot rebuild the tree (empty subtree, mode 100664)', () => {
  const dir = scratch('tsgit-checkout-src-');
  const wt = scratch('tsgit-checkout-wt-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  const blob = git(dir, ['hash-object', '-w', '--stdin'], 'x\n').trim();
  const empty = git(dir, ['hash-object', '-w', '-t', 'tree', '--stdin'], '').trim();
  const ok = git(dir, ['mktree'], `100644 blob ${blob}\tf\n`).trim();
  const withEmpty = git(dir, ['mktree', '--missing'], `040000 tree ${empty}\tempty\n100644 blob ${blob}\tf\n`).trim();
  const old = gitBuf(dir, ['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'],
    Buffer.concat([Buffer.from('100664 g\0'), Buffer.from(blob, 'hex')])).toString().trim();
  const root = git(dir, ['mktree'], `040000 tree ${ok}\tclean\n040000 tree ${withEmpty}\thas-empty\n040000 tree ${old}\told-mode\n`).trim();
  const commit = git(dir, ['commit-tree', root, '-m', 'x']).trim();
  git(wt, ['init', '-q', '.']);
  git(wt, ['fetch', '-q', dir, `${commit}:refs/heads/x`]);
  const r = tsgit(wt, ['checkout', '-q', commit]);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(git(wt, ['status', '--porcelain']), '');
  assert.equal(git(wt, ['ls-files', '-s', 'old-mode/g']).split(' ')[0], '100644');
  // git write-tree recomputes invalid nodes and reuses valid ones; both must give git's answer.
  const cacheTree = readIndexFile(path.join(wt, '.git', 'index'))!.cacheTree!;
  const byName = new Map(cacheTree.children.map(c => [Buffer.from(c.name).toString(), c]));
  assert.equal(cacheTree.entryCount, -1);
  assert.equal(byName.get('clean')!.entryCount, 1);
  assert.equal(byName.get('has-empty')!.entryCount, -1);
  assert.equal(byName.get('old-mode')!.entryCount, -1);
  const written = git(wt, ['write-tree']).trim();
  const expected = git(dir, ['mktree'], `040000 tree ${ok}\tclean\n040000 tree ${ok}\thas-empty\n040000 tree ${git(dir, ['mktree'], `100644 blob ${blob}\tg\n`).trim()}\told-mode\n`).trim();
  assert.equal(written, expected);
});

test('several writer threads give the same work tree and index as git', () => {
  const many: FileSpec[] = [...MIXED];
  for (let i = 0; i < 3000; i++) {
    many.push({ mode: i % 50 ? '100644' : '100755', path: `d${i % 37}/e${i % 11}/f${i}.txt`, data: `file ${i}\n`.repeat(i % 20) });
    if (i % 500 === 0) many.push({ mode: '120000', path: `d${i % 37}/link${i}`, data: `f${i}.txt` });
  }
  const src = repoWith(many);
  compareWithGit(src, ['checkout.workers=3', 'checkout.thresholdForParallelism=1']);
});

test('a failure on a writer thread (a missing blob) stops the checkout and names the path', () => {
  const files: FileSpec[] = Array.from({ length: 400 }, (_, i) => ({ mode: '100644', path: `dir${i % 7}/f${i}`, data: `content ${i}\n` }));
  const src = repoWith(files);
  const wt = cloneNoCheckout(src);
  // A loose copy of the objects (unpack-objects skips what the repository already has), minus one blob.
  const packDir = path.join(wt, '.git', 'objects', 'pack');
  const pack = fs.readFileSync(path.join(packDir, fs.readdirSync(packDir).find(f => f.endsWith('.pack'))!));
  rmrf(packDir);
  git(wt, ['unpack-objects', '-q'], pack);
  const victim = git(src, ['rev-parse', 'HEAD:dir3/f150']).trim();
  fs.rmSync(path.join(wt, '.git', 'objects', victim.slice(0, 2), victim.slice(2)));
  git(wt, ['config', 'checkout.workers', '2']);
  git(wt, ['config', 'checkout.thresholdForParallelism', '1']);
  const r = tsgit(wt, ['checkout']);
  assert.equal(r.status, 128);
  assert.match(r.stderr.toString(), new RegExp(`cannot check out 'dir3/f150': object ${victim} not found`));
  assert.ok(!fs.existsSync(path.join(wt, '.git', 'index')));
  assert.ok(!fs.existsSync(path.join(wt, '.git', 'index.lock')));
});

// ---- end-of-line and ident conversion --------------------------------------------------------------

const EOL_FILES: FileSpec[] = [
  {
    mode: '100644', path: '.gitattributes', data: [
      '*.txt text', '*.crlf eol=crlf', '*.lf text eol=lf', '*.auto text=auto', '*.bin binary',
      '*.raw -text', 'legacy.* crlf', 'input.* crlf=input', '*.id ident', 'sub/** text eol=crlf',
      '[attr]mytext text eol=crlf', '*.mac mytext', '/anchored.dat text eol=crlf', 'dir/*.x eol=crlf',
      '*.TXT -text', 'sub/keep.dat -text', 'unset.txt !text', '',
    ].join('\n'),
  },
  { mode: '100644', path: 'plain.txt', data: 'a\nb\n' },
  { mode: '100644', path: 'mixed.txt', data: 'a\r\nb\nc\r\n' },
  { mode: '100644', path: 'lonecr.txt', data: 'a\rb\n' },
  { mode: '100644', path: 'nul.txt', data: Buffer.from('a\0b\n') },
  { mode: '100644', path: 'x.crlf', data: 'one\ntwo\n' },
  { mode: '100644', path: 'x.lf', data: 'one\ntwo\n' },
  { mode: '100644', path: 'text.auto', data: 'one\ntwo\n' },
  { mode: '100644', path: 'bin.auto', data: Buffer.from('one\n\0two\n') },
  { mode: '100644', path: 'crlf.auto', data: 'one\r\ntwo\n' },
  { mode: '100644', path: 'ctrl.auto', data: Buffer.from('\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10\x11\x12 abc\n') },
  { mode: '100644', path: 'dosend.auto', data: Buffer.from('text\n\x1a') },
  { mode: '100644', path: 'x.bin', data: 'one\ntwo\n' },
  { mode: '100644', path: 'x.raw', data: 'one\ntwo\n' },
  { mode: '100644', path: 'legacy.c', data: 'one\ntwo\n' },
  { mode: '100644', path: 'input.c', data: 'one\ntwo\n' },
  { mode: '100644', path: 'v.id', data: '$Id$\n$Id: old expansion $\n$Id: has spaces inside $\n$Id:broken\n$Id' },
  { mode: '100644', path: 'sub/deep/any', data: 'one\ntwo\n' },
  { mode: '100644', path: 'sub/keep.dat', data: 'one\ntwo\n' },
  { mode: '100644', path: 'x.mac', data: 'one\ntwo\n' },
  { mode: '100644', path: 'anchored.dat', data: 'one\ntwo\n' },
  { mode: '100644', path: 'deeper/anchored.dat', data: 'one\ntwo\n' },
  { mode: '100644', path: 'dir/a.x', data: 'one\ntwo\n' },
  { mode: '100644', path: 'dir/deeper/a.x', data: 'one\ntwo\n' },
  { mode: '100644', path: 'UPPER.TXT', data: 'one\ntwo\n' },
  { mode: '100644', path: 'unset.txt', data: 'one\ntwo\n' },
  { mode: '100644', path: 'noattr.c', data: 'one\ntwo\n' },
  { mode: '100644', path: 'nested/.gitattributes', data: '*.c text eol=crlf\n*.txt -text\n[attr]ignored text\n' },
  { mode: '100644', path: 'nested/n.c', data: 'one\ntwo\n' },
  { mode: '100644', path: 'nested/n.txt', data: 'one\ntwo\n' },
  { mode: '120000', path: 'link.txt', data: 'plain.txt' },
];

for (const config of [[], ['core.autocrlf=true'], ['core.autocrlf=input'], ['core.eol=crlf'], ['core.eol=lf', 'core.autocrlf=true']]) {
  test(`eol conversion matches git with ${config.join(' ') || 'default settings'}`, () => {
    const src = repoWith(EOL_FILES);
    compareWithGit(src, config, ['mixed.txt', 'v.id']);
  });
}

test('core.autocrlf=true without any attributes converts text files and leaves binary ones', () => {
  const src = repoWith(EOL_FILES.filter(f => !f.path.endsWith('.gitattributes')));
  const { ours } = compareWithGit(src, ['core.autocrlf=true'], ['mixed.txt', 'v.id']);
  assert.equal(fs.readFileSync(path.join(ours, 'plain.txt'), 'latin1'), 'a\r\nb\r\n');
  assert.equal(fs.readFileSync(path.join(ours, 'nul.txt'), 'latin1'), 'a\0b\n');
});

test('info/attributes and core.attributesFile count, in git\'s order', () => {
  const src = repoWith(EOL_FILES);
  const ours = cloneNoCheckout(src);
  const theirs = cloneNoCheckout(src);
  const global = path.join(scratch('tsgit-attr-'), 'attributes');
  fs.writeFileSync(global, '*.c text eol=crlf\n*.raw text eol=crlf\n');
  for (const wt of [ours, theirs]) {
    fs.mkdirSync(path.join(wt, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(wt, '.git', 'info', 'attributes'), 'plain.txt eol=crlf\n*.auto -text\n');
    git(wt, ['config', 'core.attributesFile', global]);
  }
  assert.equal(tsgit(ours, ['checkout', '-q']).status, 0);
  git(theirs, ['checkout', '-q']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(fs.readFileSync(path.join(ours, 'plain.txt'), 'latin1'), 'a\r\nb\r\n');
  assert.equal(fs.readFileSync(path.join(ours, 'noattr.c'), 'latin1'), 'one\r\ntwo\r\n');
});

test('core.symlinks=false writes link text into plain files, as git does', () => {
  const src = repoWith(MIXED);
  const { ours } = compareWithGit(src, ['core.symlinks=false']);
  assert.ok(fs.lstatSync(path.join(ours, 'link-rel')).isFile());
  assert.equal(fs.readFileSync(path.join(ours, 'link-rel'), 'utf8'), 'a/b.txt');
});

// ---- the command ---------------------------------------------------------------------------------

test('a non-empty work tree is refused without -f; with -f files in the way are replaced', () => {
  const src = repoWith(MIXED);
  const wt = cloneNoCheckout(src);
  fs.writeFileSync(path.join(wt, 'README'), 'mine\n');
  fs.writeFileSync(path.join(wt, 'untracked'), 'keep me\n');
  fs.mkdirSync(path.join(wt, 'link-rel'));
  let r = tsgit(wt, ['checkout']);
  // git refuses files in the way with "error:" and status 1 (untracked files would be overwritten).
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /^error: .*not empty.*-f/);
  assert.equal(fs.readFileSync(path.join(wt, 'README'), 'utf8'), 'mine\n');
  assert.ok(!fs.existsSync(path.join(wt, '.git', 'index')));
  r = tsgit(wt, ['checkout', '-f']);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(fs.readFileSync(path.join(wt, 'README'), 'utf8'), 'hello\n');
  assert.equal(fs.readlinkSync(path.join(wt, 'link-rel')), 'a/b.txt');
  assert.equal(git(wt, ['status', '--porcelain']), '?? untracked\n');
});

test('checkout <branch> moves HEAD to the branch; <commit> detaches; a remote branch name makes a tracking branch', () => {
  const src = repoWith(MIXED);
  git(src, ['branch', 'other']);
  const first = git(src, ['rev-parse', 'main']).trim();
  let wt = cloneNoCheckout(src);
  let r = tsgit(wt, ['checkout', 'main']);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(git(wt, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');

  wt = cloneNoCheckout(src);
  r = tsgit(wt, ['checkout', first]);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.match(r.stderr.toString(), new RegExp(`HEAD is now at ${first.slice(0, 7)} m`));
  assert.equal(git(wt, ['rev-parse', 'HEAD']).trim(), first);
  assert.throws(() => git(wt, ['symbolic-ref', '-q', 'HEAD']));
  assert.equal(git(wt, ['status', '--porcelain']), '');

  wt = cloneNoCheckout(src);
  r = tsgit(wt, ['checkout', 'other']);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(r.stdout.toString(), "branch 'other' set up to track 'origin/other'.\n");
  assert.equal(r.stderr.toString(), "Switched to a new branch 'other'\n");
  assert.equal(git(wt, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/other');
  assert.equal(git(wt, ['config', 'branch.other.merge']).trim(), 'refs/heads/other');
  assert.equal(git(wt, ['status', '--porcelain']), '');

  r = tsgit(wt, ['checkout', 'no-such-thing']);
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /^error: pathspec 'no-such-thing' did not match/);
});

test('checkout -b and -B create, reset and track branches as git does, and refuse what git refuses', () => {
  const src = repoWith(MIXED);
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/main', [{ path: 'later.txt', mode: '100644', data: 'later\n' }], 'refs/heads/main^0'));
  git(src, ['branch', 'side', 'main~1']);
  const ours = cloneNoCheckout(src), theirs = cloneNoCheckout(src);
  // A CI checkout's first checkout (actions/checkout: -B of the fetched branch into a work tree
  // without an index), then the common forms, then the refusals.
  const steps: string[][] = [
    ['checkout', '--progress', '--force', '-B', 'main', 'refs/remotes/origin/main'],
    ['checkout', '-b', 'topic'],
    ['checkout', '-b', 'older', 'HEAD~1'],
    ['checkout', '-B', 'topic', 'main'],
    ['checkout', '-B', 'topic', 'HEAD~1'],
    ['checkout', '-B', 'mine', 'origin/side'],
    ['checkout', '-q', '-b', 'quiet', 'origin/main'],
    ['checkout', '-b', 'topic'],
    ['checkout', '-b', 'a..b'],
    ['checkout', '-b', 'x', 'main', 'extra'],
    ['checkout', '-b'],
  ];
  for (const args of steps) {
    const mine = tsgit(ours, args);
    const gits = spawnSync('git', args, { cwd: theirs, env: GIT_ENV, encoding: 'utf8' });
    const what = args.join(' ');
    assert.equal(mine.status, gits.status, `${what}: ${mine.stderr}`);
    if (gits.status !== 129) {
      assert.equal(mine.stderr.toString(), gits.stderr, what);
      assert.equal(mine.stdout.toString(), gits.stdout, what);
    }
    for (const probe of [['for-each-ref', '--format=%(refname) %(objectname)'], ['symbolic-ref', '-q', 'HEAD'], ['config', '--local', '--get-regexp', '^branch\\.'],
      ['reflog', 'show', '--format=%H %gs', 'HEAD'], ['status', '--porcelain']]) {
      assert.equal(spawnSync('git', probe, { cwd: ours, env: GIT_ENV, encoding: 'utf8' }).stdout,
        spawnSync('git', probe, { cwd: theirs, env: GIT_ENV, encoding: 'utf8' }).stdout, `${what}: git ${probe.join(' ')}`);
    }
  }
  for (const branch of ['main', 'topic', 'older', 'mine']) {
    const log = ['reflog', 'show', '--format=%H %gs', `refs/heads/${branch}`];
    assert.equal(git(ours, log), git(theirs, log), `reflog of ${branch}`);
  }
});

test('switching commits updates, adds and removes files, keeps untracked ones, and refuses to lose changes', () => {
  const src = repoWith(MIXED);
  // A second commit on branch two: one file changed, one removed, one added, a dir becomes a file.
  const work = cloneNoCheckout(src);
  git(work, ['checkout', '-q', '-b', 'two']);
  fs.writeFileSync(path.join(work, 'README'), 'changed\n');
  fs.rmSync(path.join(work, 'empty'));
  fs.rmSync(path.join(work, 'a/b/c'), { recursive: true });
  fs.writeFileSync(path.join(work, 'a/b/c'), 'now a file\n');
  fs.writeFileSync(path.join(work, 'new.txt'), 'new\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-q', '-m', 'two']);
  git(work, ['push', '-q', 'origin', 'two']);

  const ours = cloneNoCheckout(src);
  const theirs = cloneNoCheckout(src);
  assert.equal(tsgit(ours, ['checkout', '-q', 'main']).status, 0);
  git(theirs, ['checkout', '-q', 'main']);
  for (const wt of [ours, theirs]) fs.writeFileSync(path.join(wt, 'untracked'), 'u\n');
  let r = tsgit(ours, ['checkout', 'two']);
  assert.equal(r.status, 0, r.stderr.toString());
  git(theirs, ['checkout', '-q', 'two']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(git(ours, ['status', '--porcelain']), '?? untracked\n');
  assert.equal(git(ours, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/two');

  // Back to main, with a local change to a file main does not touch: it travels along.
  fs.writeFileSync(path.join(ours, 'bin/run.sh'), '#!/bin/sh\necho local\n');
  r = tsgit(ours, ['checkout', '-q', 'main']);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(fs.readFileSync(path.join(ours, 'README'), 'utf8'), 'hello\n');
  assert.equal(git(ours, ['status', '--porcelain']), ' M bin/run.sh\n?? untracked\n');

  // A local change to a file the switch would rewrite: refused, nothing changes.
  fs.writeFileSync(path.join(ours, 'README'), 'local edit\n');
  const before = snapshot(ours);
  r = tsgit(ours, ['checkout', 'two']);
  // git's unpack-trees refusal: "error:", status 1.
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /^error: Your local changes to the following files would be overwritten by checkout:\n\tREADME\n/);
  assert.deepEqual(snapshot(ours), before);
  assert.equal(git(ours, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');

  // An untracked file where the new commit has one: refused too.
  fs.writeFileSync(path.join(ours, 'README'), 'hello\n');
  fs.writeFileSync(path.join(ours, 'new.txt'), 'mine\n');
  r = tsgit(ours, ['checkout', 'two']);
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /^error: The following untracked working tree files would be overwritten by checkout:\n\tnew\.txt\n/);

  // -f discards local changes and replaces what is in the way.
  r = tsgit(ours, ['checkout', '-q', '-f', 'two']);
  assert.equal(r.status, 0, r.stderr.toString());
  git(theirs, ['checkout', '-q', '-f', 'two']);
  fs.writeFileSync(path.join(theirs, 'bin/run.sh'), fs.readFileSync(path.join(ours, 'bin/run.sh')));
  git(theirs, ['checkout', '-q', '-f', 'two']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(git(ours, ['status', '--porcelain']), '?? untracked\n');
});

/**
 * Waits, when less than 600 ms of the current second are left, for the next one to begin. Which
 * entries a checkout's index leaves racy (and smudges) depends on whether the files it wrote and
 * the index fall in one second, as git's racy-git check counts them: a checkout that straddles a
 * second boundary smudges fewer. Started early in a second, tsgit's and git's both finish in it.
 */
function earlyInASecond(): void {
  const left = 1000 - (Date.now() % 1000);
  if (left < 600) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left + 5);
}

/** Racy on purpose: the index's mtime set to the second the oldest file was written in, or before. */
function makeEveryEntryRacy(wt: string): void {
  const files = git(wt, ['ls-files', '-z']).split('\0').filter(Boolean);
  const oldest = Math.min(...files.map(f => Math.floor(fs.lstatSync(path.join(wt, f)).mtimeMs / 1000)));
  fs.utimesSync(path.join(wt, '.git', 'index'), oldest - 1, oldest - 1);
}

test('a switch refreshes the index as git does: racy and touched files read back, smudged only where they differ', () => {
  const src = scratch('tsgit-switch-racy-');
  git(src, ['init', '-q', '-b', 'main', '.']);
  const first: FileSpec[] = [
    { mode: '100644', path: '.gitattributes', data: '*.txt text\n*.dat text\n' },
    { mode: '100644', path: 'plain.txt', data: 'plain\n' },
    { mode: '100644', path: 'touched.txt', data: 'touched\n' },
    { mode: '100755', path: 'bin/run.sh', data: '#!/bin/sh\n' },
    { mode: '120000', path: 'link', data: 'plain.txt' },
    // Committed with CRLF: read back as text it gives LF, so it never matches its blob as text.
    { mode: '100644', path: 'crlf.txt', data: 'a\r\nb\r\n' },
    { mode: '100644', path: 'crlf.dat', data: 'a\r\nb\r\n' },
    { mode: '100644', path: 'changes.txt', data: 'one\n' },
  ];
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/main', first, null));
  // On two, .dat files are no longer text: crlf.dat, kept, matches its blob when read back now.
  git(src, ['fast-import', '--quiet'], fastImport('refs/heads/two', [
    { mode: '100644', path: '.gitattributes', data: '*.txt text\n*.dat -text\n' },
    { mode: '100644', path: 'changes.txt', data: 'two\n' },
  ], 'refs/heads/main'));
  const ours = cloneNoCheckout(src);
  const theirs = cloneNoCheckout(src);
  assert.equal(tsgit(ours, ['checkout', '-q', 'main']).status, 0);
  git(theirs, ['checkout', '-q', 'main']);
  const later = new Date(Date.now() + 100_000);
  for (const wt of [ours, theirs]) {
    makeEveryEntryRacy(wt);
    // Same content, another mtime: its stat data no longer proves it clean.
    fs.utimesSync(path.join(wt, 'touched.txt'), later, later);
  }
  earlyInASecond();
  const r = tsgit(ours, ['checkout', '-q', 'two']);
  assert.equal(r.status, 0, r.stderr.toString());
  earlyInASecond();
  git(theirs, ['checkout', '-q', 'two']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  // Sizes are kept in the comparison: a smudged entry has size 0.
  assert.deepEqual(indexWithoutStat(path.join(ours, '.git', 'index')), indexWithoutStat(path.join(theirs, '.git', 'index')));
  // What git's plumbing finds changed without refreshing: the CRLF text file only (smudged), in both.
  assert.equal(git(theirs, ['diff-files', '--name-only']), 'crlf.txt\n');
  assert.equal(git(ours, ['diff-files', '--name-only']), git(theirs, ['diff-files', '--name-only']));
  assert.equal(statDirty(ours), statDirty(theirs));
  assert.match(statDirty(theirs), /^crlf\.txt\n$/);

  // With -f git writes again what its stat data does not prove clean, and keeps the rest.
  for (const wt of [ours, theirs]) {
    makeEveryEntryRacy(wt);
    fs.utimesSync(path.join(wt, 'plain.txt'), later, later);
  }
  earlyInASecond();
  assert.equal(tsgit(ours, ['checkout', '-q', '-f', 'main']).status, 0);
  earlyInASecond();
  git(theirs, ['checkout', '-q', '-f', 'main']);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.deepEqual(indexWithoutStat(path.join(ours, '.git', 'index')), indexWithoutStat(path.join(theirs, '.git', 'index')));
  assert.equal(git(ours, ['diff-files', '--name-only']), git(theirs, ['diff-files', '--name-only']));
  assert.notEqual(fs.statSync(path.join(theirs, 'plain.txt')).mtimeMs, later.getTime(), 'git wrote plain.txt again');
  assert.notEqual(fs.statSync(path.join(ours, 'plain.txt')).mtimeMs, later.getTime(), 'tsgit wrote plain.txt again');
});

test('index written by checkout keeps git status from re-reading any file', () => {
  const src = repoWith(MIXED);
  const wt = cloneNoCheckout(src);
  assert.equal(tsgit(wt, ['checkout', '-q']).status, 0);
  const index = path.join(wt, '.git', 'index');
  assert.equal(statDirty(wt), '');
  const before = fs.readFileSync(index);
  assert.equal(git(wt, ['status', '--porcelain']), '');
  assert.deepEqual(fs.readFileSync(index), before, 'git status found something to refresh');
});

test('checkout refuses in a bare repository and with a branch yet to be born', () => {
  const bare = scratch();
  const empty = scratch();
  git(bare, ['init', '-q', '--bare', '.']);
  let r = tsgit(bare, ['checkout']);
  assert.equal(r.status, 128);
  assert.match(r.stderr.toString(), /work tree/);
  git(empty, ['init', '-q', '.'], undefined, GIT_ENV);
  r = tsgit(empty, ['checkout']);
  assert.equal(r.status, 128);
  assert.match(r.stderr.toString(), /yet to be born/);
});
