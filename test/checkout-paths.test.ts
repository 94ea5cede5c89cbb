// `checkout [<tree-ish>] [--] <pathspec>...` against git 2.39, and what checkout says around a
// switch: each case runs the same command lines with git in one copy of a template repository and
// with tsgit (one batch for every case) in another, and compares exit status, stdout and stderr,
// then the work trees byte for byte, the index (`ls-files -s --debug` less the times, device and
// inode), what `diff-files` finds stale in it (stat data as git would have written it) and
// `status --porcelain`. The template: commit main~1 (a, b, foo, t.txt, w.crlf written with CRLF by
// its attributes, d/x, d/y, d/old, d/sub/z.txt), main on it (d/x changed, d/old gone, d/new, t.txt
// changed), and a branch foo at main, named as the file foo is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tsgitBatch, sameAsSpawned, type BatchCommand, type BatchResult } from './cli-batch.js';
import { GIT_ENV, git, rmrf, tmpDir } from './helpers.js';

const root = fs.realpathSync(tmpDir('tsgit-checkout-paths-'));
after(() => rmrf(root));

const template = path.join(root, 'template');
git(root, ['init', '-q', '-b', 'main', template]);
const write = (top: string, files: Record<string, string>): void => {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(top, name)), { recursive: true });
    fs.writeFileSync(path.join(top, name), text);
  }
};
write(template, {
  '.gitattributes': '*.crlf text eol=crlf\n', a: 'a\n', b: 'b\n', foo: 'foo\n', 't.txt': 't\n', 'w.crlf': 'one\ntwo\n',
  'd/x': 'x\n', 'd/y': 'y\n', 'd/old': 'old\n', 'd/sub/z.txt': 'z\n',
});
git(template, ['add', '.']);
git(template, ['commit', '-q', '-m', 'one']);
write(template, { 'd/x': 'x2\n', 'd/new': 'new\n', 't.txt': 't2\n' });
fs.rmSync(path.join(template, 'd/old'));
git(template, ['add', '-A']);
git(template, ['commit', '-q', '-m', 'two']);
git(template, ['branch', 'foo']);
// Partial clones of it are served their filter.
git(template, ['config', 'uploadpack.allowFilter', 'true']);

interface Case {
  name: string;
  /** Run in each copy before the steps. */
  prepare?: (top: string) => void;
  steps: string[][];
  /** Where the steps run, below the top. */
  cwd?: string;
  /** false: only the work trees are compared (the steps are refused before the index is read). */
  index?: boolean;
}

/** What a copy holds after the steps: the work tree, and with `index` the index and status. */
function state(top: string, withIndex: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = path.relative(top, p);
      if (rel === '.git') continue;
      if (e.isDirectory()) walk(p);
      else out[rel] = `${(fs.lstatSync(p).mode & 0o777).toString(8)} ${fs.readFileSync(p).toString('latin1')}`;
    }
  };
  walk(top);
  if (!withIndex) return out;
  // One shell for the three (a Node process forks dearly): ls-files, diff-files, status.
  const [index, stale, status] = spawnSync('sh', ['-c', 'git ls-files -s --debug; echo @; git diff-files --name-status; echo @; git --no-optional-locks status --porcelain'],
    { cwd: top, env: GIT_ENV, encoding: 'latin1' }).stdout.split('@\n');
  out['@index'] = index!.replace(/^ {2}(ctime|mtime|dev):.*\n/gm, '');
  out['@stale'] = stale!;
  out['@status'] = status!;
  const hookArgs = path.join(top, '.git', 'hook-args');
  if (fs.existsSync(hookArgs)) out['@hook'] = fs.readFileSync(hookArgs, 'utf8');
  return out;
}

interface Run { c: Case; tops: readonly [string, string]; commands: BatchCommand[]; results: BatchResult[] }

/**
 * Runs every case's command lines with tsgit, all in one batch (a Node process costs more than
 * most of these command lines), in copies of the template; each case is compared with git by
 * compare() in its own test.
 */
