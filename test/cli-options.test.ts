// The command lines of upload-pack, receive-pack, submodule and serve, read by the shared option
// walker (cli/parse-options.ts): what git accepts and refuses (its exit status the oracle, 129 for
// a usage error), and tsgit's own messages for what it refuses, which are pinned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { GIT_ENV, git, makeRepo, rmrf } from './helpers.js';
import { sameAsSpawned, tsgitBatch } from './cli-batch.js';

function gitStatus(cwd: string, args: string[]): number | null {
  return spawnSync('git', args, { cwd, env: GIT_ENV, input: '' }).status;
}

/**
 * tsgit's exit status and the first line of its stderr for each command line, run in one process
 * (tsgitBatch); the first is also spawned.
 */
function ours(cwd: string, lines: readonly (readonly string[])[]): { status: number | null; error: string }[] {
  const commands = lines.map((args) => ({ cwd, args: [...args] }));
  const results = tsgitBatch(commands);
  sameAsSpawned(commands.slice(0, 1), results.slice(0, 1));
  return results.map((r) => ({ status: r.status, error: r.stderr.toString('utf8').split('\n')[0]! }));
}

test('upload-pack and receive-pack: the options, `--` and `-` as git reads them', () => {
  const repo = makeRepo(1);
  const bare = `${repo}-bare.git`;
  try {
    git(path.dirname(repo), ['init', '-q', '--bare', bare]);
    const d = path.basename(bare);
    const cwd = path.dirname(repo);
    const cases: [string, string[]][] = [
      ['upload-pack', ['--advertise-refs', d]],
      ['upload-pack', ['--advertise-refs', '--', d]],
      ['upload-pack', ['--', d, '--advertise-refs']],
      ['upload-pack', ['--advertise-refs', d, '--', d]],
      ['upload-pack', ['--advertise-refs', '-']],
      ['upload-pack', ['--timeout', '5', '--no-strict', '--advertise-refs', d]],
      ['upload-pack', ['--timeout=5', '--strict', '--advertise-refs', d]],
      ['upload-pack', ['--timeout']],
      ['upload-pack', ['--timeout=x', d]],
      ['upload-pack', ['--stateless-rpc=1', d]],
      ['upload-pack', ['--advertise-refs', d, 'extra']],
      ['upload-pack', []],
      ['receive-pack', ['-q', '--advertise-refs', d]],
      ['receive-pack', ['--http-backend-info-refs', d]],
      ['receive-pack', ['--', d, '--advertise-refs']],
      ['receive-pack', ['--advertise-refs', d, '--', d]],
      ['receive-pack', ['--advertise-refs', '-']],
      ['receive-pack', ['--quiet=1', '--advertise-refs', d]],
      ['receive-pack', ['--advertise-refs', d, 'extra']],
      ['receive-pack', ['--advertise-refs']],
    ];
    const results = ours(cwd, cases.map(([command, args]) => [command, ...args]));
    cases.forEach(([command, args], i) => {
      assert.equal(results[i]!.status, gitStatus(cwd, [command, ...args]), `${command} ${args.join(' ')}`);
    });
    const messages: [string[], string][] = [
      [['upload-pack', '--timeout'], 'error: --timeout needs a number of seconds'],
      [['upload-pack', '--timeout=x', d], 'error: --timeout needs a number of seconds'],
      [['upload-pack', '--stateless-rpc=1', d], "error: unknown option `stateless-rpc=1'"],
      [['upload-pack', d, 'extra'], 'usage: tsgit upload-pack [--[no-]strict] [--timeout=<n>] [--stateless-rpc] [--advertise-refs] <directory>'],
      [['receive-pack', '--quiet=1', d], "error: unknown option `quiet=1'"],
      [['receive-pack', d, 'extra'], 'error: too many arguments'],
      [['receive-pack', '--stateless-rpc'], 'error: you must specify a directory'],
      [['receive-pack', '--timeout', 'soon', d], 'error: --timeout needs a number of seconds'],
    ];
    const answers = ours(cwd, messages.map(([args]) => args));
    messages.forEach(([args, error], i) => assert.deepEqual(answers[i], { status: 129, error }, args.join(' ')));
  } finally {
    rmrf(repo);
    rmrf(bare);
  }
});

