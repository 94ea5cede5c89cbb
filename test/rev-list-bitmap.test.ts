// tsgit rev-list --use-bitmap-index prints byte for byte what git 2.39 prints over the same
// repository: with a bitmap, ids without paths, type by type in pack order, then objects outside
// the bitmapped pack in walk order (--count adds them up); where git walks instead (no bitmap, a
// corrupt one, no excluded tip in the bitmapped pack, --max-count), the walk's output. Checked over
// git's bitmap and over the one `tsgit repack -a -d -b` writes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildBitmapRepo, type BitmapRepo } from './bitmap-walk-fixture.js';
import { gitBuf, rmrf, tsgit } from './helpers.js';
import { assertSameAsGit } from './cli-batch.js';

let repo: BitmapRepo;

before(() => { repo = buildBitmapRepo(); });
after(() => rmrf(repo.dir));

const ARGS: string[][] = [
  ['--objects', '--all'],
  ['--all'],
  ['--count', '--all'],
  ['--count', '--objects', '--all'],
  ['--objects', 'main', '^main~10'],
  ['--objects', 'side60', '--not', 'main~40'],
  ['--objects', 'v2', '^main~3', '^loose'],
  ['--objects', 'treetag', 'blobtag', 'loosenested', 'looseblobtag'],
  ['--objects', 'main^{tree}'],
  ['--objects', '^v1', 'old-fork'],
  ['--count', '--objects', 'main~5..main'],
  ['main~5..main'],
  ['--count', '-n', '3', '--all'],
  ['-n', '3', 'main'],
  ['--objects', 'loose', '^main'], // no excluded tip in the bitmapped pack: git walks
  ['--count', 'main', '--not', '--all'],
];

/** `rev-list --use-bitmap-index <args>` for each of `lines` in `dir`: tsgit (one batch, some spawned) prints what git prints, and no error. */
function same(dir: string, lines: string[][]): void {
  assertSameAsGit(lines.map((args) => ({ cwd: dir, args: ['rev-list', '--use-bitmap-index', ...args] })), { stderr: 'always', spawnSome: true });
}

test('over git\'s bitmap, output equals git\'s', () => {
  same(repo.dir, ARGS);
  // The bitmap answer has no paths and another order: equal output means the bitmap was used.
  const viaBitmap = gitBuf(repo.dir, ['rev-list', '--use-bitmap-index', '--objects', '--all']).toString();
  const walked = gitBuf(repo.dir, ['rev-list', '--objects', '--all']).toString();
  assert.ok(!viaBitmap.includes(' ') && walked.includes(' '));
  assert.notEqual(viaBitmap.split('\n').slice(0, 20).join(), walked.split('\n').map(l => l.slice(0, 40)).slice(0, 20).join());
});

test('over the bitmap tsgit repack -a -d -b writes, output equals git\'s', () => {
  const copy = `${repo.dir}-ours`;
  fs.cpSync(repo.dir, copy, { recursive: true });
  try {
    const r = tsgit(copy, ['repack', '-a', '-d', '-b', '-q']);
    assert.equal(r.status, 0, r.stderr.toString());
    const pack = path.join(copy, 'objects', 'pack');
    assert.equal(fs.readdirSync(pack).filter(f => f.endsWith('.bitmap')).length, 1);
    same(copy, ARGS);
  } finally {
    rmrf(copy);
  }
});

test('without a bitmap, or with a truncated one, both walk and print the same', () => {
  const copy = `${repo.dir}-broken`;
  fs.cpSync(repo.dir, copy, { recursive: true });
  try {
    const pack = path.join(copy, 'objects', 'pack');
    const bitmap = path.join(pack, fs.readdirSync(pack).find(f => f.endsWith('.bitmap'))!);
    fs.truncateSync(bitmap, 100);
    for (const args of [['--objects', '--all'], ['--count', '--all']]) {
      const full = ['rev-list', '--use-bitmap-index', ...args];
      const ours = tsgit(copy, full);
      assert.equal(ours.status, 0);
      assert.equal(ours.stdout.toString(), gitBuf(copy, full).toString());
      assert.match(ours.stderr.toString(), /^error: .*bitmap.*too short/);
    }
    assert.ok(tsgit(copy, ['rev-list', '--use-bitmap-index', '--objects', '--all']).stdout.includes(' same/copy.txt\n'), 'the walk prints paths');
    fs.rmSync(bitmap);
    same(copy, [['--objects', '--all'], ['--count', '--objects', 'main']]);
  } finally {
    rmrf(copy);
  }
});