function runCases(cases: Case[]): Map<string, Run> {
  const commands: BatchCommand[] = [];
  const runs = cases.map((c, n) => {
    const base = path.join(root, `${n}-${c.name.replace(/\W+/g, '-')}`);
    const tops = [`${base}-git`, `${base}-tsgit`] as const;
    for (const top of tops) {
      fs.cpSync(template, top, { recursive: true });
      c.prepare?.(top);
    }
    const mine = c.steps.map((args) => ({ cwd: path.join(tops[1], c.cwd ?? ''), args }));
    commands.push(...mine);
    return { c, tops, commands: mine, results: [] as BatchResult[] };
  });
  const results = tsgitBatch(commands);
  let k = 0;
  for (const run of runs) run.results = results.slice(k, k += run.commands.length);
  return new Map(runs.map((r) => [r.c.name, r]));
}

/** Runs the case's command lines with git in its copy, and compares output and copies. */
function compare(run: Run | undefined): void {
  const { c, tops: [a, b], results } = run!;
  c.steps.forEach((args, k) => {
    const theirs = spawnSync('git', args, { cwd: path.join(a, c.cwd ?? ''), env: GIT_ENV });
    const r = results[k]!;
    const shown = (buf: Buffer, top: string): string => buf.toString('latin1').replaceAll(top, '@TOP@');
    assert.deepEqual({ status: r.status, stdout: shown(r.stdout, b), stderr: shown(r.stderr, b) },
      { status: theirs.status, stdout: shown(theirs.stdout, a), stderr: shown(theirs.stderr, a) }, `${c.name}: ${args.join(' ')}`);
  });
  assert.deepEqual(state(b, c.index ?? true), state(a, c.index ?? true), `${c.name}: the copies`);
}

