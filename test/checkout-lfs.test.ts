// git-lfs end to end, offline: a repository shaped like a large project (po/ trees naming a
// gettext filter nobody configures, LFS-tracked assets, vendored code marked -text, Windows files
// with eol=crlf) pushed with its LFS objects to a bare repository (git-lfs's standalone file
// transfer keeps them in its lfs/objects), then cloned over file:// by tsgit and by git. With
// `git lfs install` in a temporary HOME, both run `git-lfs filter-process` and must produce the
// same work tree (the real contents); without it, both leave the pointers.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git, rmrf, tmpDir, tsgit } from './helpers.js';
import { snapshot } from './checkout-oracle.js';

let root = '';
let remote = '';
/** The work repository the remote was pushed from (git-lfs's hooks installed by its clean filter). */
let work = '';
/** git-lfs installed in HOME's global config. */
let lfsEnv: NodeJS.ProcessEnv = {};
/** The same HOME without any filter configured. */
let plainEnv: NodeJS.ProcessEnv = {};
const assets = new Map<string, Buffer>();

function noise(seed: string, n: number): Buffer {
  const parts: Buffer[] = [];
  let h = Buffer.from(seed);
  for (let len = 0; len < n; len += 32) parts.push(h = crypto.createHash('sha256').update(h).digest());
  return Buffer.concat(parts).subarray(0, n);
}

function write(dir: string, rel: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), data);
}

before(() => {
  root = tmpDir('tsgit-lfs-');
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  lfsEnv = { ...GIT_ENV, HOME: home, GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'), XDG_CONFIG_HOME: path.join(home, '.config') };
  plainEnv = { ...lfsEnv, GIT_CONFIG_GLOBAL: '/dev/null' };
  execFileSync('git', ['lfs', 'install', '--skip-repo'], { env: lfsEnv, stdio: 'ignore' });

  remote = path.join(root, 'remote.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', remote], undefined, lfsEnv);
  work = path.join(root, 'work');
  git(root, ['init', '-q', '-b', 'main', work], undefined, lfsEnv);
  write(work, '.gitattributes', [
    '* whitespace=!indent,trail,space',
    '*.[ch] whitespace=indent,trail,space diff=cpp',
    '*.sh text eol=lf',
    '*.bat text eol=crlf',
    '/vendor/** -text',
    '*.png filter=lfs diff=lfs merge=lfs -text',
    '*.psd filter=lfs diff=lfs merge=lfs -text',
    'assets/**/*.bin filter=lfs diff=lfs merge=lfs -text',
  ].join('\n') + '\n');
  write(work, 'po/.gitattributes', '*.po filter=gettext-no-location\n');
  for (const lang of ['bg', 'de', 'fr']) write(work, `po/${lang}.po`, `msgid "hello"\nmsgstr "${lang}"\n`);
  write(work, 'gitk-git/po/.gitattributes', '*.po filter=gettext-no-location\n');
  write(work, 'gitk-git/po/ja.po', 'msgid "x"\nmsgstr "y"\n');
  write(work, 'src/main.c', 'int main(void) { return 0; }\n');
  write(work, 'scripts/build.sh', '#!/bin/sh\nmake\n');
  write(work, 'scripts/build.bat', '@echo off\nnmake\n');
  write(work, 'vendor/zlib/zutil.c', 'windows line\r\nunix line\n');
  for (let i = 0; i < 24; i++) assets.set(`assets/textures/t${i}.png`, noise(`png${i}`, 500 + i * 37));
  assets.set('assets/art/cover art.psd', noise('psd', 300_000)); // many pkt-lines, in and out
  assets.set('assets/data/deep/blob.bin', noise('bin', 4096));
  assets.set('assets/data/empty.bin', Buffer.alloc(0));
  for (const [p, data] of assets) write(work, p, data);
  const commit = (message: string) => {
    git(work, ['add', '-A'], undefined, lfsEnv);
    git(work, ['commit', '-q', '-m', message], undefined, lfsEnv);
  };
  commit('project');
  // A second branch: an asset changed, one removed, one added, a po file touched.
  git(work, ['checkout', '-q', '-b', 'next'], undefined, lfsEnv);
  write(work, 'assets/textures/t0.png', noise('png0-v2', 900));
  fs.rmSync(path.join(work, 'assets/textures/t1.png'));
  write(work, 'assets/textures/new.png', noise('new', 700));
  write(work, 'po/de.po', 'msgid "hello"\nmsgstr "hallo"\n');
  commit('next');
  git(work, ['remote', 'add', 'origin', `file://${remote}`], undefined, lfsEnv);
  git(work, ['push', '-q', 'origin', 'main', 'next'], undefined, lfsEnv);
  assert.ok(fs.readdirSync(path.join(remote, 'lfs', 'objects')).length > 0, 'git-lfs did not push its objects to the bare repository');
});

after(() => rmrf(root));

