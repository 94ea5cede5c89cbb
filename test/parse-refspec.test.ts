// One refspec parser for fetch and push: git decides which texts are refspecs in each direction
// (its "invalid refspec '<text>'", all it says of one, is the oracle), and the push forms (`:dst`
// deletes, `+` forces, `:` matches, `@` is HEAD, `^` excludes only without a destination) read as
// git reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parsePushRefspec, parseRefspec } from '../src/refs/refspec.js';
import { GIT_ENV, git, makeRepo, rmrf } from './helpers.js';

const TEXTS = [
  'main', 'refs/heads/main', 'main:refs/heads/x', '+main:refs/heads/x', 'main:', ':', '+:', '', '@', '@:refs/heads/at',
  ':refs/heads/gone', 'refs/heads/*', 'refs/heads/*:refs/remotes/o/*', '+refs/heads/*:refs/t/*-mirror', 'refs/heads/*:',
  'refs/heads/*:refs/x', 'main:refs/x/*', 'refs/*/*:refs/x/*', 'ma*in', 'main:foo:bar', 'HEAD~1:refs/heads/h', 'a b:refs/x',
  'a b', 'main:refs/heads/../x', '^refs/heads/wip', '^refs/heads/w*', '^main', '^', '^main:refs/x', '^:', '+^main', '^+main',
  `^${'a'.repeat(40)}`, `${'a'.repeat(40)}:refs/x`, 'refs/heads/x.lock:refs/y', 'main:refs/heads/.hidden',
];

function gitAccepts(args: string[], cwd: string): boolean {
  const r = spawnSync('git', args, { cwd, env: GIT_ENV });
  return !/invalid refspec/.test(r.stderr.toString('utf8'));
}

test('the texts git takes as fetch and as push refspecs are the ones parsed, the rest refused', () => {
  const repo = makeRepo(2);
  const bare = `${repo}-bare.git`;
  try {
    git(path.dirname(repo), ['init', '-q', '--bare', bare]);
    const parses = (parse: (t: string) => unknown, t: string) => {
      try {
        parse(t);
        return true;
      } catch (e) {
        assert.equal((e as Error).message, `invalid refspec '${t}'`);
        return false;
      }
    };
    for (const t of TEXTS) {
      assert.equal(parses(parseRefspec, t), gitAccepts(['fetch', '--dry-run', '-q', bare, t], repo), `fetch ${JSON.stringify(t)}`);
      assert.equal(parses(parsePushRefspec, t), gitAccepts(['push', '--dry-run', '--porcelain', bare, t], repo), `push ${JSON.stringify(t)}`);
    }
  } finally {
    rmrf(repo);
    rmrf(bare);
  }
});

test('push refspecs: deletion, force, matching, @ and the last colon', () => {
  const spec = (t: string) => {
    const { force, negative, matching, pattern, src, dst } = parsePushRefspec(t);
    return { force, negative, matching, pattern, src, dst };
  };
  const plain = { force: false, negative: false, matching: false, pattern: false };
  assert.deepEqual(spec(':refs/heads/gone'), { ...plain, src: '', dst: 'refs/heads/gone' });
  assert.deepEqual(spec('+main:refs/heads/x'), { ...plain, force: true, src: 'main', dst: 'refs/heads/x' });
  assert.deepEqual(spec('main'), { ...plain, src: 'main', dst: null });
  assert.deepEqual(spec('+:'), { ...plain, force: true, matching: true, src: '', dst: null });
  assert.deepEqual(spec('@'), { ...plain, src: 'HEAD', dst: null });
  assert.deepEqual(spec('main:foo:bar'), { ...plain, src: 'main:foo', dst: 'bar' });
  assert.deepEqual(spec('HEAD~1:refs/heads/h'), { ...plain, src: 'HEAD~1', dst: 'refs/heads/h' });
  assert.deepEqual(spec('^refs/heads/w*'), { ...plain, negative: true, pattern: true, src: 'refs/heads/w*', dst: null });
  assert.deepEqual(spec('refs/heads/*'), { ...plain, pattern: true, src: 'refs/heads/*', dst: null });
  // The same texts for a fetch: an empty source is the remote's HEAD, and no `:` stores nothing.
  assert.deepEqual([parseRefspec(':').src, parseRefspec(':').dst, parseRefspec('@').src, parseRefspec('main').dst], ['HEAD', '', 'HEAD', '']);
});