const runs = runCases([
  {
    name: 'from the index',
    prepare: (top) => {
      write(top, { a: 'changed\n', 'd/x': 'changed\n', 'd/y': 'changed\n', 'd/sub/z.txt': 'changed\n', 't.txt': 'changed\n', 'w.crlf': 'changed\n' });
      fs.rmSync(path.join(top, 'b'));
    },
    steps: [['checkout', '--', 'a'], ['checkout', 'a'], ['checkout', 'd'], ['checkout', '-q', 'b'], ['checkout', '*.txt'], ['checkout', 'w.crlf']],
  },
  {
    name: 'from a tree-ish',
    prepare: (top) => write(top, { a: 'changed\n' }),
    steps: [['checkout', 'main~1', 'd'], ['checkout', 'main~1', '--', 't.txt'], ['checkout', 'main~1^{tree}', 'a', 'b'], ['checkout', 'foo', 'a']],
  },
  {
    name: 'in a subdirectory', cwd: 'd',
    prepare: (top) => write(top, { a: 'changed\n', b: 'changed\n', 'd/x': 'changed\n' }),
    steps: [['checkout', 'x'], ['checkout', ':/a'], ['checkout', '../b'], ['checkout', '.'], ['checkout', 'main~1', 'sub/']],
  },
  {
    name: 'refusals', index: false,
    prepare: (top) => write(top, { a: 'changed\n' }),
    steps: [['checkout', '--', 'nope'], ['checkout', 'nope'], ['checkout', '--', 'a', 'nope'], ['checkout', 'nope', '--', 'a'],
      ['checkout', 'a', 'b', '--', 'c'], ['checkout', 'main:a', '--', 'a'], ['checkout', '--', ''], ['checkout', '-b', 'x', 'main', 'a'],
      ['checkout', '--detach', '--', 'a'], ['checkout', '--no-track', '-b', 'x', 'main', '--', 'a'], ['checkout', '--track', '--', 'a']],
  },
  {
    name: 'unmerged',
    prepare: (top) => {
      const ids = ['a', 'b', 'foo'].map((f) => git(top, ['rev-parse', `main:${f}`]).trim());
      git(top, ['update-index', '--index-info'], `0 ${'0'.repeat(40)}\ta\n${ids.map((id, s) => `100644 ${id} ${s + 1}\ta`).join('\n')}\n`);
    },
    steps: [['checkout', '--', 'a'], ['checkout', '-f', 'a', 'b'], ['checkout', '-f', '-q', '--', 'a']],
  },
  {
    name: 'a branch and a file of one name',
    prepare: (top) => write(top, { foo: 'changed\n' }),
    steps: [['checkout', 'foo'], ['checkout', '--', 'foo']],
  },
  {
    name: 'the post-checkout hook',
    prepare: (top) => {
      write(top, { a: 'changed\n', '.git/hooks/post-checkout': '#!/bin/sh\necho "$@" >>.git/hook-args\n' });
      fs.chmodSync(path.join(top, '.git/hooks/post-checkout'), 0o755);
    },
    steps: [['checkout', 'a'], ['checkout', 'main~1', '--', 'd']],
  },
  {
    name: 'a partial clone',
    prepare: (top) => {
      fs.rmSync(top, { recursive: true });
      git(root, ['clone', '-q', '--filter=blob:none', `file://${template}`, top]);
    },
    // main~1's d/old and d/x are not here yet.
    steps: [['checkout', 'main~1', '--', 'd']],
  },
  {
    name: 'local changes',
    prepare: (top) => {
      write(top, { a: 'staged\n', n: 'new\n' });
      git(top, ['add', 'a', 'n']);
      write(top, { b: 'changed\n' });
      fs.rmSync(path.join(top, 'd/y'));
    },
    // `-b` alone leaves the work tree alone in git 2.39, and lists nothing.
    steps: [['checkout', '-b', 'other'], ['checkout', '-B', 'other2'], ['checkout', '-q', 'main'], ['checkout', 'main~1'], ['checkout']],
  },
  {
    name: 'autoSetupMerge on the command line', index: false,
    steps: [['-c', 'branch.autoSetupMerge=bogus', 'checkout', 'main'], ['-c', 'branch.autoSetupMerge', 'checkout', '-q', 'foo'],
      ['-c', 'branch.autoSetupMerge=Always', 'checkout', 'main'],
      ['-c', 'branch.autoSetupMerge=bad', '-c', 'branch.autoSetupRebase=x', 'checkout', 'main'],
      ['-c', 'branch.autoSetupRebase=x', '-c', 'branch.autoSetupMerge=bad', 'checkout', 'main']],
  },
  {
    name: 'autoSetupMerge in a file', index: false,
    prepare: (top) => git(top, ['config', 'branch.autoSetupMerge', 'maybe']),
    steps: [['checkout', 'foo'], ['fetch'], ['push']],
  },
]);

describe('checkout with paths', () => {
  it('restores paths from the index as git does, with its messages', () => {
    compare(runs.get('from the index'));
    compare(runs.get('in a subdirectory'));
  });

  it('restores paths from a tree-ish into the index and the work tree', () => compare(runs.get('from a tree-ish')));

  it('refuses what git refuses, changing nothing', () => compare(runs.get('refusals')));

  it('refuses unmerged paths, and passes over them with -f', () => compare(runs.get('unmerged')));

  it('takes a branch before a file of its name, and the file after --', () => compare(runs.get('a branch and a file of one name')));

  it('runs the post-checkout hook with HEAD twice and the flag 0', () => compare(runs.get('the post-checkout hook')));

  it('fetches the blobs it writes into a partial clone', () => compare(runs.get('a partial clone')));

  it('runs the same spawned as in the batch', () => {
    // Refusals change nothing, so they can run again.
    const { commands, results } = runs.get('refusals')!;
    sameAsSpawned([commands[0]!, commands[7]!], [results[0]!, results[7]!]);
  });
});

describe('checkout around a switch', () => {
  it('lists the local changes carried over on stdout, unless -q', () => compare(runs.get('local changes')));

  it('refuses a branch.autoSetupMerge git refuses before anything, with its message', () => {
    compare(runs.get('autoSetupMerge on the command line'));
    compare(runs.get('autoSetupMerge in a file'));
  });
});
