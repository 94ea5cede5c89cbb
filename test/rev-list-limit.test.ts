// rev-list -n with --objects: the limit applies to commits, and only the trees of the commits
// shown are listed (tags and other non-commit tips still are), as git does.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { gitBuf, tsgit } from './helpers.js';

describe('rev-list -n with --objects matches git', () => {
  let gitDir = '';
  before(async () => { gitDir = (await ensureCorpus('small')).gitDir; });

  test('limits, with and without exclusions and tags', () => {
    const tags = gitBuf(gitDir, ['for-each-ref', '--format=%(refname)', 'refs/tags']).toString().trim().split('\n');
    assert.ok(tags.length >= 2, 'the corpus has tags');
    const all = gitBuf(gitDir, ['rev-list', '--objects', 'HEAD']);
    for (const args of [
      ['rev-list', '--objects', '-n', '3', 'HEAD'],
      ['rev-list', '--objects', '--max-count=1', 'HEAD'],
      ['rev-list', '--objects', '-2', '--all'],
      ['rev-list', '--objects', '-n', '0', '--all'],
      ['rev-list', '--objects', '-n', '5', 'HEAD', `^${tags[0]}`],
      ['rev-list', '--objects', '--count', '-n', '4', 'HEAD'],
    ]) {
      const expected = gitBuf(gitDir, args);
      const got = tsgit(gitDir, args);
      assert.equal(got.status, 0, got.stderr.toString());
      assert.ok(got.stdout.equals(expected), `tsgit ${args.join(' ')} differs from git:\n${got.stdout.toString().slice(0, 400)}\nvs\n${expected.toString().slice(0, 400)}`);
      assert.ok(expected.length < all.length, `${args.join(' ')} lists fewer objects than the whole history`);
    }
  });
});
