// Where there is no repository, tsgit says what git says. A clone's source without a scheme is a
// path, and git's clone looks for a repository there itself (get_repo_path): where there is none
// it stops with "repository '<path>' does not exist" before making anything; where there is one
// (<path>, <path>/.git, <path>.git) it clones. fetch, ls-remote and push reach the far end, whose
// upload-pack or receive-pack says why it stopped (naming the path as given) before git's
// die_initial_contact text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, TSGIT } from './helpers.js';

const work = tmpDir('tsgit-clone-local-');
after(() => rmrf(work));

test('a path with no repository stops the clone as git stops it; paths git finds a repository at are cloned', () => {
  const repo = makeRepo(1, { bare: true, at: path.join(work, 'found.git') });
  fs.mkdirSync(path.join(work, 'plain-dir'));
  const sources = ['nowhere', path.join(work, 'nowhere', 'deeper'), 'plain-dir', 'found', 'found.git', repo];
  sources.forEach((source, i) => {
    const theirs = spawnSync('git', ['clone', '-q', source, `git-${i}`], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
    const ours = spawnSync(process.execPath, [TSGIT, 'clone', '-q', source, `tsgit-${i}`], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
    assert.equal(ours.status, theirs.status, `clone ${source}: ${ours.stderr}`);
    assert.equal(ours.stderr, theirs.stderr, `clone ${source}`);
    assert.equal(fs.existsSync(path.join(work, `tsgit-${i}`)), fs.existsSync(path.join(work, `git-${i}`)), `clone ${source}: the directory`);
    if (theirs.status === 0) assert.equal(git(path.join(work, `tsgit-${i}`), ['rev-parse', 'HEAD']), git(path.join(work, `git-${i}`), ['rev-parse', 'HEAD']));
  });
});

// The far end is given the path as written, from the top of the work tree, and names it so: a
// relative path stays relative, an absolute one keeps its `..`.
test('fetch, ls-remote and push to a path or file:// URL with no repository: the far end\'s error, then git\'s', () => {
  const repo = makeRepo(1, { at: path.join(work, 'local') });
  const sub = path.join(repo, 'sub');
  fs.mkdirSync(sub);
  const cases: [string, string][] = [
    [repo, path.join(work, 'nowhere')], [repo, `file://${work}/nowhere`], [repo, '../elsewhere.git'], [repo, './x'],
    [repo, `${repo}/../abs`], [sub, 'nowhere/deeper'],
  ];
  for (const [cwd, target] of cases) {
    for (const args of [['fetch', target], ['ls-remote', target], ['push', target, 'HEAD:refs/heads/x']]) {
      const theirs = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
      const ours = spawnSync(process.execPath, [TSGIT, ...args], { cwd, env: GIT_ENV, encoding: 'utf8' });
      assert.equal(ours.status, theirs.status, `${args.join(' ')}: ${ours.stderr}`);
      assert.equal(ours.stderr, theirs.stderr, args.join(' '));
      assert.match(ours.stderr, /does not appear to be a git repository/, args.join(' '));
    }
  }
});
