// fetch --multiple and --all with -j/--jobs or fetch.parallel, against git 2.39, in two copies of a
// clone and its bare sources (oracle-copies.ts: output, exit status, refs, reflogs compared):
// several remotes fetched at once, each one's output (its server's too) printed whole and in git's
// order, "Fetching <remote>" as each starts, git's message for one that failed, its reflog
// messages (with git's --end-of-options). FETCH_HEAD gets each remote's lines as it ends, in no
// set order when they run at once, so only one of those that do writes there. Two remotes whose upload-packs
// each wait for the other's to start show the fetches run at once. git's refusals: a negative
// fetch.parallel, a -j that is no number.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { git, rmrf, tmpDir } from './helpers.js';
import { clonedTemplate, compareInCopies, runInCopy } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-parallel-'));
after(() => rmrf(root));

// up.git and second.git; work, a clone of up.git with the remotes second; broken, whose
// upload-pack fails; and a and b (up.git and second.git again, not fetched by --all), each served
// by an upload-pack that waits for the other's to start (a file in the directory the fetch runs
// in), and fails after 5 s without it.
const { template, work } = clonedTemplate(root, { bares: ['up.git', 'second.git'] });
git(work, ['remote', 'add', 'second', '../second.git']);
const broken = path.join(root, 'broken-upload-pack');
fs.writeFileSync(broken, '#!/bin/sh\necho "fatal: broken on purpose" >&2\nexit 128\n', { mode: 0o755 });
git(work, ['remote', 'add', 'broken', '../up.git']);
git(work, ['config', 'remote.broken.uploadpack', broken]);
for (const [name, url, other] of [['a', '../up.git', 'b'], ['b', '../second.git', 'a']] as const) {
  const script = path.join(root, `upload-pack-${name}`);
  fs.writeFileSync(script, `#!/bin/sh\ntouch started-${name}\ni=0\nwhile [ ! -e started-${other} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\n`
    + `[ -e started-${other} ] || { echo "${other} did not start" >&2; exit 1; }\nexec git-upload-pack "$@"\n`, { mode: 0o755 });
  git(work, ['remote', 'add', name, url]);
  git(work, ['config', `remote.${name}.uploadpack`, script]);
  git(work, ['config', `remote.${name}.skipFetchAll`, 'true']);
}
git(work, ['commit', '-q', '--allow-empty', '-m', 'two']);
git(work, ['push', '-q', '../up.git', 'HEAD:refs/heads/main']);
git(work, ['push', '-q', '../second.git', 'HEAD:refs/heads/new']);
git(work, ['reset', '-q', '--hard', 'HEAD~1']);

describe('fetch -j / fetch.parallel', () => {
  it("fetches remotes at once, each one's output whole and in git's order, as git does; refuses what git refuses", () => {
    compareInCopies(template, root, {
      name: 'parallel',
      steps: [
        ['-c', 'fetch.parallel=-1', 'fetch'],
        ['fetch', '-jx'],
        ['-c', 'fetch.parallel=2', 'fetch', '--multiple', 'second', 'broken'],
        // One after the other, neither would serve.
        ['fetch', '--jobs=2', '--dry-run', '--multiple', 'a', 'b'],
        ['fetch', '-j', '2', '--all', '-v', '--dry-run'],
      ],
    }, 'work');
  });

  it('says the same from the command line itself', () => {
    const [theirs, ours] = (['git', 'tsgit'] as const).map((tool) => {
      const r = runInCopy(template, root, tool, 'work', ['-c', 'fetch.parallel=-1', 'fetch']);
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    });
    assert.deepEqual(ours, theirs);
  });
});
