// FileRefStore's transaction, the ref updates of a push: all or nothing when atomic, each on its
// own otherwise; expected old values checked under the locks; a lock someone else holds refuses
// that ref with git's message; refs/heads/a and refs/heads/a/b never both; deletions of packed
// refs; reflogs. git reads the result (for-each-ref, reflog, fsck of the refs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FileRefStore } from '../src/refs/file-store.js';
import { git, makeRepo, rmrf } from './helpers.js';

describe('FileRefTransaction', () => {
  let repo: string, gitDir: string, c1: string, c2: string, c3: string;
  before(() => {
    repo = makeRepo(3);
    gitDir = path.join(repo, '.git');
    [c1, c2, c3] = ['main~2', 'main~1', 'main'].map((r) => git(repo, ['rev-parse', r]).trim()) as [string, string, string];
  });
  after(() => rmrf(repo));
  const refs = () => git(repo, ['for-each-ref', '--format=%(objectname) %(refname)']);
  const store = () => new FileRefStore(gitDir, { logAllRefUpdates: true, ident: () => 'T <t@example.com> 1700000000 +0000' });

  test('atomic: a stale old value fails every update, and nothing is written', () => {
    const before = refs();
    const tx = store().transaction().update('refs/heads/a', c1, null, 'push').update('refs/heads/main', c1, c2, 'push');
    assert.throws(() => tx.commit({ atomic: true }), /cannot lock ref 'refs\/heads\/main': is at [0-9a-f]{40} but expected/);
    assert.equal(refs(), before);
    assert.deepEqual(fs.readdirSync(path.join(gitDir, 'refs', 'heads')).filter((n) => n.endsWith('.lock')), []);
  });

  test('not atomic: the good updates go through, the stale one alone fails', () => {
    const out = store().transaction().update('refs/heads/a', c1, null, 'push').update('refs/heads/main', c1, c2, 'push')
      .update('refs/tags/t', c2, undefined, 'push').commit({ atomic: false });
    assert.deepEqual(out.map((o) => [o.name, o.error?.code ?? null]), [['refs/heads/a', null], ['refs/heads/main', 'ref-changed'], ['refs/tags/t', null]]);
    assert.match(refs(), new RegExp(`${c1} refs/heads/a\n${c3} refs/heads/main\n`));
    assert.match(git(repo, ['reflog', 'show', '--format=%H %gs', 'refs/heads/a']), new RegExp(`^${c1} push\n$`));
  });

  test('a lock held by another writer refuses that ref with git\'s message', () => {
    const lock = path.join(gitDir, 'refs', 'heads', 'a.lock');
    fs.writeFileSync(lock, '');
    try {
      const [o] = store().transaction().update('refs/heads/a', c2, c1).commit({ atomic: false });
      assert.match(o!.error!.message, /cannot lock ref 'refs\/heads\/a': Unable to create '.*a\.lock': File exists/);
      assert.equal(git(repo, ['rev-parse', 'refs/heads/a']).trim(), c1);
    } finally {
      fs.rmSync(lock);
    }
  });

  test('a ref and one below it: not both; a new ref under an existing one: refused', () => {
    const out = store().transaction().update('refs/heads/x', c1, null).update('refs/heads/x/y', c1, null).commit({ atomic: false });
    assert.equal(out[0]!.error, null);
    assert.match(out[1]!.error!.message, /cannot process 'refs\/heads\/x' and 'refs\/heads\/x\/y'/);
    const [o] = store().transaction().update('refs/heads/a/b', c1, null).commit({ atomic: false });
    assert.match(o!.error!.message, /'refs\/heads\/a' exists; cannot create 'refs\/heads\/a\/b'/);
  });

  test('deletions, packed and loose, with their old values checked; one update per ref', () => {
    git(repo, ['pack-refs', '--all']);
    const out = store().transaction().delete('refs/heads/a', c1).delete('refs/tags/t', c1).delete('refs/heads/x', undefined)
      .commit({ atomic: false });
    assert.deepEqual(out.map((o) => o.error?.code ?? null), [null, 'ref-changed', null]);
    assert.doesNotMatch(refs(), /refs\/heads\/a\n|refs\/heads\/x\n/);
    assert.match(refs(), /refs\/tags\/t\n/);
    assert.throws(() => store().transaction().update('refs/heads/main', c1).update('refs/heads/main', c2).commit({ atomic: true }),
      /multiple updates for ref 'refs\/heads\/main' not allowed/);
    git(repo, ['fsck', '--no-dangling']);
  });
});