test('an option a command does not have is worded as git\'s parse-options words it, with its status', () => {
  const repo = makeRepo(1);
  try {
    const lines = [
      ['fetch', '--bogus'], ['fetch', '-Z'], ['fetch', '--bogus=1'], ['fetch', '-qZ'], ['clone', '--bogus', 'x'], ['push', '-Z'],
      ['checkout', '--bogus'], ['ls-remote', '-Z', '.'], ['config', '--bogus'], ['init', '--bogus'], ['remote', '-Z'],
      ['ls-tree', '-Z', 'HEAD'], ['cat-file', '-Z'], ['show-ref', '-Z'], ['repack', '-az'], ['verify-pack', '-Z'],
      ['upload-pack', '-Z', '.'], ['receive-pack', '-Z', '.'], ['sparse-checkout', 'init', '--bogus'],
    ];
    ours(repo, lines).forEach((r, i) => {
      const theirs = spawnSync('git', lines[i]!, { cwd: repo, env: GIT_ENV, input: '' });
      assert.deepEqual(r, { status: theirs.status, error: theirs.stderr.toString('utf8').split('\n')[0]! }, lines[i]!.join(' '));
    });
  } finally {
    rmrf(repo);
  }
});

test('submodule: each subcommand\'s options, values as `--x v` or `--x=v`, and `--` before paths', () => {
  const repo = makeRepo(1);
  try {
    // Past the options, a path that matches nothing: git's error, and git's status 1.
    const unmatched = [
      ['update', '--depth', '1', '-j', '2', '--init', '--', '--init'],
      ['update', '--depth=1', '--jobs=2', '--no-recommend-shallow', 'nomatch'],
      ['status', '--cached', '--recursive', '-'],
      ['init', '-q', 'nomatch'],
    ];
    ours(repo, unmatched.map((args) => ['submodule', ...args])).forEach((r, i) => {
      const args = unmatched[i]!;
      assert.equal(r.status, gitStatus(repo, ['submodule', ...args]), args.join(' '));
      assert.match(r.error, /^error: pathspec '.*' did not match any file\(s\) known to git$/, args.join(' '));
    });
    const refused = [
      [['update', '--depth'], "error: option '--depth' requires a value"],
      [['update', '-j'], "error: option '-j' requires a value"],
      [['update', '--jobs=x'], "error: option '--jobs' expects a number, not 'x'"],
      [['update', '--init=1'], "error: unknown option '--init=1'"],
      [['update', '-j2'], "error: unknown option '-j2'"],
      [['init', '--cached'], "error: unknown option '--cached'"],
      [['status', '--bogus'], "error: unknown option '--bogus'"],
    ] as const;
    ours(repo, refused.map(([args]) => ['submodule', ...args])).forEach((r, i) => {
      const [args, error] = refused[i]!;
      assert.deepEqual(r, { status: 129, error }, args.join(' '));
    });
  } finally {
    rmrf(repo);
  }
});

test('serve: a missing or bad value, an unknown option, and anything but one root are usage errors', () => {
  const repo = makeRepo(1);
  try {
    const lines = [
      [['--port'], 'error: --port needs a value'],
      [['--access-log'], 'error: --access-log needs a value'],
      [['--enable'], 'error: --enable needs a value'],
      [['--enable=nothing', '.'], /^error: --enable: no such service 'nothing' \(served: /],
      [['--workers=0', '.'], 'error: --workers needs at least 1'],
      [['--bogus', '.'], "error: unknown option '--bogus'"],
      [['-x', '.'], "error: unknown option '-x'"],
      [['.', '.'], /^usage: tsgit serve /],
      [['--port', '0'], /^usage: tsgit serve /],
      [['--host=', '.'], /^usage: tsgit serve /],
    ] as const;
    ours(repo, lines.map(([args]) => ['serve', ...args])).forEach((r, i) => {
      const [args, error] = lines[i]!;
      assert.equal(r.status, 129, args.join(' '));
      if (typeof error === 'string') assert.equal(r.error, error, args.join(' '));
      else assert.match(r.error, error, args.join(' '));
    });
  } finally {
    rmrf(repo);
  }
});
