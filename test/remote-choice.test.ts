// Which remote and which URL fetch, ls-remote, push, `@{upstream}` and the submodule code take, as
// git 2.39 reads remotes (remote.c): the default remote, the legacy remotes/ and branches/ files,
// the first URL, insteadOf and pushInsteadOf, an address given in a remote's place, bad config.
// Each case runs in two copies of a clone and its bare source (oracle-copies.ts), git in one.
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { assertSameAsGit } from './cli-batch.js';
import { GIT_ENV, git, rmrf, tmpDir } from './helpers.js';
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
