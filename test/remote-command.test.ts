// `tsgit remote` against `git remote` (2.39), each case in two copies of one clone (oracle-copies.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { sameAsSpawned, tsgitBatch } from './cli-batch.js';
import { GIT_ENV, git, rmrf, tmpDir } from './helpers.js';
import { compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-remote-cmd-'));
after(() => rmrf(root));

// The repository the clones come from: main and dev, a tag, and a second commit on dev.
const source = path.join(root, 'source');
git(root, ['init', '-q', '-b', 'main', source]);
fs.writeFileSync(path.join(source, 'a'), 'a\n');
git(source, ['add', 'a']);
git(source, ['commit', '-qm', 'one']);
git(source, ['tag', 'v1']);
// A second branch at main's commit: only the HEAD symref the server sends picks main for set-head -a.
git(source, ['branch', 'same']);
git(source, ['checkout', '-qb', 'dev']);
git(source, ['commit', '-qm', 'two', '--allow-empty']);
git(source, ['checkout', '-q', 'main']);
const template = path.join(root, 'template');
git(root, ['clone', '-q', source, template]);

/** A case of `remote` command lines ('@SOURCE@' in them stands for the source repository), run in a copy of the clone. */
function compare(c: CopiesCase): { top: string; args: string[][] } {
  const args = c.steps.map((s) => ['remote', ...s.map((x) => x.replaceAll('@SOURCE@', source))]);
  return { top: compareInCopies(template, root, { ...c, steps: args }), args };
}

test('listing, add with its options, and its errors', () => {
  compare({
    name: 'add',
    steps: [
      [], ['-v'], ['--verbose'],
      ['add', 'up', '/tmp/x'], ['add', 'up', '/tmp/y'], ['add', 'origin', 'z'], ['add', 'a b', 'x'], ['add', 'a..b', 'x'], ['add', '', 'x'],
      ['add', 'a/b', 'x'], ['add', 'star*', 'x'], ['add', 'col:on', 'x'],
      ['add', '-t', 'main', '-t', 'dev', '--no-tags', '-m', 'dev', 'w', 'url'], ['add', '--tags', 'tg', 'url'],
      ['add', '--mirror=push', 'mp', 'url'], ['add', '--mirror=fetch', '-t', 'q', 'mf', 'url'], ['add', '--mirror', 'mm', 'url'],
      ['add', '--mirror=bad', 'mb', 'url'], ['add', '--mirror=push', '-m', 'main', 'mb', 'url'], ['add', '--mirror=push', '-t', 'a', 'mb', 'url'],
      ['add'], ['add', 'one'], ['add', 'a', 'b', 'c'], ['add', '--bogus', 'a', 'b'],
      [], ['-v'], ['foo'], ['-v', 'foo'],
    ],
  });
});

test('get-url and set-url: insteadOf and pushInsteadOf, push URLs, patterns, and the remotes/ and branches/ files', () => {
  compare({
    name: 'urls',
    prepare: [
      ['config', 'url.http://X/.insteadOf', 'http://r/'], ['config', 'url.ssh://P/.pushInsteadOf', 'http://b/'],
      ['remote', 'add', 'up', 'http://r/up'], ['config', '--add', 'remote.up.url', 'http://b/two'], ['config', 'remote.pushonly.pushurl', 'http://r/zz'],
      ['config', 'remote.fetchonly.fetch', '+refs/heads/*:refs/remotes/fetchonly/*'],
    ],
    files: { '.git/remotes/rf': 'URL: http://r/rf \nPull: refs/heads/a:refs/heads/b\nPush: refs/heads/c\n', '.git/branches/bf': ' http://b/y#dev \n' },
    steps: [
      [], ['-v'],
      ['get-url', 'origin'], ['get-url', 'up'], ['get-url', '--all', 'up'], ['get-url', '--push', '--all', 'up'], ['get-url', '--push', 'pushonly'],
      ['get-url', 'pushonly'], ['get-url', 'fetchonly'], ['get-url', 'rf'], ['get-url', '--push', '--all', 'bf'], ['get-url', 'nope'],
      ['get-url'], ['get-url', 'a', 'b'],
      ['set-url', 'up', 'new'], ['set-url', 'up', 'new', 'b/two$'], ['set-url', 'up', 'new', 'nomatch'], ['set-url', 'up', 'new', '('],
      ['set-url', '--add', 'up', 'third'], ['set-url', '--delete', 'up', '.'], ['set-url', '--delete', 'up', 'new'],
      ['set-url', '--push', 'up', 'pushy'], ['set-url', '--push', '--add', 'up', 'pushy2'], ['set-url', '--push', '--delete', 'up', 'nomatch'],
      ['set-url', '--push', '--delete', 'up', 'pushy'], ['set-url', '--add', '--delete', 'up', 'x'], ['set-url', 'nope', 'x'],
      ['set-url', 'up'], ['set-url', '--add', 'up', 'a', 'b'], ['set-url', 'rf', 'http://new'], ['-v'],
      ['rename', 'bf', 'bf2'], ['remove', 'bf'], ['rename', 'bf', 'bf'], ['rename', 'rf', 'rf'], ['-v'], ['get-url', '--all', 'bf'],
    ],
  });
});

test('rename: config section, fetch refspecs, branch settings, remote.pushDefault, remote-tracking refs and their reflogs', () => {
  const { top, args } = compare({
    name: 'rename',
    prepare: [
      ['config', 'branch.main.pushRemote', 'origin'], ['config', 'remote.pushDefault', 'origin'],
      ['config', '--add', 'remote.origin.fetch', '+refs/tags/*:refs/tags/*'],
      ['remote', 'add', 'other', source], ['config', '--add', 'remote.other.fetch', '+refs/heads/*:refs/heads/o/*'], ['fetch', '-q', 'other'],
      ['update-ref', 'refs/remotes/origin/extra', 'HEAD'], ['branch', '-q', '--track', 'dev2', 'origin/dev'],
      ['config', 'remote.plain.url', 'p'],
    ],
    steps: [
      ['rename', 'origin', 'up'], ['-v'], ['rename', 'other', 'oth'], ['rename', 'plain', 'p2'],
      ['rename', 'nope', 'x'], ['rename', 'up', 'oth'], ['rename', 'up', 'a..b'], ['rename', 'up'], ['rename', '--progress'],
      ['rename', '--no-progress', 'p2', 'p3'], ['-v'],
    ],
  });
  // The batch stands for the CLI where a spawned tsgit prints the same (steps that change nothing).
  const readOnly = [1, 4, 5].map((i) => ({ cwd: top, args: args[i]! }));
  sameAsSpawned(readOnly, tsgitBatch(readOnly));
});

test('rename --progress draws git\'s meter on stderr', () => {
  const top = path.join(root, 'progress');
  fs.cpSync(template, top, { recursive: true });
  git(top, ['remote', 'set-head', 'origin', 'main']);
  const [r] = tsgitBatch([{ cwd: top, args: ['remote', 'rename', '--progress', 'origin', 'up'] }]);
  assert.equal(r!.status, 0);
  // HEAD counts twice (deleted, made again), main, dev and same once.
  assert.match(r!.stderr.toString(), /Renaming remote references: 100% \(5\/5\), done\.\n$/);
});

test('remove: refs, branch.<x>.remote and merge, refs another remote tracks kept, local branches noted, remote.pushDefault in a global file', () => {
  const global = path.join(root, 'global.cfg');
  fs.writeFileSync(global, '[remote]\n\tpushDefault = other\n');
  compare({
    name: 'remove',
    env: { GIT_CONFIG_GLOBAL: global },
    prepare: [
      ['config', 'remote.pushDefault', 'origin'], ['branch', '-q', '--track', 'dev2', 'origin/dev'], ['config', 'branch.dev2.pushRemote', 'origin'],
      ['remote', 'add', 'other', source], ['config', '--add', 'remote.other.fetch', '+refs/heads/*:refs/heads/o/*'],
      ['config', '--add', 'remote.other.fetch', '+refs/heads/*:refs/remotes/origin/*'], ['fetch', '-q', 'other'],
      ['remote', 'add', 'third', source], ['config', '--add', 'remote.third.fetch', '+refs/heads/dev:refs/heads/solo'], ['fetch', '-q', 'third'],
    ],
    steps: [['rm', 'nope'], ['remove'], ['rm', 'a', 'b'], ['rm', 'origin'], ['-v'], ['remove', 'third'], []],
  });
});

test('set-head (-a against the remote, -d, a branch) and set-branches', () => {
  compare({
    name: 'set-head',
    prepare: [['remote', 'add', 'other', source], ['fetch', '-q', 'other'], ['config', 'remote.mir.url', source], ['config', 'remote.mir.mirror', 'true']],
    steps: [
      ['set-head', 'origin', '-d'], ['set-head', 'origin', '--delete'], ['set-head', 'origin', 'dev'], ['set-head', 'origin', 'nope'],
      ['set-head', 'other', '-a'], ['set-head', 'origin', '--auto'], ['set-head', 'origin'], ['set-head', 'origin', '-a', '-d'], ['set-head'],
      ['set-head', 'nope', 'x'],
      ['set-branches', 'origin', 'main', 'dev'], ['set-branches', '--add', 'origin', 'feature'], ['set-branches', 'origin'],
      ['set-branches', 'origin', 'x'], ['set-branches', '--add', 'mir', 'tags/*'], ['set-branches', 'nope', 'x'], ['set-branches'],
    ],
  });
});

test('prune: refs gone from the remote, by every fetch refspec, -n, and the symbolic refs left dangling', () => {
  compare({
    name: 'prune',
    prepare: [
      ['remote', 'add', 'other', source], ['fetch', '-q', 'other'], ['update-ref', 'refs/remotes/origin/gone', 'HEAD'],
      ['update-ref', 'refs/remotes/origin/alsogone', 'HEAD'], ['update-ref', 'refs/remotes/other/x', 'HEAD'],
      ['symbolic-ref', 'refs/remotes/other/HEAD', 'refs/remotes/other/x'], ['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/gone'],
      ['config', '--add', 'remote.origin.fetch', '+refs/tags/*:refs/tags/*'], ['tag', 'zz'],
    ],
    steps: [['prune'], ['prune', '-n', 'origin', 'other'], ['prune', '--dry-run', 'origin'], ['prune', 'origin', 'other'], ['prune', 'origin']],
  });
});

test('update: fetch --all, with --prune', () => {
  compare({
    name: 'update',
    prepare: [['remote', 'add', 'other', source], ['update-ref', 'refs/remotes/origin/gone', 'HEAD'], ['update-ref', 'refs/remotes/other/old', 'HEAD']],
    steps: [['update', '-p'], ['update', '--no-prune'], ['-v', 'update'], ['update', '--bogus']],
  });
});

test('add -f fetches through tsgit fetch, then -m points HEAD at the fetched branch', () => {
  compare({
    name: 'add-fetch',
    steps: [['add', '-f', '--tags', 'third', '@SOURCE@'], ['add', '-f', '-m', 'dev', 'fourth', '@SOURCE@'], ['-v', 'add', '-f', 'fifth', '@SOURCE@']],
  });
});

test('a CI checkout: init, remote add origin, fetch', () => {
  const a = path.join(root, 'ci-git'), b = path.join(root, 'ci-tsgit');
  const steps = [['init', '-q'], ['remote', 'add', 'origin', source],
    ['fetch', '--no-tags', '--prune', '--no-recurse-submodules', '--depth=1', 'origin', '+refs/heads/main:refs/remotes/origin/main'],
    ['remote', '-v'], ['remote', 'get-url', 'origin']];
  for (const top of [a, b]) fs.mkdirSync(top);
  const theirs = steps.map((s) => spawnSync('git', s, { cwd: a, env: GIT_ENV }));
  const ours = tsgitBatch(steps.map((s) => ({ cwd: b, args: s })));
  steps.forEach((s, i) => {
    assert.equal(ours[i]!.status, theirs[i]!.status, s.join(' '));
    assert.equal(ours[i]!.stdout.toString().replaceAll(b, a), theirs[i]!.stdout.toString(), s.join(' '));
  });
  for (const file of ['config', 'FETCH_HEAD', 'shallow', 'refs/remotes/origin/main', 'HEAD']) {
    assert.equal(fs.readFileSync(path.join(b, '.git', file), 'latin1'), fs.readFileSync(path.join(a, '.git', file), 'latin1'), file);
  }
});
