// A git-core server advertises a ref whose file is broken with the zero id (git 2.39 does), and
// git's own clone of it fails. tsgit's fails too, before asking for an object no one has, with one
// fatal line that names the ref, and leaves no directory behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';
import { spawnSync } from 'node:child_process';

let root = '', served = '';
before(() => {
  root = tmpDir('tsgit-null-ref-');
  served = path.join(root, 'served.git');
  const work = makeRepo(2, { at: path.join(root, 'work') });
  git(root, ['clone', '-q', '--bare', work, served]);
  fs.writeFileSync(path.join(served, 'refs', 'heads', 'broken'), 'dummy\n');
});
after(() => rmrf(root));

test('a ref advertised with the zero id: git fails, and so does tsgit, naming the ref', (t) => {
  const advertised = spawnSync('git', ['upload-pack', '--advertise-refs', served], { env: GIT_ENV }).stdout.toString('latin1');
  if (!advertised.includes(`${'0'.repeat(40)} refs/heads/broken`)) {
    t.skip('this git does not advertise broken refs');
    return;
  }
  const g = spawnSync('git', ['clone', '-q', `file://${served}`, path.join(root, 'by-git')], { env: GIT_ENV });
  assert.notEqual(g.status, 0, 'git clone fails');
  const r = tsgit(root, ['clone', '-q', '--upload-pack=git-upload-pack', `file://${served}`, path.join(root, 'by-tsgit')]);
  assert.equal(r.status, 128, r.stderr.toString());
  assert.equal(r.stderr.toString(), "fatal: 'refs/remotes/origin/broken' has a null OID\n");
  assert.equal(fs.existsSync(path.join(root, 'by-tsgit')), false);
});