function cloneBoth(name: string, env: NodeJS.ProcessEnv): { ours: string; theirs: string } {
  const ours = path.join(root, `${name}-tsgit`);
  const theirs = path.join(root, `${name}-git`);
  const r = tsgit(root, ['clone', '-q', `file://${remote}`, ours], undefined, env);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(r.stderr.toString(), '');
  git(root, ['clone', '-q', `file://${remote}`, theirs], undefined, env);
  return { ours, theirs };
}

function assertSame(ours: string, theirs: string, env: NodeJS.ProcessEnv): void {
  execFileSync('diff', ['-r', '--no-dereference', '-x', '.git', ours, theirs]);
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  assert.equal(git(ours, ['status', '--porcelain'], undefined, env), '');
  git(ours, ['fsck', '--full', '--no-progress'], undefined, env);
}

test('tsgit clone of a repository with LFS objects over file:// writes their contents through git-lfs filter-process, as git clone does', () => {
  const { ours, theirs } = cloneBoth('lfs', lfsEnv);
  assertSame(ours, theirs, lfsEnv);
  for (const [p, data] of assets) assert.ok(fs.readFileSync(path.join(ours, p)).equals(data), p);
  assert.equal(fs.readFileSync(path.join(ours, 'scripts/build.bat'), 'latin1'), '@echo off\r\nnmake\r\n');
  assert.equal(fs.readFileSync(path.join(ours, 'po/bg.po'), 'utf8'), 'msgid "hello"\nmsgstr "bg"\n');
  // git-lfs fetched the objects into the new clone.
  assert.ok(fs.existsSync(path.join(ours, '.git', 'lfs', 'objects')));

  // Switching to the other branch cleans (git-lfs clean) what it compares and smudges what it
  // writes. New mtimes make every asset's stat differ from its entry, so every one the switch
  // touches is read back through the clean side.
  const past = new Date(Date.now() - 3600_000);
  for (const p of assets.keys()) fs.utimesSync(path.join(ours, p), past, past);
  const r = tsgit(ours, ['checkout', '-q', 'next'], undefined, lfsEnv);
  assert.equal(r.status, 0, r.stderr.toString());
  git(theirs, ['checkout', '-q', 'next'], undefined, lfsEnv);
  assertSame(ours, theirs, lfsEnv);
  assert.ok(!fs.existsSync(path.join(ours, 'assets/textures/t1.png')));
  assert.ok(fs.readFileSync(path.join(ours, 'assets/textures/t0.png')).equals(noise('png0-v2', 900)));
});

test('with writer threads, LFS files go through git-lfs on the main thread while the others are written in parallel', () => {
  const config = path.join(root, 'parallel-gitconfig');
  fs.writeFileSync(config, `${fs.readFileSync(lfsEnv.GIT_CONFIG_GLOBAL!, 'utf8')}[checkout]\n\tworkers = 2\n\tthresholdForParallelism = 1\n`);
  const env = { ...lfsEnv, GIT_CONFIG_GLOBAL: config };
  const { ours, theirs } = cloneBoth('parallel', env);
  assertSame(ours, theirs, env);
  for (const [p, data] of assets) assert.ok(fs.readFileSync(path.join(ours, p)).equals(data), p);
});

test('without git-lfs configured the pointers are checked out as they are, as git does', () => {
  const { ours, theirs } = cloneBoth('pointers', plainEnv);
  assertSame(ours, theirs, plainEnv);
  const pointer = fs.readFileSync(path.join(ours, 'assets/art/cover art.psd'), 'utf8');
  assert.match(pointer, /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:[0-9a-f]{64}\nsize 300000\n$/);
});

test('tsgit push runs the pre-push hook git-lfs installed, so the LFS objects reach the remote and a clone has the contents', () => {
  const data = noise('pushed', 5000);
  write(work, 'assets/textures/pushed.png', data);
  git(work, ['add', '-A'], undefined, lfsEnv);
  git(work, ['commit', '-q', '-m', 'pushed by tsgit'], undefined, lfsEnv);
  const oid = crypto.createHash('sha256').update(data).digest('hex');
  const target = path.join(root, 'pushed.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', target], undefined, lfsEnv);
  const r = tsgit(work, ['push', '-q', `file://${target}`, 'HEAD:refs/heads/main'], undefined, lfsEnv);
  assert.equal(r.status, 0, r.stderr.toString());
  assert.ok(fs.existsSync(path.join(target, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4), oid)), 'git-lfs did not upload the new object');
  const clone = path.join(root, 'pushed-clone');
  git(root, ['clone', '-q', `file://${target}`, clone], undefined, lfsEnv);
  assert.ok(fs.readFileSync(path.join(clone, 'assets/textures/pushed.png')).equals(data));
  assert.ok(fs.readFileSync(path.join(clone, 'assets/art/cover art.psd')).equals(assets.get('assets/art/cover art.psd')!));
});
