// fetch --multiple and remote groups (remotes.<group>) against git 2.39, in two copies of a clone
// and its bare sources (oracle-copies.ts: output, exit status, refs, reflogs and FETCH_HEAD
// compared): "Fetching <remote>" for each, FETCH_HEAD appended remote by remote (emptied first
// unless --append), the options passed on as git passes them to its fetch of each, a failing
// remote reported and the rest fetched (exit 1), and git's refusals. With -j/--jobs or
// fetch.parallel, several at once: each one's output (its server's too) printed whole, in git's
// order, "Fetching <remote>" as each starts, git's message for one that failed and its reflog
// messages (with --end-of-options); two remotes whose upload-packs each wait for the other's to
// start show that they run at once. git's refusals of a negative fetch.parallel and a bad -j.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { clonedTemplate, compareInCopies, runInCopy, type CopiesCase } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-multiple-'));
after(() => rmrf(root));

// up.git and second.git, and work, a clone of up.git with the remotes other (up.git again) and
// second, each by a relative path; then both sources move on.
const { template, work } = clonedTemplate(root, { bares: ['up.git', 'second.git'] });
git(work, ['remote', 'add', 'other', '../up.git']);
git(work, ['remote', 'add', 'second', '../second.git']);
git(work, ['config', 'remotes.both', 'origin  second']);
git(work, ['config', '--add', 'remotes.both', 'other']);
git(work, ['config', 'remotes.solo', 'second']);
git(work, ['config', 'remotes.bad', 'nowhere origin']);
// For -j: broken, whose upload-pack fails, and a and b (up.git and second.git again), each served
// by an upload-pack that waits for the other's to start (a file in the directory the fetch runs
// in) and fails after 5 s without it; none of them fetched by --all.
const broken = path.join(root, 'broken-upload-pack');
fs.writeFileSync(broken, '#!/bin/sh\necho "fatal: broken on purpose" >&2\nexit 128\n', { mode: 0o755 });
for (const [name, url, other] of [['broken', '../up.git', null], ['a', '../up.git', 'b'], ['b', '../second.git', 'a']] as const) {
  const script = other === null ? broken : path.join(root, `upload-pack-${name}`);
  if (other !== null) {
    fs.writeFileSync(script, `#!/bin/sh\ntouch started-${name}\ni=0\nwhile [ ! -e started-${other} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\n`
      + `[ -e started-${other} ] || { echo "${other} did not start" >&2; exit 1; }\nexec git-upload-pack "$@"\n`, { mode: 0o755 });
  }
  git(work, ['remote', 'add', name, url]);
  git(work, ['config', `remote.${name}.uploadpack`, script]);
  git(work, ['config', `remote.${name}.skipFetchAll`, 'true']);
}
git(work, ['commit', '-q', '--allow-empty', '-m', 'two']);
git(work, ['tag', 'v2']);
git(work, ['push', '-q', '../up.git', 'HEAD:refs/heads/main', 'v2']);
git(work, ['push', '-q', '../second.git', 'HEAD:refs/heads/side', 'HEAD:refs/heads/new']);
git(work, ['reset', '-q', '--hard', 'HEAD~1']);
git(work, ['tag', '-d', 'v2']);

function compare(c: CopiesCase): void {
  compareInCopies(template, root, c, 'work');
}

describe('fetch --multiple and remote groups', () => {
  it('fetches each remote named, FETCH_HEAD appended remote by remote, as git does', () => {
    compare({ name: 'multiple', steps: [['fetch', '--multiple', 'second', 'other']] });
    compare({ name: 'options', steps: [['fetch', '-m', '--prune', '--no-tags', '-v', 'origin', 'second'], ['fetch', '--multiple', '-q', 'other', 'origin']] });
    // Nor is --upload-pack passed on: each remote's own is run.
    compare({ name: 'upload-pack', steps: [['fetch', '--upload-pack=nowhere-upload-pack', '--multiple', 'second', 'origin'], ['fetch', '--upload-pack=nowhere', '--all']] });
    compare({ name: 'append', prepare: [['fetch', '-q', 'origin', 'side']], steps: [['fetch', '--multiple', '--append', 'second', 'origin']] });
    // git 2.39 fetches a remote as often as it is named.
    compare({ name: 'repeated', steps: [['fetch', '--multiple', 'second', 'second', 'origin', 'second']] });
    compare({ name: 'default', steps: [['fetch', '--multiple']] });
  });

  it('fetches the remotes of a group, alone or among others', () => {
    compare({ name: 'group', steps: [['fetch', 'both'], ['fetch', '--multiple', 'solo', 'both', 'other']] });
  });

  it("refuses what git refuses: an unknown name, a group's refspecs, --atomic or --filter", () => {
    compare({
      name: 'refused',
      steps: [
        ['fetch', '--multiple', 'origin', 'nowhere'], ['fetch', 'both', 'main'], ['fetch', '--atomic', 'both'],
        ['fetch', '--filter=blob:none', '--multiple', 'origin'],
      ],
    });
  });

  it('goes on past a remote that fails, and exits 1', () => {
    // Each tool says in its own words why "nowhere" is no repository; the rest is compared.
    const results = (['git', 'tsgit'] as const).map((tool) => {
      const r = runInCopy(template, root, tool, 'work', ['fetch', 'bad']);
      const dir = path.join(r.top, 'work');
      const stderr = r.stderr.split('\n').filter((l) => !/nowhere'? does not|^fatal: Could not read|^Please make sure|^and the repository exists|^$/.test(l));
      return { status: r.status, stdout: r.stdout, stderr, refs: git(dir, ['for-each-ref']), fetchHead: fs.readFileSync(path.join(dir, '.git', 'FETCH_HEAD'), 'utf8') };
    });
    assert.equal(results[1]!.status, 1);
    assert.equal(results[1]!.stdout, 'Fetching nowhere\nFetching origin\n');
    assert.deepEqual(results[1], results[0]);
  });

  it("with -j or fetch.parallel, fetches remotes at once, each one's output whole and in git's order; refuses what git refuses", () => {
    compare({
      name: 'parallel',
      steps: [
        ['-c', 'fetch.parallel=-1', 'fetch'],
        ['fetch', '-jx'],
        // FETCH_HEAD gets each remote's lines as it ends, in no set order when they run at once:
        // only one of these writes there, and the others are dry runs.
        ['-c', 'fetch.parallel=2', 'fetch', '--multiple', 'second', 'broken'],
        // One after the other, neither would serve.
        ['fetch', '--jobs=2', '--dry-run', '-v', '--multiple', 'a', 'b'],
      ],
    });
    const [theirs, ours] = (['git', 'tsgit'] as const).map((tool) => {
      const r = runInCopy(template, root, tool, 'work', ['-c', 'fetch.parallel=-1', 'fetch']);
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    });
    assert.deepEqual(ours, theirs);
  });
});
