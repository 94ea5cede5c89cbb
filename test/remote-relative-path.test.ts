// A relative path to a remote, typed or in remote.<name>.url, is taken from the top of the work
// tree, where git's setup moves before it runs the command, not from the subdirectory the
// command was started in: push, fetch and ls-remote, against git, from a subdirectory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, rmrf, tmpDir, tsgit } from './helpers.js';
import { commits } from './push-helpers.js';

let root = '', work = '', sub = '';

before(() => {
  root = tmpDir('tsgit-relative-remote-');
  work = path.join(root, 'w');
  git(root, ['init', '-q', '-b', 'main', work]);
  commits(work, 2, 'base');
  sub = path.join(work, 'd', 'base');
  for (const name of ['git', 'ts']) git(root, ['init', '-q', '--bare', '-b', 'main', path.join(root, `${name}.git`)]);
  git(work, ['remote', 'add', 'gitside', '../git.git']);
  git(work, ['remote', 'add', 'tsside', '../ts.git']);
});

after(() => rmrf(root));

test('push, fetch and ls-remote from a subdirectory reach ../<repo> beside the work tree, as git does', () => {
  git(sub, ['push', '-q', 'gitside', 'main']);
  const pushed = tsgit(sub, ['push', '-q', 'tsside', 'main']);
  assert.equal(pushed.status, 0, pushed.stderr.toString());
  assert.equal(git(path.join(root, 'ts.git'), ['rev-parse', 'main']), git(path.join(root, 'git.git'), ['rev-parse', 'main']));

  const listed = tsgit(sub, ['ls-remote', '../ts.git']);
  assert.equal(listed.status, 0, listed.stderr.toString());
  assert.equal(listed.stdout.toString(), git(sub, ['ls-remote', '../git.git']));

  fs.rmSync(path.join(work, '.git', 'FETCH_HEAD'), { force: true });
  const fetched = tsgit(sub, ['fetch', '-q', '../ts.git', 'main']);
  assert.equal(fetched.status, 0, fetched.stderr.toString());
  const ours = fs.readFileSync(path.join(work, '.git', 'FETCH_HEAD'), 'utf8');
  git(sub, ['fetch', '-q', '../git.git', 'main']);
  const theirs = fs.readFileSync(path.join(work, '.git', 'FETCH_HEAD'), 'utf8');
  assert.equal(ours.replace('../ts', '<url>'), theirs.replace('../git', '<url>'));

  // From the subdirectory, one level further up is not the remote, for either.
  assert.notEqual(tsgit(sub, ['ls-remote', '../../ts.git']).status, 0);
});
