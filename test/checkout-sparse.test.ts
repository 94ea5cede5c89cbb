// A sparse checkout (core.sparseCheckout with info/sparse-checkout patterns) is refused: git would
// write only the paths the patterns select, and tsgit writes every file. Nothing is changed by the
// refusal. Without the patterns file git checks out everything, and so does tsgit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, rmrf, tmpDir, tsgit } from './helpers.js';

describe('sparse checkouts', () => {
  let work: string;
  let repo: string;
  before(() => {
    work = tmpDir();
    repo = path.join(work, 'repo');
    git(work, ['init', '-q', '-b', 'main', repo]);
    for (const f of ['top.txt', 'in/a.txt', 'out/b.txt']) {
      fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
      fs.writeFileSync(path.join(repo, f), `${f}\n`);
    }
    git(repo, ['add', '.']);
    git(repo, ['commit', '-q', '-m', 'one']);
    git(repo, ['checkout', '-q', '-b', 'next']);
    fs.writeFileSync(path.join(repo, 'out/b.txt'), 'changed\n');
    git(repo, ['commit', '-q', '-am', 'two']);
    git(repo, ['checkout', '-q', 'main']);
  });
  after(() => rmrf(work));

  it('refuses to switch a work tree that git keeps sparse, and leaves it as it was', () => {
    const sparse = path.join(work, 'sparse');
    git(work, ['clone', '-q', repo, sparse]);
    git(sparse, ['sparse-checkout', 'set', 'in']);
    assert.equal(fs.existsSync(path.join(sparse, 'out')), false);
    const head = git(sparse, ['rev-parse', 'HEAD']);
    const index = fs.readFileSync(path.join(sparse, '.git', 'index'));
    const r = tsgit(sparse, ['checkout', '-q', 'origin/next']);
    assert.equal(r.status, 128);
    assert.match(r.stderr.toString(), /^fatal: core\.sparseCheckout is set and .*info\/sparse-checkout selects paths: tsgit does not do sparse checkouts/);
    assert.equal(git(sparse, ['rev-parse', 'HEAD']), head);
    assert.deepEqual(fs.readFileSync(path.join(sparse, '.git', 'index')), index);
    assert.equal(fs.existsSync(path.join(sparse, 'out')), false);
  });

  it('checks out everything, as git does, when the patterns file is missing', () => {
    const mine = path.join(work, 'mine'), theirs = path.join(work, 'theirs');
    for (const dir of [mine, theirs]) {
      git(work, ['clone', '-q', repo, dir]);
      git(dir, ['config', 'core.sparseCheckout', 'true']);
    }
    const r = tsgit(mine, ['checkout', '-q', 'origin/next']);
    assert.equal(r.status, 0, r.stderr.toString());
    git(theirs, ['checkout', '-q', 'origin/next']);
    assert.equal(fs.readFileSync(path.join(mine, 'out/b.txt'), 'utf8'), 'changed\n');
    assert.equal(git(mine, ['status', '--porcelain']), '');
    assert.equal(git(mine, ['ls-files', '-s', '-t']), git(theirs, ['ls-files', '-s', '-t']));
  });
});
