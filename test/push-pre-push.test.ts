// The client's pre-push hook, against git push as the oracle: two identical sides, each a work
// repository with `origin` at a bare repository next to it ("../srv.git", relative, as people set
// it up), the same hook in both. For each push the hook's arguments, stdin, working directory and
// environment, the push's stdout, stderr and exit status, and the server's refs must be the same.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { commits, refsOf } from './push-helpers.js';

let root = '';
const SIDES = ['git', 'ts'] as const;
type Side = (typeof SIDES)[number];
const work = (side: Side) => path.join(root, side, 'w');
const server = (side: Side) => path.join(root, side, 'srv.git');

// It records what it was given and answers on both streams; FAIL sets its exit status.
const HOOK = `#!/bin/sh
{ echo "args: $*"; echo "cwd: $(pwd)"; echo "GIT_DIR=\${GIT_DIR-unset}"; sed "s/^/in: /"; } >> "$HOOKLOG"
echo hook-stdout
echo hook-stderr >&2
exit \${FAIL:-0}
`;

before(() => {
  root = tmpDir('tsgit-pre-push-');
  const seed = path.join(root, 'seed');
  git(root, ['init', '-q', '-b', 'main', seed]);
  commits(seed, 3, 'base');
  git(seed, ['branch', 'topic', 'HEAD~1']);
  git(seed, ['tag', 'v1', 'HEAD~2']);
  for (const side of SIDES) {
    fs.mkdirSync(path.join(root, side));
    git(root, ['init', '-q', '--bare', '-b', 'main', server(side)]);
    git(root, ['clone', '-q', seed, work(side)]);
    git(work(side), ['remote', 'set-url', 'origin', '../srv.git']);
    git(work(side), ['branch', '-q', 'topic', 'origin/topic']);
    fs.writeFileSync(path.join(work(side), '.git', 'hooks', 'pre-push'), HOOK, { mode: 0o755 });
  }
});

after(() => rmrf(root));

interface Outcome { status: number | null; stdout: string; stderr: string; hook: string; refs: string }

function pushFrom(side: Side, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }): Outcome {
  const log = path.join(root, side, 'hook.log');
  fs.rmSync(log, { force: true });
  const [cmd, pre] = side === 'git' ? ['git', []] : [process.execPath, [TSGIT]];
  const r = spawnSync(cmd, [...pre, 'push', ...args], {
    cwd: path.join(work(side), opts.cwd ?? ''), env: { ...GIT_ENV, HOOKLOG: log, ...opts.env }, encoding: 'utf8',
  });
  const hook = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(not run)\n';
  const mine = path.join(root, side);
  const norm = (s: string) => s.split(mine).join('<side>');
  return { status: r.status, stdout: norm(r.stdout), stderr: norm(r.stderr), hook: norm(hook), refs: refsOf(server(side)) };
}

/** The same push on both sides; returns what tsgit's side saw. */
function both(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Outcome {
  const theirs = pushFrom('git', args, opts);
  const ours = pushFrom('ts', args, opts);
  const what = `push ${args.join(' ')}`;
  assert.equal(ours.hook, theirs.hook, `the hook's view of ${what}`);
  assert.equal(ours.status, theirs.status, `exit status of ${what}: ${ours.stderr}`);
  assert.equal(ours.stdout, theirs.stdout, `stdout of ${what}`);
  assert.equal(ours.stderr, theirs.stderr, `stderr of ${what}`);
  assert.equal(ours.refs, theirs.refs, `server refs after ${what}`);
  return ours;
}

const lines = (o: Outcome) => o.hook.split('\n').filter((l) => l.startsWith('in: '));

test('pre-push sees each update the push may still send, and runs where git runs it', () => {
  const created = both(['origin', 'main', 'topic', 'v1']);
  assert.equal(lines(created).length, 3, created.hook);
  assert.match(created.hook, /^args: origin \.\.\/srv\.git\ncwd: <side>\/w\nGIT_DIR=unset\n/);
  assert.match(created.stdout, /hook-stdout/);
  // Nothing to send: it still runs, with nothing on stdin.
  const same = both(['origin', 'main']);
  assert.equal(lines(same).length, 0);
  assert.notEqual(same.hook, '(not run)\n');
  // From a subdirectory: the relative URL and the hook's directory are the work tree's top.
  for (const side of SIDES) commits(work(side), 1, 'more');
  const sub = both(['origin', 'HEAD:refs/heads/from-sub'], { cwd: 'd/more' });
  assert.equal(sub.status, 0, sub.stderr);
  assert.match(sub.hook, /cwd: <side>\/w\n/);
  assert.match(sub.hook, /^in: HEAD [0-9a-f]{40} refs\/heads\/from-sub 0{40}$/m);
  // A deletion, and a URL instead of a remote's name.
  const deleted = both(['../srv.git', ':refs/heads/from-sub']);
  assert.match(deleted.hook, /^args: \.\.\/srv\.git \.\.\/srv\.git$/m);
  assert.match(deleted.hook, /^in: \(delete\) 0{40} refs\/heads\/from-sub [0-9a-f]{40}$/m);
});

test('a refusing pre-push stops the push before anything is sent; --no-verify skips it; --dry-run runs it', () => {
  for (const side of SIDES) commits(work(side), 1, 'refused');
  const refused = both(['origin', 'main'], { env: { FAIL: '3' } });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /error: failed to push some refs to '\.\.\/srv\.git'/);
  assert.ok(!refused.refs.includes(git(work('ts'), ['rev-parse', 'HEAD']).trim()), 'the refused commit reached the server');
  const dry = both(['--dry-run', '--porcelain', 'origin', 'main'], { env: { FAIL: '1' } });
  assert.equal(dry.status, 1);
  assert.equal(lines(dry).length, 1);
  const skipped = both(['--no-verify', 'origin', 'main'], { env: { FAIL: '1' } });
  assert.equal(skipped.status, 0, skipped.stderr);
  assert.equal(skipped.hook, '(not run)\n');
});

test('pre-push is not told of updates already refused here; core.hooksPath moves it', () => {
  for (const side of SIDES) {
    git(work(side), ['branch', '-f', 'topic', 'main~3']); // behind the server's topic: non-fast-forward
    git(work(side), ['tag', '-f', 'v1', 'main']); // the server has another v1: already exists (listed)
  }
  const mixed = both(['--porcelain', 'origin', 'topic', 'v1']);
  assert.equal(mixed.status, 1);
  assert.deepEqual(lines(mixed).map((l) => l.split(' ')[3]), ['refs/tags/v1']);
  for (const side of SIDES) {
    fs.mkdirSync(path.join(work(side), 'hooks-elsewhere'));
    fs.renameSync(path.join(work(side), '.git', 'hooks', 'pre-push'), path.join(work(side), 'hooks-elsewhere', 'pre-push'));
    git(work(side), ['config', 'core.hooksPath', 'hooks-elsewhere']);
  }
  const moved = both(['origin', 'HEAD:refs/heads/moved'], { env: { FAIL: '1' } });
  assert.equal(moved.status, 1);
  assert.equal(lines(moved).length, 1);
});
