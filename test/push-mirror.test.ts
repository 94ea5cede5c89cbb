// push --mirror and --prune, against git push: one work repository, two identical bare servers
// (one pushed to by git, one by tsgit), each push's --porcelain report, exit status and the
// server's refs compared. The work repository has branches and tags the servers lack, lacks some
// they have, and has moved one backwards, so that a mirror creates, updates, forces and deletes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { assertFsck, commits, refsOf } from './push-helpers.js';

let root = '', work = '', seed = '';
const servers = { git: '', ts: '' };

function reset(): void {
  for (const side of ['git', 'ts'] as const) {
    rmrf(servers[side]);
    git(root, ['clone', '-q', '--mirror', seed, servers[side]]);
    // What the server has that the work repository will not: a branch, a tag, a note-like ref.
    git(servers[side], ['update-ref', 'refs/heads/server-only', 'refs/heads/main~1']);
    git(servers[side], ['update-ref', 'refs/tags/server-tag', 'refs/heads/main~2']);
    git(servers[side], ['update-ref', 'refs/notes/server', 'refs/heads/main']);
  }
}

before(() => {
  root = tmpDir('tsgit-push-mirror-');
  work = path.join(root, 'work');
  git(root, ['init', '-q', '-b', 'main', work]);
  commits(work, 4, 'base');
  git(work, ['branch', 'topic', 'main~1']);
  servers.git = path.join(root, 'git.git');
  servers.ts = path.join(root, 'ts.git');
  // The servers start from the work repository as it is now.
  seed = path.join(root, 'seed.git');
  git(root, ['clone', '-q', '--mirror', work, seed]);
  // Then the work repository moves on: a new branch and tag, topic rewound, one branch gone.
  git(work, ['branch', 'fresh', 'main~3']);
  git(work, ['tag', '-a', '-m', 'new', 'v2', 'main']);
  git(work, ['branch', '-f', 'topic', 'main~3']);
  commits(work, 1, 'ahead');
});

after(() => rmrf(root));

/** `push --porcelain <args>` by both tools; `global` goes before `push` (git's -c). '<url>' in either is the side's server. */
function both(args: string[], global: string[] = []): { status: number | null; porcelain: string } {
  const run = (side: 'git' | 'ts') => {
    const [cmd, pre] = side === 'git' ? ['git', []] : [process.execPath, [TSGIT]];
    const url = (a: string) => a.split('<url>').join(servers[side]);
    const r = spawnSync(cmd, [...pre, ...global.map(url), 'push', '--porcelain', ...args.map(url)],
      { cwd: work, env: GIT_ENV, encoding: 'utf8' });
    return { status: r.status, porcelain: r.stdout.split(servers[side]).join('<url>'), stderr: r.stderr };
  };
  const theirs = run('git'), ours = run('ts');
  const what = `push ${args.join(' ')}`;
  assert.equal(ours.porcelain, theirs.porcelain, `${what}: report\ntsgit: ${ours.stderr}\ngit: ${theirs.stderr}`);
  assert.equal(ours.status, theirs.status, `${what}: exit status: ${ours.stderr}`);
  assert.equal(refsOf(servers.ts), refsOf(servers.git), `${what}: server refs`);
  assertFsck(servers.ts);
  return ours;
}

test('--mirror makes the server\'s refs the work repository\'s: created, updated, forced and deleted', () => {
  reset();
  const r = both(['--mirror', '<url>']);
  assert.equal(r.status, 0);
  assert.match(r.porcelain, /^-\t:refs\/heads\/server-only\t\[deleted\]$/m);
  assert.match(r.porcelain, /^\+\trefs\/heads\/topic:refs\/heads\/topic\t/m);
  assert.equal(refsOf(servers.ts), git(work, ['for-each-ref', '--format=%(objectname) %(refname)']));
  // Nothing left to do.
  assert.equal(both(['--mirror', '<url>']).status, 0);
});

test('remote.<name>.mirror (what git clone --mirror sets) makes a plain push of that remote a mirror', () => {
  reset();
  const r = both(['m'], ['-c', 'remote.m.url=<url>', '-c', 'remote.m.mirror=true']);
  assert.equal(r.status, 0);
  assert.match(r.porcelain, /^-\t:refs\/notes\/server\t\[deleted\]$/m);
  assert.equal(refsOf(servers.ts), git(work, ['for-each-ref', '--format=%(objectname) %(refname)']));
});

test('--prune deletes what a pattern covers and the work repository lacks, and nothing outside it', () => {
  reset();
  const r = both(['--prune', '<url>', 'refs/heads/*:refs/heads/*']);
  assert.equal(r.status, 1); // topic went backwards: refused without a force
  assert.match(r.porcelain, /^-\t:refs\/heads\/server-only\t\[deleted\]$/m);
  assert.doesNotMatch(r.porcelain, /server-tag|notes/);
  reset();
  assert.equal(both(['--prune', '<url>', '+refs/tags/*:refs/tags/*']).status, 0);
});

test('--mirror refuses refspecs and --all, --tags and --delete beside it, as git does', () => {
  for (const args of [['--mirror', '<url>', 'main'], ['--mirror', '--all', '<url>'], ['--mirror', '--tags', '<url>'],
    ['--mirror', '--delete', '<url>', 'x'], ['--all', '--tags', '<url>'], ['--all', '<url>', 'main']]) {
    assert.equal(both(args).status, 128, args.join(' '));
  }
});
