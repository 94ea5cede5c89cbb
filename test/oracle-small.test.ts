// The `small` benchmark corpus (about 2k commits with merges, branches and tags, generated
// deterministically): tsgit's plumbing prints exactly what git prints, byte for byte, and so does
// cat-file -p.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureCorpus } from '../bench/corpus.js';
import { prettyPrint } from '../src/cli/commands/cat-file.js';
import { Output } from '../src/cli/output.js';
import { fromHex } from '../src/core/oid.js';
import { Repository } from '../src/repository/repository.js';
import { GIT_ENV, git, gitBuf, rmrf, tmpDir, tsgit } from './helpers.js';

describe('small corpus: tsgit prints what git prints', () => {
  let gitDir = '';
  const scratch = tmpDir();
  before(async () => { gitDir = (await ensureCorpus('small')).gitDir; });
  after(() => rmrf(scratch));

  for (const args of [
    ['rev-list', '--objects', '--all'],
    ['rev-list', '--all'],
    ['rev-list', '--count', '--all'],
    ['cat-file', '--batch-check', '--batch-all-objects'],
    ['cat-file', '--batch', '--batch-all-objects'],
    ['show-ref'],
    ['show-ref', '-d', '--head'],
    ['ls-tree', '-r', 'HEAD'],
    ['ls-tree', '-r', '-t', 'HEAD~100'],
  ]) {
    test(args.join(' '), () => {
      const expected = gitBuf(gitDir, args);
      const got = tsgit(gitDir, args);
      assert.equal(got.status, 0, got.stderr.toString());
      assert.ok(expected.length > 0);
      assert.ok(got.stdout.equals(expected), `tsgit ${args.join(' ')} differs from git (${got.stdout.length} vs ${expected.length} bytes)`);
    });
  }

  test('rev-list with exclusions matches git', () => {
    const tags = gitBuf(gitDir, ['for-each-ref', '--format=%(refname)', 'refs/tags']).toString().trim().split('\n');
    assert.ok(tags.length >= 2, 'the corpus has tags');
    for (const args of [
      ['rev-list', '--objects', 'HEAD', `^${tags[0]}`],
      ['rev-list', `${tags[tags.length - 1]}..HEAD`],
      ['rev-list', '--objects', '--all', '--not', tags[Math.floor(tags.length / 2)]!],
    ]) {
      const expected = gitBuf(gitDir, args);
      const got = tsgit(gitDir, args);
      assert.equal(got.status, 0, got.stderr.toString());
      assert.ok(got.stdout.equals(expected), `tsgit ${args.join(' ')} differs from git`);
    }
  });

  test('cat-file -p of every object prints its stored bytes, and what git cat-file -p prints', () => {
    const list = gitBuf(gitDir, ['cat-file', '--batch-check', '--batch-all-objects']).toString().trim().split('\n')
      .map(l => l.split(' ') as [string, string, string]);
    const ofType = (t: string) => list.filter(([, type]) => type === t).map(([id]) => id);
    const trees = ofType('tree');
    assert.ok(trees.length > 100 && list.length > 5000, `corpus too small: ${list.length} objects, ${trees.length} trees`);
    const repo = new Repository(gitDir, null);
    const file = path.join(scratch, 'p');
    try {
      // A blob, commit or tag prints as stored: git's own bytes from cat-file --batch.
      const others = list.filter(([, type]) => type !== 'tree').map(([id]) => id);
      const raw = gitBuf(gitDir, ['cat-file', '--batch'], others.join('\n') + '\n');
      let p = 0;
      for (const id of others) {
        const nl = raw.indexOf(0x0a, p);
        const size = Number(raw.toString('latin1', p, nl).split(' ')[2]);
        assert.ok(printed(repo, id, file).equals(raw.subarray(nl + 1, nl + 1 + size)), `cat-file -p ${id}`);
        p = nl + 1 + size + 1;
      }
      assert.equal(p, raw.length, 'every object of the --batch output was compared');

      // git cat-file -p itself, one process per object, on a sample (all 8700 trees would cost
      // ~20 s of CPU): every tree of HEAD (among them the one holding a symlink), every 20th tree,
      // every tag, every 50th commit and blob.
      const headTrees = [git(gitDir, ['rev-parse', 'HEAD^{tree}']).trim(),
        ...git(gitDir, ['ls-tree', '-r', '-d', '--format=%(objectname)', 'HEAD']).trim().split('\n')];
      const every = (ids: string[], k: number) => ids.filter((_, i) => i % k === 0);
      const sample = [...new Set([...headTrees, ...every(trees, 20), ...ofType('tag'), ...every(ofType('commit'), 50), ...every(ofType('blob'), 50)])];
      const expected = execFileSync('xargs', ['-n', '1', 'git', 'cat-file', '-p'], { cwd: gitDir, env: GIT_ENV, input: sample.join('\n'), maxBuffer: 1 << 28 });
      for (const mode of ['040000 tree', '100644 blob', '100755 blob', '120000 blob']) {
        assert.match(expected.toString('latin1'), new RegExp(`^${mode} [0-9a-f]{40}\t`, 'm'), `the sample lists a ${mode}`);
      }
      const ours = sample.map(id => printed(repo, id, file));
      const got = Buffer.concat(ours);
      if (!got.equals(expected)) {
        // Name the first object whose output differs.
        let at = 0, k = 0;
        while (k < ours.length && got.subarray(at, at + ours[k]!.length).equals(expected.subarray(at, at + ours[k]!.length))) at += ours[k++]!.length;
        const id = sample[Math.min(k, sample.length - 1)]!;
        assert.equal(printed(repo, id, file).toString('latin1'), git(gitDir, ['cat-file', '-p', id]), `cat-file -p ${id} differs from git`);
        assert.fail(`tsgit's cat-file -p output differs from git's (${got.length} vs ${expected.length} bytes)`);
      }
    } finally {
      repo.close();
    }
  });
});

function printed(repo: Repository, hex: string, file: string): Buffer {
  const fd = fs.openSync(file, 'w');
  try {
    const out = new Output(fd);
    prettyPrint(repo.odb, fromHex(hex)!, out);
    out.flush();
  } finally {
    fs.closeSync(fd);
  }
  return fs.readFileSync(file);
}
