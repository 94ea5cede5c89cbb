// fetch.output against git 2.39, in two copies of a clone and its bare source (oracle-copies.ts:
// output, exit status, refs, reflogs and FETCH_HEAD compared): `full` (the default) and `compact`,
// whose lines give the part of a ref's names the two share as `*` ("main -> origin/*", "v1 -> *",
// "foo/* -> bar"), for new branches, fast-forwards, forced updates, tags, FETCH_HEAD alone and
// prunes (padded as git pads them, before it measures the other lines); the column widened for a
// name that leaves room on a compact line and not on a full one; a value git refuses, fatal once
// the prunes are made, and not read with -q.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { clonedTemplate, compareInCopies, runInCopy } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-output-'));
after(() => rmrf(root));

const { template, work } = clonedTemplate(root, { source: [['tag', 'v1']] });

// A 25-character branch name: too long for a full line's column at 80 columns, not a compact one's.
const LONG = 'twenty-five-characters-xy';

// The source moves on: main fast-forwards, side is rewritten, gone goes, new branches and tags
// come, v1 moves.
for (const args of [
  ['commit', '-q', '--allow-empty', '-m', 'two'],
  ['push', '-q', '../up.git', 'HEAD:refs/heads/side', 'HEAD:refs/heads/gone'],
  ['fetch', '-q'],
  ['reset', '-q', '--hard', 'HEAD~1'],
  ['commit', '-q', '--allow-empty', '-m', 'three'],
  ['push', '-q', '-f', '../up.git', 'HEAD:refs/heads/main', 'HEAD:refs/heads/side', ':refs/heads/gone', 'HEAD:refs/heads/foo/bar',
    `HEAD:refs/heads/${LONG}`, 'HEAD:refs/tags/v1', 'HEAD:refs/tags/v2'],
  ['reset', '-q', '--hard', 'HEAD~1'],
]) git(work, args);

const everything = ['fetch', '--prune', '--tags', '-f', 'origin', '+refs/heads/*:refs/remotes/origin/*', 'foo/bar:refs/heads/bar', 'side', 'main:main2'];

describe('fetch.output', () => {
  it('prints each kind of ref line in full and compact, and refuses a value git refuses once the prunes are made (not with -q), as git does', () => {
    // Dry runs first, which change no ref: each sees every update.
    compareInCopies(template, root, {
      name: 'output',
      steps: [
        ['-c', 'fetch.output=bogus', 'fetch', '--prune', '--dry-run'], ['-c', 'fetch.output=bogus', 'fetch', '-q', '--dry-run'],
        [...everything, '--dry-run'], ['-c', 'fetch.output=Compact', ...everything], ['-c', 'fetch.output=compact', 'fetch', '-v'],
      ],
    }, 'work');
  });

  it('says the same from the command line itself', () => {
    const [theirs, ours] = (['git', 'tsgit'] as const).map((tool) => {
      const r = runInCopy(template, root, tool, 'work', ['-c', 'fetch.output=compact', 'fetch', 'origin', 'main:refs/heads/x']);
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    });
    assert.deepEqual(ours, theirs);
  });
});
