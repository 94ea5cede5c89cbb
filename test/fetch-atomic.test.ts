// fetch --atomic against git 2.39, in two copies of a clone and its bare source (oracle-copies.ts:
// output, exit status, refs, reflogs and FETCH_HEAD compared):
//   every update and prune of the fetch made together; a rejected ref leaves every ref and
//   FETCH_HEAD as they were (git's empty "error: " from its abort, exit 1, in a dry run too); a ref that cannot be
//   locked the same (its lock error, exit 254, git's -2); refused beside several remotes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { clonedTemplate, compareInCopies, runInCopy, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-atomic-'));
after(() => rmrf(root));

// up.git (main, side, tag v1) and work, its clone by a relative path, with a branch y of its own
// that side cannot fast-forward.
const { template, work } = clonedTemplate(root, { source: [['tag', 'v1']] });
git(work, ['commit', '-q', '--allow-empty', '-m', 'mine']);
git(work, ['branch', 'y']);
git(work, ['reset', '-q', '--hard', 'HEAD~1']);

/** The source moves on: main and side a commit ahead, a new tag, and (prune) a branch gone. */
const moved: string[][] = [
  ['commit', '-q', '--allow-empty', '-m', 'two'],
  ['push', '-q', '../up.git', 'HEAD:refs/heads/gone'],
  ['fetch', '-q'],
  ['push', '-q', '../up.git', ':refs/heads/gone', 'HEAD:refs/heads/main', 'HEAD:refs/heads/side'],
  ['tag', 'v2'],
  ['push', '-q', '../up.git', 'v2'],
  ['tag', '-d', 'v2'],
  ['reset', '-q', '--hard', 'HEAD~1'],
];

function compare(c: CopiesCase): string {
  return compareInCopies(template, root, { ...c, prepare: [...moved, ...(c.prepare ?? [])] }, 'work');
}

describe('fetch --atomic', () => {
  it('makes every update and prune of a fetch, as git does', () => {
    compare({ name: 'applied', steps: [['fetch', '--atomic', '--prune', '--tags'], ['fetch', '--atomic', 'origin', 'main:refs/heads/x']] });
    compare({ name: 'dry run', steps: [['fetch', '--atomic', '--dry-run', '--prune'], ['fetch', '--atomic', '-v']] });
  });

  it('leaves every ref, prune and FETCH_HEAD alone when one ref is rejected', () => {
    const ours = compare({
      name: 'rejected',
      steps: [
        ['fetch', '--atomic', 'origin', 'main:refs/heads/x', 'side:refs/heads/y'],
        ['fetch', '--atomic', '--prune', 'origin', '+refs/heads/*:refs/remotes/origin/*', 'refs/heads/side:refs/heads/y'],
        ['fetch', '--atomic', 'origin', 'side:refs/heads/y', 'main:refs/heads/x'],
        // git's transaction is begun in a dry run too, and aborted the same.
        ['fetch', '--atomic', '--dry-run', 'origin', 'main:refs/heads/x', 'side:refs/heads/y'],
      ],
    });
    assert.equal(fs.readFileSync(path.join(ours, 'work', '.git', 'FETCH_HEAD'), 'utf8'), '');
    assert.equal(git(path.join(ours, 'work'), ['for-each-ref', '--format=%(refname)', 'refs/heads/x', 'refs/remotes/origin/gone']), 'refs/remotes/origin/gone\n');
    // Without --atomic the same fetch stores what it can.
    compare({ name: 'not atomic', steps: [['fetch', 'origin', 'main:refs/heads/x', 'side:refs/heads/y']] });
  });

  it('is refused beside several remotes, as git refuses it', () => {
    compare({
      name: 'several',
      prepare: [['remote', 'add', 'other', '../up.git'], ['config', 'remotes.both', 'origin other']],
      steps: [['fetch', '--atomic', '--all'], ['fetch', '--atomic', '--multiple', 'origin'], ['fetch', '--atomic', 'both'], ['fetch', '--atomic', 'other']],
    });
  });

  it('changes nothing when a ref cannot be locked, and exits 254 as git does', () => {
    // The copies' lock errors differ past their first line (git's advice), so they are run here.
    const locked = path.join(root, 'locked');
    fs.cpSync(template, locked, { recursive: true });
    for (const args of moved) git(path.join(locked, 'work'), args);
    fs.writeFileSync(path.join(locked, 'work', '.git', 'refs', 'remotes', 'origin', 'side.lock'), '');
    const results = (['git', 'tsgit'] as const).map((tool) => {
      const r = runInCopy(locked, root, tool, 'work', ['fetch', '--atomic', '--prune']);
      const dir = path.join(r.top, 'work');
      // Up to git's first sentence of the lock error: the report and the error's start.
      return {
        status: r.status, stderr: r.stderr.slice(0, r.stderr.indexOf('File exists.') + 12), refs: git(dir, ['for-each-ref']),
        fetchHead: fs.readFileSync(path.join(dir, '.git', 'FETCH_HEAD'), 'utf8'),
      };
    });
    assert.equal(results[1]!.status, 254);
    assert.match(results[1]!.stderr, /\nerror: cannot lock ref 'refs\/remotes\/origin\/side': Unable to create '@TOP@\/work\/\.git\/refs\/remotes\/origin\/side\.lock': File exists\.$/);
    assert.deepEqual(results[1], results[0]);
  });
});
