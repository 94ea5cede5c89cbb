// Which remote and which URL fetch, ls-remote, push, `@{upstream}` and the submodule code take, as
// git 2.39 reads remotes (remote.c): the default remote, the legacy remotes/ and branches/ files,
// the first URL, insteadOf and pushInsteadOf, an address given in a remote's place, bad config.
// Each case runs in two copies of a clone and its bare source (oracle-copies.ts), git in one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { assertSameAsGit } from './cli-batch.js';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';
import { compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-remote-choice-'));
after(() => rmrf(root));

// The template: up.git (main, and dev a commit ahead) and work, its clone, which names it by a
// relative path so that each copy talks to its own.
const template = path.join(root, 'template');
const source = path.join(root, 'source');
git(root, ['init', '-q', '-b', 'main', source]);
git(source, ['commit', '-q', '--allow-empty', '-m', 'one']);
git(source, ['checkout', '-qb', 'dev']);
git(source, ['commit', '-q', '--allow-empty', '-m', 'two']);
git(source, ['checkout', '-q', 'main']);
git(root, ['clone', '-q', '--bare', source, path.join(template, 'up.git')]);
git(template, ['clone', '-q', 'up.git', 'work']);
git(path.join(template, 'work'), ['config', 'remote.origin.url', '../up.git']);
const head = git(source, ['rev-parse', 'main']).trim();
// Entered into the index by id (no stat data, which would differ between the copies).
const gitmodules = '[submodule "s"]\n\tpath = s\n\turl = ./sub\n';
const gitmodulesBlob = git(path.join(template, 'work'), ['hash-object', '-w', '--stdin'], gitmodules).trim();

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

test('the default remote: branch.<name>.remote, else the only remote, else origin; with none fetch does nothing', () => {
  compare({
    name: 'default',
    prepare: [['remote', 'rename', 'origin', 'upstream'], ['config', '--unset', 'branch.main.remote'], ['push', '-q', '../up.git', 'main:refs/heads/new']],
    steps: [
      ['fetch'], ['ls-remote', '--get-url'], ['ls-remote', '--heads'], ['push'],
      ['config', 'remote.other.prune', 'true'],
      ['fetch'], ['ls-remote'], ['push'], ['fetch', '--filter=blob:none'],
      ['config', 'branch.main.remote', 'upstream'], ['ls-remote', '--get-url'], ['push'],
    ],
  });
});

test('the remotes/ and branches/ files name remotes for fetch, ls-remote, push and @{upstream}', () => {
  compare({
    name: 'legacy',
    files: {
      '.git/remotes/leg': 'URL: ../up.git \nPull: refs/heads/main:refs/remotes/leg/main\nPush: HEAD:refs/heads/fromleg\n',
      '.git/branches/br': ' ../up.git#dev \n',
    },
    prepare: [['config', 'branch.main.remote', 'leg']],
    steps: [
      ['fetch', 'leg'], ['ls-remote', '--get-url', 'leg'], ['push', 'leg'], ['rev-parse', '--symbolic-full-name', 'main@{upstream}'],
      ['fetch', 'br'], ['ls-remote', '--get-url', 'br'], ['fetch'],
    ],
  });
});

test('URLs: the first is fetched from, insteadOf and pushInsteadOf, an empty one, push -u to an address', () => {
  compare({
    name: 'urls',
    prepare: [
      ['config', '--add', 'remote.origin.url', '../elsewhere.git'], ['config', 'url.../up.git.insteadOf', 'xx:'],
      ['config', 'url.../up.git.pushInsteadOf', 'zz:'], ['config', 'remote.z.url', 'zz:/'], ['config', 'remote.e.url', ''],
    ],
    steps: [
      ['ls-remote', '--get-url'], ['fetch'], ['ls-remote', '--get-url', 'z'], ['remote', 'get-url', '--push', '--all', 'z'],
      ['push', 'z', 'main:refs/heads/viaz'], ['push', '-u', 'xx:/', 'main:refs/heads/pu'], ['config', 'branch.main.remote'], ['push'],
      ['config', 'push.default', 'simple'], ['push'], ['config', 'branch.autoSetupMerge', 'simple'], ['push'],
      ['ls-remote', '--get-url', 'e'], ['fetch', 'e'], ['push', 'e'],
    ],
  });
});

test('push -u: a symbolic source followed to its branch, a dry run, sources that are no branch, a detached HEAD', () => {
  compare({
    name: 'set-upstream',
    prepare: [['config', '--unset', 'branch.main.remote'], ['config', '--unset', 'branch.main.merge']],
    steps: [
      ['push', '-u', 'origin', 'HEAD:refs/heads/x'], ['config', '--get-regexp', '^branch\\.'], ['push', '-u', 'origin', 'HEAD'],
      ['push', '-u', 'origin', 'HEAD:other'], ['config', '--get-regexp', '^branch\\.'], ['push', '-u', '--porcelain', 'origin', 'main:refs/heads/p'],
      ['push', '-u', '-n', 'origin', 'HEAD:refs/heads/y'], ['push', '-u', 'origin', 'HEAD~0:refs/heads/z'], ['push', '-u', 'origin', ':refs/heads/x'],
      ['push', '-u', '../up.git', 'HEAD:refs/heads/r'], ['config', '--get-regexp', '^branch\\.'],
    ],
  });
  compare({
    name: 'set-upstream-detached',
    prepare: [['checkout', '-q', '--detach']],
    steps: [['push', '-u', 'origin', 'HEAD:refs/heads/d'], ['push', '-u', 'origin', 'HEAD'], ['push', 'origin', 'HEAD']],
  });
});

test('push.default: the remote checked before the upstream, one upstream only, push.autoSetupRemote', () => {
  compare({
    name: 'push-default',
    prepare: [['remote', 'add', 'other', '../up.git'], ['config', '--unset', 'branch.main.remote'], ['config', '--unset', 'branch.main.merge']],
    steps: [
      ['-c', 'push.default=upstream', 'push', 'other'], ['-c', 'push.default=upstream', 'push', 'origin'],
      ['-c', 'push.default=upstream', '-c', 'push.autoSetupRemote=true', 'push', 'other'],
      ['-c', 'branch.main.merge=refs/heads/main', '-c', 'push.default=upstream', 'push', 'origin'],
      ['-c', 'branch.main.remote=origin', '-c', 'branch.main.merge=refs/heads/main', '-c', 'branch.main.merge=refs/heads/dev', 'push', 'origin'],
      ['-c', 'branch.main.remote=origin', '-c', 'branch.main.merge=refs/heads/dev', '-c', 'push.default=upstream', 'push', '-n', 'origin'],
      ['-c', 'push.default=current', '-c', 'push.autoSetupRemote=true', 'push', '-n', 'other'],
      ['-c', 'push.autoSetupRemote=true', 'push', 'origin'], ['config', '--get-regexp', '^branch\\.'],
    ],
  });
});

test('a push.default git refuses stops push before anything, any value of it given, with git\'s errors', () => {
  compare({
    name: 'bad-push-default',
    prepare: [['config', 'push.default', 'Simple']],
    steps: [
      ['push'], ['-c', 'push.default=current', 'push', 'origin', 'main:refs/heads/x'], ['config', '--unset', 'push.default'],
      ['-c', 'push.default', 'push'], ['-c', 'push.default=', 'push', '--bogus'],
      ['-c', 'push.default=no', '-c', 'branch.autoSetupRebase=no', 'push'], ['-c', 'branch.autoSetupRebase=no', '-c', 'push.default=no', 'push'],
    ],
  });
});

test('what git says as it reads the remotes: a second uploadpack or receivepack, a name from \'/\'; once a process', () => {
  compare({
    name: 'config-warnings',
    prepare: [
      ['remote', 'add', 'other', '../up.git'], ['config', '--add', 'remote.other.uploadpack', 'git-upload-pack'],
      ['config', '--add', 'remote.other.uploadpack', 'second'], ['config', '--add', 'remote.other.receivepack', 'git-receive-pack'],
      ['config', '--add', 'remote.other.receivepack', 'second'], ['config', 'remote./x.URL', '../up.git'], ['config', 'remote./x.fetch', 'x'],
    ],
    steps: [
      ['fetch'], ['fetch', 'other'], ['fetch', '--all'], ['ls-remote', '--get-url'], ['ls-remote', 'other'], ['push', '-n', 'other', 'main'],
      ['rev-parse', '@{u}', 'main@{u}'], ['remote'], ['remote', 'add', 'third', '../up.git'], ['remote', 'remove', 'third'], ['remote', 'update'],
    ],
  });
  // clone reads the new repository's remotes once, the command line's config among them.
  const clones = path.join(root, 'clones');
  fs.mkdirSync(clones);
  const args = ['-c', 'remote./y.url=z', '-c', 'remote.origin.uploadpack=git-upload-pack', '-c', 'remote.origin.uploadpack=second', 'clone', '-q', '--bare', path.join(template, 'up.git')];
  const theirs = spawnSync('git', [...args, 'git.git'], { cwd: clones, env: GIT_ENV, encoding: 'utf8' });
  const ours = spawnSync(process.execPath, [TSGIT, ...args, 'tsgit.git'], { cwd: clones, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(ours.status, theirs.status, ours.stderr);
  assert.equal(ours.stderr, theirs.stderr);
  assert.match(ours.stderr, /^warning: config remote shorthand cannot begin with '\/': \/y\.url\nerror: more than one uploadpack given, using the first\n$/);
});

test('a bad boolean in any remote stops every command that reads remotes', () => {
  compare({
    name: 'bad-bool',
    prepare: [['config', 'remote.other.mirror', 'maybe']],
    steps: [['fetch'], ['ls-remote', '--get-url'], ['push'], ['remote']],
  });
});

test('submodule URLs resolve against branch.<name>.remote, else origin, never the only remote', () => {
  compare({
    name: 'submodule',
    files: { '.gitmodules': gitmodules },
    prepare: [
      ['remote', 'rename', 'origin', 'upstream'], ['config', '--unset', 'branch.main.remote'],
      ['update-index', '--add', '--cacheinfo', `160000,${head},s`, '--cacheinfo', `100644,${gitmodulesBlob},.gitmodules`],
    ],
    steps: [['submodule', 'init'], ['config', 'submodule.s.url']],
  });
});

test('ls-remote outside a repository takes its default remote from the global config', () => {
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  const global = path.join(root, 'global.cfg');
  fs.writeFileSync(global, `[remote "origin"]\n\turl = ${path.join(template, 'up.git')}\n`);
  const env = { ...GIT_ENV, GIT_CEILING_DIRECTORIES: root };
  assertSameAsGit([
    { cwd: outside, args: ['ls-remote'], env: { ...env, GIT_CONFIG_GLOBAL: global } },
    { cwd: outside, args: ['ls-remote', '--get-url'], env: { ...env, GIT_CONFIG_GLOBAL: global } },
    { cwd: outside, args: ['ls-remote'] },
  ], { stderr: 'always', env });
});
