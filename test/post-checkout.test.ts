// The post-checkout hook after clone and checkout, against git as the oracle: the hook comes from
// core.hooksPath in the global config (as a company-wide hooks directory does, and the only way a
// fresh clone has one), records its arguments, where it runs, its environment and what git sees
// from inside it (HEAD, a clean status: it runs after the index is written), and fails on demand.
// tsgit and git must agree on all of that, on the exit status and on what reaches stderr.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { commits } from './push-helpers.js';

let root = '', source = '', env: NodeJS.ProcessEnv = {};
const SIDES = ['git', 'ts'] as const;
type Side = (typeof SIDES)[number];

const HOOK = `#!/bin/sh
{
  echo "args: $*"
  echo "cwd: $(pwd)"
  echo "GIT_DIR=\${GIT_DIR-unset} GIT_PREFIX=\${GIT_PREFIX-unset} GIT_WORK_TREE=\${GIT_WORK_TREE-unset}"
  git rev-parse HEAD
  git status --porcelain
} >> "$HOOKLOG" 2>&1
echo hook-stdout
echo hook-stderr >&2
exit \${FAIL:-0}
`;

before(() => {
  root = tmpDir('tsgit-post-checkout-');
  source = path.join(root, 'source');
  git(root, ['init', '-q', '-b', 'main', source]);
  commits(source, 2, 'base');
  git(source, ['branch', 'topic']);
  commits(source, 1, 'more');
  const hooks = path.join(root, 'hooks');
  fs.mkdirSync(hooks);
  fs.writeFileSync(path.join(hooks, 'post-checkout'), HOOK, { mode: 0o755 });
  const global = path.join(root, 'gitconfig');
  fs.writeFileSync(global, `[core]\n\thooksPath = ${hooks}\n`);
  env = { ...GIT_ENV, GIT_CONFIG_GLOBAL: global };
  for (const side of SIDES) fs.mkdirSync(path.join(root, side));
});

after(() => rmrf(root));

interface Outcome { status: number | null; stderr: string; hook: string }

function run(side: Side, cwd: string, args: string[], fail?: string): Outcome {
  const log = path.join(root, side, 'hook.log');
  fs.rmSync(log, { force: true });
  const [cmd, pre] = side === 'git' ? ['git', []] : [process.execPath, [TSGIT]];
  const r = spawnSync(cmd, [...pre, ...args], {
    cwd: path.join(root, side, cwd), env: { ...env, HOOKLOG: log, ...fail ? { FAIL: fail } : {} }, encoding: 'utf8',
  });
  const hook = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(not run)\n';
  const mine = path.join(root, side);
  return { status: r.status, stderr: r.stderr.split(mine).join('<side>'), hook: hook.split(mine).join('<side>') };
}

/** The same command on both sides; returns what tsgit's side saw. */
function both(cwd: string, args: string[], fail?: string): Outcome {
  const theirs = run('git', cwd, args, fail);
  const ours = run('ts', cwd, args, fail);
  const what = args.join(' ');
  assert.equal(ours.hook, theirs.hook, `the hook's view of ${what}`);
  assert.equal(ours.status, theirs.status, `exit status of ${what}: ${ours.stderr}`);
  assert.equal(ours.stderr, theirs.stderr, `stderr of ${what}`);
  return ours;
}

test('clone runs post-checkout with the zero id and HEAD, GIT_DIR set, and exits with its status', () => {
  const cloned = both('.', ['clone', '-q', source, 'c1']);
  assert.match(cloned.hook, /^args: 0{40} [0-9a-f]{40} 1\ncwd: <side>\/c1\nGIT_DIR=<side>\/c1\/\.git /);
  assert.match(cloned.stderr, /hook-stdout\nhook-stderr\n/);
  const failed = both('.', ['clone', '-q', source, 'c2'], '3');
  assert.equal(failed.status, 3);
  assert.ok(fs.existsSync(path.join(root, 'ts', 'c2', '.git')), 'a failed hook leaves the clone in place');
  assert.equal(both('.', ['clone', '-q', '-n', source, 'c3']).hook, '(not run)\n');
  assert.equal(both('.', ['clone', '-q', '--bare', source, 'c4.git']).hook, '(not run)\n');
});

test('checkout runs post-checkout with the old and new commits once HEAD has moved; a failing hook makes it exit 1', () => {
  const switched = both('c1', ['checkout', '-q', 'topic']);
  assert.match(switched.hook, /^args: [0-9a-f]{40} [0-9a-f]{40} 1\ncwd: <side>\/c1\nGIT_DIR=unset /);
  const failed = both('c1', ['checkout', '-q', 'main'], '5');
  assert.equal(failed.status, 1);
  both('c1', ['checkout', '-q', 'main']); // already there: it still runs
  both('c1/d/base', ['checkout', '-q', 'HEAD~1']); // detached, from a subdirectory
  // The first checkout of a clone made with -n.
  const filled = both('c3', ['checkout', '-q', 'main']);
  assert.match(filled.hook, /^args: ([0-9a-f]{40}) \1 1\n/);
});
