// fetch --set-upstream and --refmap against git 2.39, in two copies of a clone and its bare source
// (oracle-copies.ts: output, exit status, config, refs, reflogs and FETCH_HEAD compared).
//   --set-upstream: the one ref fetched for merging becomes the current branch's upstream
//   (branch.<name>.remote and merge, and rebase by branch.autoSetupRebase); git's warnings for
//   none, several, a detached HEAD, a tag, a remote-tracking ref, any other ref; nothing set when
//   a ref was rejected; not passed on to the fetches of several remotes. A malformed
//   branch.autoSetupRebase stops any fetch before it starts.
//   --refmap: command-line refspecs mapped to remote-tracking refs by it, not by the remote's
//   refspecs; empty, to nowhere; refused without refspecs given.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';
import { clonedTemplate, compareInCopies, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-upstream-'));
after(() => rmrf(root));

// up.git: main, side, tag v1, refs/remotes/r/x and refs/other/x; work, its clone by a relative
// path, with a branch y of its own that side cannot fast-forward. Then up.git moves on.
const { template, work } = clonedTemplate(root, {
  source: [['tag', 'v1'], ['update-ref', 'refs/remotes/r/x', 'HEAD'], ['update-ref', 'refs/other/x', 'HEAD']],
});
git(work, ['commit', '-q', '--allow-empty', '-m', 'mine']);
git(work, ['branch', 'y']);
git(work, ['reset', '-q', '--hard', 'HEAD~1']);
git(work, ['commit', '-q', '--allow-empty', '-m', 'two']);
git(work, ['push', '-q', '../up.git', 'HEAD:refs/heads/main', 'HEAD:refs/heads/side']);
git(work, ['reset', '-q', '--hard', 'HEAD~1']);

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

describe('fetch --set-upstream', () => {
  it('makes the one branch fetched for merging the upstream, as git does', () => {
    compare({ name: 'branch', steps: [['fetch', '--set-upstream', 'origin', 'side'], ['fetch', '--set-upstream', 'origin', 'refs/heads/main']] });
    compare({ name: 'address', steps: [['fetch', '--set-upstream', '../up.git']] });
    compare({ name: 'dry run', prepare: [['config', '--unset', 'branch.main.merge']], steps: [['fetch', '--dry-run', '--set-upstream', 'origin', 'side']] });
    compare({ name: 'rebase', steps: [['-c', 'branch.autoSetupRebase=always', 'fetch', '--set-upstream', 'origin', 'side']] });
    compare({ name: 'unborn', prepare: [['checkout', '-q', '--orphan', 'new']], steps: [['fetch', '--set-upstream', 'origin', 'side']] });
  });

  it("warns as git does of what it will not set, and leaves the config alone", () => {
    compare({
      name: 'warnings',
      steps: [
        ['fetch', '--set-upstream'], ['fetch', '--set-upstream', 'origin', 'main', 'side'], ['fetch', '--set-upstream', 'origin', 'refs/tags/v1'],
        ['fetch', '--set-upstream', 'origin', 'refs/remotes/r/x'], ['fetch', '--set-upstream', 'origin', 'refs/other/x'],
        ['fetch', '--set-upstream', 'origin', 'side', 'refs/heads/side:refs/heads/y'],
        ['fetch', '--set-upstream', '--atomic', 'origin', 'side', 'refs/heads/side:refs/heads/y'],
        ['fetch', '--no-set-upstream', '--set-upstream', 'origin', 'main'],
      ],
    });
    compare({ name: 'detached', prepare: [['checkout', '-q', '--detach']], steps: [['fetch', '--set-upstream', 'origin', 'side']] });
    compare({
      name: 'several remotes',
      prepare: [['remote', 'add', 'other', '../up.git']],
      steps: [['fetch', '--set-upstream', '--multiple', 'other', 'origin'], ['fetch', '--set-upstream', '--all']],
    });
  });

  it('dies on a malformed branch.autoSetupRebase before anything, as git does', () => {
    // git_default_config judges it as fetch reads its configuration, before its options or remote.
    compare({
      name: 'malformed autoSetupRebase', prepare: [['config', 'branch.autoSetupRebase', 'sometimes']],
      steps: [['fetch', '--set-upstream', 'origin', 'side'], ['fetch', 'nowhere'], ['fetch', '--bogus']],
    });
    compare({ name: 'autoSetupRebase without a value', steps: [['-c', 'branch.autoSetupRebase', 'fetch', '--set-upstream', 'origin', 'side']] });
  });

  it('clone sets branch.<name>.rebase by branch.autoSetupRebase too', () => {
    // git's clone writes its templates, which tsgit does not: the configs alone are compared.
    const configs = [['git'], [process.execPath, TSGIT]].map((cmd, i) => {
      const dir = path.join(root, `clone-${i}`);
      const r = spawnSync(cmd[0]!, [...cmd.slice(1), '-c', 'branch.autoSetupRebase=remote', 'clone', '-q', path.join(template, 'up.git'), dir], { env: GIT_ENV });
      assert.equal(r.status, 0, r.stderr.toString());
      return git(dir, ['config', '--local', '--list']);
    });
    assert.match(configs[1]!, /branch\.main\.rebase=true/);
    assert.equal(configs[1], configs[0]);
  });
});

describe('fetch --refmap', () => {
  it('maps the refspecs given by it instead of the remote refspecs, as git does', () => {
    compare({
      name: 'refmap',
      steps: [
        ['fetch', '--refmap=+refs/heads/*:refs/mapped/*', 'origin', 'main'],
        ['fetch', '--refmap', 'refs/heads/side:refs/one/side', '--refmap', 'refs/heads/main:refs/one/main', 'origin', 'side', 'main'],
        ['fetch', '--refmap=', 'origin', 'side'],
        ['fetch', '--refmap=', '--refmap=refs/heads/*:refs/two/*', 'origin', 'side:refs/heads/z'],
      ],
    });
  });

  it('is refused without refspecs, with FETCH_HEAD emptied, as git does', () => {
    compare({ name: 'no refspecs', prepare: [['fetch', '-q']], steps: [['fetch', '--refmap=refs/heads/*:refs/x/*'], ['fetch', '--refmap=', 'origin']] });
  });
});
