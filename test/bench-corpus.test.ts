// The benchmark corpora must be the same on every machine, or results from two machines compare
// different repositories. Generating `small` and getting the recorded HEAD proves the generator
// (seeded PRNG, fixed dates and names, text from the pinned typescript package) is deterministic.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CACHE_ENV, ensureCorpus } from '../bench/corpus.js';
import { ALLOW_OTHER_SOURCE_ENV, PINNED_TYPESCRIPT, loadTextPool } from '../bench/text-pool.js';
import { git, rmrf, tmpDir } from './helpers.js';

/** Recorded from a build; the same constant is in bench/corpus.ts, checked here independently. */
const SMALL_HEAD = 'c12fb639a41b2075e25d34f27796832d0cd7dd71';

function withEnv<T>(name: string, value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  return fn().finally(() => {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  });
}

test('the small corpus comes out with the recorded HEAD, passes fsck and is reused from the cache', async () => {
  const cache = tmpDir('tsgit-bench-cache-');
  try {
    await withEnv(ALLOW_OTHER_SOURCE_ENV, undefined, () => withEnv(CACHE_ENV, cache, async () => {
      const { gitDir, head } = await ensureCorpus('small');
      assert.equal(gitDir, path.join(cache, 'small.git'));
      assert.equal(head, SMALL_HEAD);
      assert.equal(git(gitDir, ['rev-parse', 'HEAD']).trim(), SMALL_HEAD);
      assert.equal(git(gitDir, ['config', 'core.bare']).trim(), 'true');
      git(gitDir, ['fsck', '--full', '--strict', '--no-dangling']);

      // The shape the tests and benchmarks rely on: merges, several branches, both kinds of tags.
      assert.equal(git(gitDir, ['rev-list', '--count', '--all']).trim(), '2000');
      assert.ok(Number(git(gitDir, ['rev-list', '--count', '--merges', '--all'])) > 50);
      assert.ok(git(gitDir, ['for-each-ref', 'refs/heads']).trim().split('\n').length >= 3);
      const tagTypes = git(gitDir, ['for-each-ref', '--format=%(objecttype) %(*objecttype)', 'refs/tags']).trim().split('\n');
      assert.ok(tagTypes.filter((t) => t === 'tag commit').length >= 10, 'annotated tags on commits');
      assert.ok(tagTypes.filter((t) => t === 'commit ').length >= 5, 'lightweight tags');
      assert.ok(tagTypes.includes('tag blob'), 'an annotated tag on a blob');
      const files = git(gitDir, ['ls-tree', '-r', '--name-only', 'HEAD']).trim().split('\n');
      assert.ok(files.length >= 200 && files.length <= 400, `${files.length} files at HEAD`);
      assert.ok(files.some((f) => f.split('/').length >= 5), 'nested directories');

      const meta = path.join(gitDir, 'tsgit-bench.json');
      const built = fs.statSync(meta).mtimeMs;
      assert.equal((await ensureCorpus('small')).head, SMALL_HEAD);
      assert.equal(fs.statSync(meta).mtimeMs, built, 'the cached corpus was rebuilt');
      assert.deepEqual(fs.readdirSync(cache).sort(), ['small.git']);
    }));
  } finally {
    rmrf(cache);
  }
});

test('a typescript package other than the pinned one is refused', async () => {
  const dir = tmpDir('tsgit-bench-ts-');
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'typescript', version: '0.0.1' }));
    fs.mkdirSync(path.join(dir, 'lib'));
    await withEnv(ALLOW_OTHER_SOURCE_ENV, undefined, async () => {
      assert.throws(() => loadTextPool(dir), (err: Error) =>
        err.message.includes('typescript 0.0.1') && err.message.includes(PINNED_TYPESCRIPT));
    });
  } finally {
    rmrf(dir);
  }
});
