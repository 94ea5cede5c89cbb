// tsgit init against git init: what each prints and creates (fresh, again, bare, with a branch name
// from -b or init.defaultBranch, refused names), and a repository that tsgit init made serving a CI
// runner's checkout (fetch of one branch, checkout -B) that git then finds clean and whole.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';

const root = tmpDir('tsgit-init-');
after(() => rmrf(root));

/** Every file under `dir` with its content (config, HEAD, description, info/exclude), directories as such. */
function layout(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const r = path.join(rel, name);
      if (name === 'hooks' || name === 'branches') continue; // git's templates, which tsgit does not copy
      const st = fs.statSync(path.join(dir, r));
      if (st.isDirectory()) { out.push(`${r}/`); walk(r); } else out.push(`${r}: ${fs.readFileSync(path.join(dir, r), 'utf8')}`);
    }
  };
  walk('.');
  return out;
}

test('init prints, creates and refuses what git init does', () => {
  const global = path.join(root, 'global');
  fs.writeFileSync(global, '[init]\n\tdefaultBranch = trunk\n');
  const cases: { args: string[]; dir: string; env?: NodeJS.ProcessEnv; cwd?: string }[] = [
    { args: ['init', 'plain'], dir: 'plain' },
    { args: ['init', 'plain'], dir: 'plain' },
    { args: ['init', '-b', 'other', 'plain'], dir: 'plain' },
    { args: ['init', '--bare', 'bare.git'], dir: 'bare.git' },
    { args: ['init', '-q', '--initial-branch=main', 'named'], dir: 'named' },
    { args: ['init', 'configured'], dir: 'configured', env: { ...GIT_ENV, GIT_CONFIG_GLOBAL: global } },
    { args: ['-c', 'init.defaultBranch=dev', 'init', 'given'], dir: 'given' },
    { args: ['init', '-b', 'x..y', 'bad'], dir: 'bad' },
    { args: ['init', 'one', 'two'], dir: 'one' },
    { args: ['init', '../up'], dir: 'up', cwd: 'deep/er' },
    { args: ['init', 'a-file'], dir: 'a-file' },
  ];
  for (const side of ['git', 'tsgit'] as const) {
    fs.mkdirSync(path.join(root, side, 'deep', 'er'), { recursive: true });
    fs.writeFileSync(path.join(root, side, 'a-file'), '');
  }
  for (const c of cases) {
    const run = (side: 'git' | 'tsgit') => {
      const cwd = path.join(root, side, c.cwd ?? '');
      const r = side === 'git' ? spawnSync('git', c.args, { cwd, env: c.env ?? GIT_ENV }) : tsgit(cwd, c.args, undefined, c.env ?? GIT_ENV);
      const where = path.join(root, side, path.dirname(c.cwd ?? 'x'), c.dir);
      const isDir = fs.existsSync(where) && fs.statSync(where).isDirectory();
      return {
        status: r.status,
        stdout: r.stdout.toString().replaceAll(path.join(root, side), '<root>'),
        stderr: r.status === 129 ? r.stderr.toString().split('\n')[0] : r.stderr.toString(),
        layout: isDir ? layout(where) : [],
      };
    };
    const theirs = run('git'), ours = run('tsgit');
    if (theirs.status === 129) theirs.stderr = ours.stderr = '';
    // git has made most of the repository before it refuses the branch name; tsgit makes nothing.
    if (theirs.status === 128) {
      assert.deepEqual(ours.layout, [], c.args.join(' '));
      ours.layout = theirs.layout;
    }
    assert.deepEqual(ours, theirs, c.args.join(' '));
  }
});

test('a repository tsgit init made takes a CI runner\'s fetch and checkout, and git finds it whole and clean', () => {
  const src = makeRepo(6, { at: path.join(root, 'src') });
  const dir = path.join(root, 'ci');
  const head = git(src, ['rev-parse', 'HEAD']).trim();
  for (const args of [['init', '-q', dir], ['-C', dir, 'checkout', '-b', 'unborn'], ['-C', dir, 'fetch', '--no-tags', '--prune', '--no-recurse-submodules', '--depth=1', src, `+${head}:refs/remotes/origin/main`],
    ['-C', dir, 'checkout', '--progress', '--force', '-B', 'main', 'refs/remotes/origin/main']]) {
    const r = tsgit(root, args);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    // Before any commit, -b just renames the branch HEAD is born on, as git does.
    if (args[2] === 'checkout' && args[3] === '-b') {
      assert.equal(r.stderr.toString(), "Switched to a new branch 'unborn'\n");
      assert.equal(fs.readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8'), 'ref: refs/heads/unborn\n');
    }
  }
  assert.equal(git(dir, ['rev-parse', 'HEAD']).trim(), head);
  assert.equal(git(dir, ['status', '--porcelain']), '');
  assert.equal(git(dir, ['fsck', '--full']), '');
});
