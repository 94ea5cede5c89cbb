// fetch --all, --dry-run, --append, pruning (options and config) and --[no-]write-fetch-head, against
// git on twin repositories.
//   --all: the "Fetching <remote>" lines, the reports, FETCH_HEAD appended remote by remote, the
//   refs and their reflog messages (git runs `fetch --append --no-auto-gc --no-write-commit-graph
//   <options> <remote>` for each), remotes skipped by remote.<name>.skipFetchAll, a remote that
//   fails while the others are fetched, and the usage errors. One difference on purpose:
//   --all --no-write-fetch-head writes no FETCH_HEAD.
//   --dry-run: git's report (followed tags twice: its backfill finds them still missing), no ref
//   changed or pruned, no FETCH_HEAD.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, TSGIT, tmpDir } from './helpers.js';

interface Run { status: number | null; stdout: string; stderr: string }

describe('fetch --all, --dry-run, --no-write-fetch-head', () => {
  let work: string;
  let src: string;
  let n = 0;
  before(() => {
    work = tmpDir();
    src = path.join(work, 'src');
    git(work, ['init', '-q', '-b', 'main', src]);
    git(src, ['commit', '-q', '--allow-empty', '-m', 'one']);
    git(src, ['branch', 'side']);
  });
  after(() => rmrf(work));

  /** Twin clones with `remotes` added (name, url relative to the clone), src moved on after. */
  const twins = (remotes: [string, string][], config: [string, string][] = []): { ours: string; theirs: string } => {
    const name = `w${n++}`;
    const make = (tool: string): string => {
      const dir = path.join(work, `${name}-${tool}`);
      git(work, ['clone', '-q', src, dir]);
      for (const [remote, url] of remotes) git(dir, ['remote', 'add', remote, url]);
      for (const [key, value] of config) git(dir, ['config', key, value]);
      return dir;
    };
    const pair = { ours: make('tsgit'), theirs: make('git') };
    git(src, ['commit', '-q', '--allow-empty', '-m', `after ${name}`]);
    git(src, ['tag', `t-${name}`]);
    return pair;
  };

  const run = (cmd: string[], cwd: string): Run => {
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, env: GIT_ENV, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  /** Refs, FETCH_HEAD and the remote-tracking refs' last reflog messages. */
  const state = (dir: string): string => {
    const fetchHead = path.join(dir, '.git', 'FETCH_HEAD');
    const lastLog = (ref: string): string => {
      const file = path.join(dir, '.git', 'logs', ref);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').pop()!.split('\t')[1]! : '(no reflog)';
    };
    const logs = git(dir, ['for-each-ref', '--format=%(refname)', 'refs/remotes']).split('\n').filter(Boolean).map((ref) => `${ref} ${lastLog(ref)}`);
    return [git(dir, ['for-each-ref', '--format=%(refname) %(objectname)']),
      fs.existsSync(fetchHead) ? fs.readFileSync(fetchHead, 'utf8') : '(no FETCH_HEAD)', ...logs].join('\n');
  };

  const compare = (args: string[], remotes: [string, string][], config: [string, string][] = [], exactStderr = true,
    meanwhile?: (clones: string[]) => void): Run => {
    const { ours, theirs } = twins(remotes, config);
    meanwhile?.([ours, theirs]);
    const a = run([process.execPath, TSGIT, 'fetch', ...args], ours);
    const b = run(['git', 'fetch', ...args], theirs);
    assert.equal(a.status, b.status, a.stderr);
    assert.equal(a.stdout, b.stdout);
    if (exactStderr) assert.equal(a.stderr, b.stderr);
    assert.equal(state(ours).replaceAll(ours, theirs), state(theirs));
    return b;
  };

  it('fetches every remote in config order, FETCH_HEAD appended remote by remote', () => {
    const r = compare(['--all'], [['other', '../src'], ['third', `file://${src}`]]);
    assert.equal(r.stdout, 'Fetching origin\nFetching other\nFetching third\n');
    compare(['--all', '-q', '--prune', '--no-tags'], [['other', '../src']]);
    compare(['--all', '-v', '--force'], [['other', '../src']]);
  });

  it('goes on past a remote that fails, and exits 1', () => {
    const r = compare(['--all'], [['gone', path.join(work, 'nonexistent')], ['other', '../src']], [], false);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /error: could not fetch gone\n/);
  });

  it('leaves out skipped remotes, and fetches a lone remote as a plain fetch', () => {
    const r = compare(['--all'], [['other', '../src']], [['remote.other.skipFetchAll', 'true']]);
    assert.equal(r.stdout, '');
    compare(['--all'], [['other', '../src'], ['third', '../src']], [['remote.other.skipDefaultUpdate', 'true']]);
  });

  it('writes no FETCH_HEAD with --no-write-fetch-head', () => {
    compare(['--no-write-fetch-head'], []);
    // With --all, git 2.39 passes the option to none of the fetches it runs, which write FETCH_HEAD
    // against its documentation; tsgit does as documented (and as later git does).
    const { ours, theirs } = twins([['other', '../src']]);
    const a = run([process.execPath, TSGIT, 'fetch', '--all', '--no-write-fetch-head'], ours);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(fs.existsSync(path.join(ours, '.git', 'FETCH_HEAD')), false);
    git(theirs, ['fetch', '--all']);
    assert.equal(git(ours, ['for-each-ref']), git(theirs, ['for-each-ref']));
  });

  it('--dry-run reports what a fetch would do, and changes nothing but the objects', () => {
    // The remote has lost a branch the clones track, and has new tags: lightweight, annotated, and
    // one on a commit the clones already have.
    const moved = (): void => {
      git(src, ['branch', '-D', '-q', 'side']);
      git(src, ['tag', '-a', '-m', 'annotated', `a${n}`]);
      git(src, ['tag', `old${n}`, 'HEAD~1']);
    };
    for (const args of [['--prune'], ['-v'], ['--tags'], ['origin', 'main:refs/heads/x']]) {
      const r = compare(['--dry-run', ...args], [], [], true, moved);
      git(src, ['branch', 'side']);
      if (args[0] === '--prune') assert.match(r.stderr, /- \[deleted\] +\(none\) +-> origin\/side/);
    }
    compare(['--all', '--dry-run'], [['other', '../src']]);
  });

  it('-a appends to FETCH_HEAD; the maintenance switches tsgit never needs are taken', () => {
    compare(['-a', 'origin', 'side'], [], [], true, () => {
      git(src, ['commit', '-q', '--allow-empty', '-m', 'more']);
    });
    const { ours, theirs } = twins([]);
    for (const [dir, cmd] of [[ours, [process.execPath, TSGIT]], [theirs, ['git']]] as const) {
      for (const args of [['origin', 'side'], ['-a', 'origin', 'main'], ['--no-auto-gc', '--no-auto-maintenance', '--no-write-commit-graph', '--append']]) {
        const r = run([...cmd, 'fetch', ...args], dir);
        assert.equal(r.status, 0, r.stderr);
      }
    }
    assert.equal(state(ours).replaceAll(ours, theirs), state(theirs));
  });

  // An address in a remote's place: -P's tag refspec is then the one refspec, as if given (only
  // tags fetched, for merging in FETCH_HEAD); beside given refspecs, none.
  it('prunes as --[no-]prune, -P, remote.<name>.prune(Tags) and fetch.prune(Tags) say, for a remote or an address', () => {
    // Each clone has a tag of its own, and the remote loses a branch and a tag the clones have.
    const moved = (clones: string[]): void => {
      for (const dir of clones) git(dir, ['tag', `mine${n}`]);
      git(src, ['branch', '-D', '-q', 'side']);
      git(src, ['tag', '-d', `t-w${n - 2}`]);
    };
    const cases: [string[], [string, string][]][] = [
      [[], [['fetch.prune', 'true']]],
      [[], [['fetch.prune', 'true'], ['remote.origin.prune', 'false']]],
      [['--no-prune'], [['fetch.prune', 'true']]],
      [['-p', '-P'], []],
      [['origin', '--prune', '--prune-tags'], []],
      [['origin', 'main', '-p', '-P'], []],
      [[], [['remote.origin.prune', 'true'], ['fetch.pruneTags', 'true']]],
      [['--no-prune-tags'], [['fetch.prune', 'true'], ['remote.origin.pruneTags', 'true']]],
      [['--prune-tags', '../src'], []],
      [['-p', '-P', '../src'], []],
      [['-p', '../src'], [['fetch.pruneTags', 'true']]],
      [['-p', '-P', '../src', 'main'], []],
      [['-p', '-P'], [['branch.main.remote', '../src']]],
    ];
    for (const [args, config] of cases) {
      compare(args, [], config, true, moved);
      git(src, ['branch', 'side']);
    }
  });

  it('refuses a remote or refspecs beside --all, as git does', () => {
    compare(['--all', 'origin'], []);
    compare(['--all', 'origin', 'main'], []);
  });
});
