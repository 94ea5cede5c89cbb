// The repository format, against git: a version git does not read, extensions it does not know
// (or knows only under version 1) are refused with git's own fatal message before anything is
// read; a SHA-256 repository, which git reads and tsgit does not, is refused with a clear one
// rather than misread; worktreeConfig's config.worktree is read (a linked work tree's own, too);
// preciousObjects stops
// `repack -d`, as in git.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';

let root = '';
before(() => { root = tmpDir('tsgit-format-'); });
after(() => rmrf(root));

/** A copy of a small repository with `settings` in its config. */
function repoWith(name: string, settings: [string, string][]): string {
  const dir = path.join(root, name);
  makeRepo(3, { at: dir });
  for (const [k, v] of settings) git(dir, ['config', k, v]);
  return dir;
}

function both(dir: string, args: string[]): { status: number | null; stderr: string } {
  const theirs = spawnSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  const ours = tsgit(dir, args);
  assert.equal(ours.status, theirs.status, `${args.join(' ')}: tsgit ${ours.stderr} / git ${theirs.stderr}`);
  assert.equal(ours.stderr.toString(), theirs.stderr, `${args.join(' ')}: stderr`);
  return { status: ours.status, stderr: ours.stderr.toString() };
}

test('versions and extensions git refuses are refused with git\'s message', () => {
  const v2 = both(repoWith('v2', [['core.repositoryformatversion', '2']]), ['rev-parse', 'HEAD']);
  assert.equal(v2.status, 128);
  assert.match(v2.stderr, /Expected git repo version <= 1, found 2/);
  const unknown = both(repoWith('unknown', [['core.repositoryformatversion', '1'], ['extensions.frobnicate', 'yes']]), ['rev-parse', 'HEAD']);
  assert.match(unknown.stderr, /unknown repository extension found:\n\tfrobnicate/);
  const v1Only = both(repoWith('v1-only', [['extensions.objectFormat', 'sha1']]), ['rev-parse', 'HEAD']);
  assert.match(v1Only.stderr, /repo version is 0, but v1-only extension found:\n\tobjectformat/);
  // Under version 0 an extension git does not know means nothing.
  assert.equal(both(repoWith('v0-unknown', [['extensions.frobnicate', 'yes']]), ['rev-parse', '-q', '--verify', 'HEAD']).status, 0);
});

test('a SHA-256 repository, which git reads, is refused rather than misread', () => {
  const dir = path.join(root, 'sha256');
  git(root, ['init', '-q', '--object-format=sha256', dir]);
  fs.writeFileSync(path.join(dir, 'f'), 'x\n');
  git(dir, ['add', 'f']);
  git(dir, ['commit', '-q', '-m', 'one']);
  for (const args of [['rev-list', '--all'], ['upload-pack', '--advertise-refs', '.']]) {
    const r = tsgit(dir, args);
    assert.equal(r.status, 128, args.join(' '));
    assert.match(r.stderr.toString(), /^fatal: '.*sha256\/\.git' uses extensions\.objectFormat=sha256; tsgit reads only SHA-1 repositories\n$/);
  }
  // Served by git: the clone stops at the advertisement, in either protocol, and leaves nothing.
  for (const version of ['0', '2']) {
    const target = path.join(root, `sha256-clone-v${version}`);
    const r = tsgit(root, ['-c', `protocol.version=${version}`, 'clone', '-q', '--upload-pack=git upload-pack', `file://${dir}`, target]);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), /object format sha256; tsgit supports only sha1 repositories/);
    assert.ok(!fs.existsSync(target));
  }
});

test('worktreeConfig: config.worktree is read after the repository\'s config', () => {
  const dir = repoWith('worktree-config', [['core.repositoryformatversion', '1'], ['extensions.worktreeConfig', 'true']]);
  const other = path.join(root, 'other');
  makeRepo(2, { at: other });
  fs.writeFileSync(path.join(dir, '.git', 'config.worktree'), `[remote "origin"]\n\turl = ${other}\n`);
  const theirs = git(dir, ['ls-remote']);
  assert.match(theirs, /refs\/heads\/main/);
  const ours = tsgit(dir, ['ls-remote']);
  assert.equal(ours.status, 0, ours.stderr.toString());
  assert.equal(ours.stdout.toString(), theirs);
});

test('preciousObjects: repack -d refuses to delete packs, as git does', () => {
  const dir = repoWith('precious', [['extensions.preciousObjects', 'true']]);
  const r = both(dir, ['repack', '-a', '-d', '-q']);
  assert.equal(r.status, 128);
  assert.match(r.stderr, /cannot delete packs in a precious-objects repo/);
});

test('worktreeConfig in a linked work tree: its own config.worktree, not the main work tree\'s', () => {
  const main = path.join(root, 'linked-main');
  makeRepo(2, { at: main });
  const linked = path.join(root, 'linked');
  git(main, ['worktree', 'add', '-q', linked]);
  const shared = path.join(root, 'linked-shared'), own = path.join(root, 'linked-own');
  makeRepo(2, { at: shared });
  makeRepo(3, { at: own });
  git(own, ['branch', 'only-in-own']);
  git(main, ['config', 'core.repositoryformatversion', '1']);
  git(main, ['config', 'extensions.worktreeConfig', 'true']);
  // Each work tree's config.worktree: the main one's is in the common directory, which the
  // linked one must not read as its own.
  git(main, ['config', '--worktree', 'remote.origin.url', shared]);
  git(linked, ['config', '--worktree', 'remote.origin.url', own]);
  assert.ok(fs.existsSync(path.join(main, '.git', 'config.worktree')));
  assert.ok(fs.existsSync(path.join(main, '.git', 'worktrees', 'linked', 'config.worktree')));
  for (const [dir, wanted] of [[linked, /only-in-own/], [main, /refs\/heads\/main/]] as const) {
    const theirs = git(dir, ['ls-remote', 'origin']);
    assert.match(theirs, wanted);
    const ours = tsgit(dir, ['ls-remote', 'origin']);
    assert.equal(ours.status, 0, ours.stderr.toString());
    assert.equal(ours.stdout.toString(), theirs);
  }
});
