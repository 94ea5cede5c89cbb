// rev-list --objects with trees read on a worker thread (TSGIT_TREE_WORKER=on) prints exactly what
// git prints, and fails as the single-threaded walk does on a missing tree.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { GIT_ENV, git, gitBuf, rmrf, tmpDir, tsgit } from './helpers.js';

const ON = { ...GIT_ENV, TSGIT_TREE_WORKER: 'on' };
const OFF = { ...GIT_ENV, TSGIT_TREE_WORKER: 'off' };

function same(gitDir: string, args: string[]): void {
  const expected = gitBuf(gitDir, args);
  const got = tsgit(gitDir, args, undefined, ON);
  assert.equal(got.status, 0, got.stderr.toString());
  assert.ok(got.stdout.equals(expected), `tsgit ${args.join(' ')} differs from git:\n${got.stdout.toString().slice(0, 400)}\nvs\n${expected.toString().slice(0, 400)}`);
}

describe('rev-list --objects with the tree worker', () => {
  let gitDir = '';
  before(async () => { gitDir = (await ensureCorpus('small')).gitDir; });

  test('small corpus: all refs, limits, tip trees and blobs', () => {
    const tree = git(gitDir, ['rev-parse', 'HEAD~7^{tree}']).trim();
    const blob = git(gitDir, ['rev-parse', `HEAD:${git(gitDir, ['ls-tree', '--name-only', 'HEAD']).split('\n')[0]}`]).trim();
    for (const args of [
      ['rev-list', '--objects', '--all'],
      ['rev-list', '--objects', '-n', '7', '--all'],
      ['rev-list', '--objects', '--count', '--all'],
      ['rev-list', '--objects', 'HEAD~3', tree, blob],
      ['rev-list', '--objects', '--no-object-names', 'HEAD'],
    ]) same(gitDir, args);
  });

  test('a missing tree fails as without the worker', () => {
    const dir = tmpDir();
    try {
      git(dir, ['init', '-q', '-b', 'main']);
      fs.mkdirSync(path.join(dir, 'd'));
      fs.writeFileSync(path.join(dir, 'd/f'), 'x\n');
      git(dir, ['add', '.']);
      git(dir, ['commit', '-q', '-m', 'one']);
      const sub = git(dir, ['rev-parse', 'HEAD:d']).trim();
      fs.rmSync(path.join(dir, '.git/objects', sub.slice(0, 2), sub.slice(2)));
      const on = tsgit(dir, ['rev-list', '--objects', '--all'], undefined, ON);
      const off = tsgit(dir, ['rev-list', '--objects', '--all'], undefined, OFF);
      assert.notEqual(off.status, 0);
      assert.match(off.stderr.toString(), new RegExp(`missing tree ${sub}`));
      assert.equal(on.status, off.status);
      assert.equal(on.stderr.toString(), off.stderr.toString());
    } finally {
      rmrf(dir);
    }
  });
});
