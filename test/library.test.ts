// The package's library entry: what `import ... from 'tsgit'` gives works as the CLI does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tsgit from '../src/index.js';
import { git, makeRepo, rmrf } from './helpers.js';

test('Repository, RevResolver and ObjectWalk from the entry point list what git lists', () => {
  const dir = makeRepo(6);
  const repo = tsgit.Repository.discover(dir);
  try {
    const walk = new tsgit.ObjectWalk(repo.odb);
    walk.add(repo.revs().resolve('HEAD'), 'HEAD');
    const lines: string[] = [];
    walk.enumerate({
      commit: (ids, off) => lines.push(tsgit.toHex(ids, off)),
      object: (_t, ids, off, path, len) => lines.push(`${tsgit.toHex(ids, off)} ${Buffer.from(path.subarray(0, len)).toString()}`),
    });
    assert.deepEqual(lines, git(dir, ['rev-list', '--objects', 'HEAD']).trimEnd().split('\n'));
    assert.equal(typeof tsgit.createUploadPackHandler, 'function');
    assert.equal(typeof tsgit.clone, 'function');
    assert.equal(typeof tsgit.indexPack, 'function');
    assert.equal(typeof tsgit.checkoutTree, 'function');
  } finally {
    repo.close();
    rmrf(dir);
  }
});
