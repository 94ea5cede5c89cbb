// Submodules, with git as the oracle: the same clone or update is made by git and by tsgit, and
// the results compared (the work trees by `diff -r --no-dereference`, the configuration of every
// repository, the gitfiles, refs, shallow files, FETCH_HEAD, `git submodule status --recursive`
// against tsgit's own), then checked by git (`status --porcelain` empty, `fsck` clean).
// Covered: nested submodules, relative URLs (against a local path and an scp-like address),
// url.<base>.insteadOf, a commit on no branch (fetched by id), --shallow-submodules, a pathspec for
// --recurse-submodules, -j, protocol.file.allow, and each malicious `.gitmodules` refused as git
// refuses it, with nothing written outside the work tree.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

let root: string;
const ALLOW = ['-c', 'protocol.file.allow=always'];

interface Run { status: number | null; stdout: string; stderr: string }

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = GIT_ENV): Run {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const gitRun = (args: string[], cwd = root) => run('git', args, cwd);
// With TSGIT_DEBUG=1 a Node warning (a listener leak with -j, say) would reach stderr and fail the comparison.
const tsgitRun = (args: string[], cwd = root) => run(process.execPath, [TSGIT, ...args], cwd, { ...GIT_ENV, TSGIT_DEBUG: '1' });

/** A repository at `<name>` (work tree) and `<name>.git` (bare clone of it, what is cloned from). */
function makeRepo(name: string, build: (dir: string) => void): string {
  const dir = path.join(root, name);
  git(root, ['init', '-q', '-b', 'main', dir]);
  build(dir);
  git(root, ['clone', '-q', '--bare', dir, `${dir}.git`]);
  return `${dir}.git`;
}

function commitFile(dir: string, file: string, text: string, message: string): string {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  git(dir, ['add', file]);
  git(dir, ['commit', '-q', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

/** Records gitlinks and `.gitmodules` in one commit, without cloning anything. */
function addSubmodules(dir: string, gitmodules: string, links: Record<string, string>): void {
  fs.writeFileSync(path.join(dir, '.gitmodules'), gitmodules);
  for (const [p, oid] of Object.entries(links)) git(dir, ['update-index', '--add', '--cacheinfo', `160000,${oid},${p}`]);
  git(dir, ['add', '.gitmodules']);
  git(dir, ['commit', '-q', '-m', 'submodules']);
}

const heads: Record<string, string> = {};

before(() => {
  root = tmpDir('tsgit-submodule-');
  makeRepo('leaf', (d) => {
    heads.leaf1 = commitFile(d, 'leaf.txt', 'one\n', 'leaf one');
    git(d, ['tag', '-a', 'v1', '-m', 'v1']);
    heads.leaf = commitFile(d, 'dir/leaf.txt', 'two\n', 'leaf two');
  });
  makeRepo('mid', (d) => {
    commitFile(d, 'mid.txt', 'mid\n', 'mid');
    addSubmodules(d, '[submodule "lf"]\n\tpath = lf\n\turl = ../leaf.git\n', { lf: heads.leaf! });
    heads.mid = git(d, ['rev-parse', 'HEAD']).trim();
  });
  makeRepo('super', (d) => {
    commitFile(d, 'top.txt', 'top\n', 'top');
    addSubmodules(d, '[submodule "md"]\n\tpath = md\n\turl = ../mid.git\n', { md: heads.mid! });
  });
  // A commit on no branch: only refs/changes/1 (which no default refspec fetches) reaches it.
  const pinned = makeRepo('pinned', (d) => {
    heads.pinnedMain = commitFile(d, 'p.txt', 'main\n', 'main');
    git(d, ['checkout', '-q', '--detach']);
    heads.detached = commitFile(d, 'p.txt', 'detached\n', 'detached');
    git(d, ['checkout', '-q', 'main']);
  });
  git(pinned, ['update-ref', 'refs/changes/1', heads.detached!]);
  makeRepo('pinsuper', (d) => {
    addSubmodules(d, '[submodule "pin"]\n\tpath = pin\n\turl = ../pinned.git\n', { pin: heads.detached! });
  });
  // Relative to an scp-like remote, and an address only url.<base>.insteadOf makes sense of.
  makeRepo('rel', (d) => {
    commitFile(d, 'r.txt', 'r\n', 'r');
    addSubmodules(d, '[submodule "a"]\n\tpath = deps/a\n\turl = ../leaf.git\n[submodule "b"]\n\tpath = b\n\turl = gh:pinned.git\n',
      { 'deps/a': heads.leaf!, b: heads.pinnedMain! });
  });
});

after(() => rmrf(root));

/** What must be equal between git's and tsgit's results, for a repository and its submodules. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (wt: string, label: string) => {
    const gitDir = git(wt, ['rev-parse', '--absolute-git-dir']).trim();
    const read = (f: string) => (fs.existsSync(path.join(gitDir, f)) ? fs.readFileSync(path.join(gitDir, f), 'utf8') : '<none>');
    out[`${label} config`] = git(wt, ['config', '--local', '-l']);
    out[`${label} refs`] = git(wt, ['for-each-ref', '--format=%(refname) %(objectname) %(symref)']);
    out[`${label} HEAD`] = read('HEAD');
    out[`${label} shallow`] = read('shallow');
    out[`${label} FETCH_HEAD`] = read('FETCH_HEAD');
    out[`${label} objects`] = git(wt, ['rev-list', '--objects', '--all']).split('\n').sort().join('\n');
    out[`${label} index`] = git(wt, ['ls-files', '-s']);
    const dotGit = path.join(wt, '.git');
    out[`${label} .git`] = fs.lstatSync(dotGit).isFile() ? fs.readFileSync(dotGit, 'utf8') : '<directory>';
    for (const line of git(wt, ['submodule', 'status']).split('\n').filter(Boolean)) {
      const sub = line.slice(42).split(' ')[0]!;
      if (line[0] !== '-') visit(path.join(wt, sub), `${label}/${sub}`);
    }
  };
  visit(dir, '.');
  return out;
}

/** git's own checks of a result: clean status everywhere, fsck clean everywhere. */
function gitAccepts(dir: string): void {
  assert.equal(git(dir, ['status', '--porcelain', '--ignore-submodules=none']), '');
  assert.equal(git(dir, ['submodule', 'foreach', '--quiet', '--recursive', 'git status --porcelain']), '');
  git(dir, ['fsck', '--no-dangling']);
  git(dir, ['submodule', 'foreach', '--quiet', '--recursive', 'git fsck --no-dangling']);
}

/** git's and tsgit's `submodule status --recursive`, which must be the same lines. */
function sameStatus(dir: string, ...args: string[]): string {
  const mine = tsgitRun(['submodule', 'status', ...args], dir);
  const theirs = gitRun(['submodule', 'status', ...args], dir);
  assert.equal(mine.status, theirs.status, mine.stderr);
  assert.equal(mine.stdout, theirs.stdout);
  return theirs.stdout;
}

/**
 * Clones with both tools (`config`: `-c` settings for the command and those it runs); returns their
 * targets once both succeeded with the same messages.
 */
function cloneBoth(name: string, args: string[], config: string[] = []): { mine: string; theirs: string } {
  const mine = path.join(root, `${name}-tsgit`), theirs = path.join(root, `${name}-git`);
  const b = gitRun([...ALLOW, ...config, 'clone', ...args, theirs]);
  assert.equal(b.status, 0, b.stderr);
  const a = tsgitRun([...ALLOW, ...config, 'clone', ...args, mine]);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(a.stdout.replaceAll(mine, '<dir>'), b.stdout.replaceAll(theirs, '<dir>'));
  // git says "done." after copying a local repository's objects; tsgit's clone of one is a fetch.
  const lines = (s: string, dir: string) => s.replaceAll(dir, '<dir>').split('\n').filter((l) => l !== 'done.').join('\n');
  assert.equal(lines(a.stderr, mine), lines(b.stderr, theirs));
  return { mine, theirs };
}

function compare(mine: string, theirs: string): void {
  const diff = run('diff', ['-r', '--no-dereference', '-x', '.git', mine, theirs], root);
  assert.equal(diff.status, 0, diff.stdout);
  assert.deepEqual(snapshot(mine), snapshot(theirs));
  gitAccepts(mine);
}

describe('clone --recurse-submodules', () => {
  test('nested submodules with relative URLs: as git clones them', () => {
    const { mine, theirs } = cloneBoth('nested', ['--recurse-submodules', path.join(root, 'super.git')]);
    compare(mine, theirs);
    assert.equal(fs.readFileSync(path.join(mine, 'md', 'lf', 'dir', 'leaf.txt'), 'utf8'), 'two\n');
    assert.match(sameStatus(mine, '--recursive'), /^ [0-9a-f]{40} md \(heads\/main\)\n [0-9a-f]{40} md\/lf \(v1-1-g[0-9a-f]{7}\)\n$/);
    assert.equal(fs.readFileSync(path.join(mine, 'md', '.git'), 'utf8'), 'gitdir: ../.git/modules/md\n');
    assert.equal(git(mine, ['config', '-f', '.git/modules/md/config', 'core.worktree']).trim(), '../../../md');
  });

  test('a scp-like remote, url.<base>.insteadOf for the superproject and a submodule, -j 2', () => {
    const rewrite = ['-c', `url.${root}/.insteadOf=example.com:`, '-c', `url.${root}/.insteadOf=gh:`];
    const { mine, theirs } = cloneBoth('rewritten', ['--recurse-submodules', '-j', '2', 'example.com:rel.git'], rewrite);
    compare(mine, theirs);
    assert.equal(git(mine, ['config', 'submodule.a.url']).trim(), 'example.com:leaf.git');
    assert.equal(git(mine, ['config', 'submodule.b.url']).trim(), 'gh:pinned.git');
    sameStatus(mine);
  });

  test('a submodule pinned to a commit on no branch is fetched by id', () => {
    const { mine, theirs } = cloneBoth('pinned', ['--recurse-submodules', path.join(root, 'pinsuper.git')]);
    compare(mine, theirs);
    assert.equal(git(path.join(mine, 'pin'), ['rev-parse', 'HEAD']).trim(), heads.detached);
    assert.match(fs.readFileSync(path.join(mine, '.git', 'modules', 'pin', 'FETCH_HEAD'), 'utf8'), new RegExp(`^${heads.detached}\\t\\t`));
    sameStatus(mine);
  });

  test('--shallow-submodules: every submodule at depth 1, over file://', () => {
    const { mine, theirs } = cloneBoth('shallow', ['--recurse-submodules', '--shallow-submodules', `file://${root}/super.git`]);
    compare(mine, theirs);
    assert.notEqual(fs.readFileSync(path.join(mine, '.git', 'modules', 'md', 'modules', 'lf', 'shallow'), 'utf8'), '');
    sameStatus(mine, '--recursive');
  });

  test('--shallow-exclude alone makes the submodules single-branch, as any shallow clone does', () => {
    const excluding = path.join(root, 'exclude.git');
    git(root, ['clone', '-q', '--mirror', path.join(root, 'super.git'), excluding]);
    git(excluding, ['tag', 'first', 'HEAD~1']);
    const { mine, theirs } = cloneBoth('exclude', ['--recurse-submodules', '--shallow-exclude=first', `file://${excluding}`]);
    compare(mine, theirs);
    assert.equal(git(mine, ['config', '-f', '.git/modules/md/config', 'remote.origin.fetch']).trim(), '+refs/heads/main:refs/remotes/origin/main');
  });

  test('--recurse-submodules=<pathspec> clones only what it selects', () => {
    const { mine, theirs } = cloneBoth('pathspec', ['--recurse-submodules=deps', path.join(root, 'rel.git')], ['-c', `url.${root}/.insteadOf=gh:`]);
    compare(mine, theirs);
    assert.match(sameStatus(mine), /^-[0-9a-f]{40} b\n [0-9a-f]{40} deps\/a /);
  });

  test('-j 12: twelve submodules cloned at once, no Node warning (one abort listener for all of them)', () => {
    const names = Array.from({ length: 12 }, (_, i) => `s${i + 1}`);
    const url = makeRepo('many', (d) => {
      addSubmodules(d, names.map((n) => `[submodule "${n}"]\n\tpath = ${n}\n\turl = ../leaf.git\n`).join(''),
        Object.fromEntries(names.map((n) => [n, heads.leaf!])));
    });
    const mine = path.join(root, 'many-tsgit');
    const r = tsgitRun([...ALLOW, 'clone', '-q', '--recurse-submodules', '-j', '12', url, mine]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const status = sameStatus(mine);
    assert.equal(status.split('\n').filter((l) => l.startsWith(` ${heads.leaf} s`)).length, 12);
    gitAccepts(mine);
  });

  test('without protocol.file.allow=always a local submodule is refused, as git refuses it (CVE-2022-39253)', () => {
    const mine = path.join(root, 'refused-tsgit'), theirs = path.join(root, 'refused-git');
    const a = tsgitRun(['clone', '--recurse-submodules', path.join(root, 'super.git'), mine]);
    const b = gitRun(['clone', '--recurse-submodules', path.join(root, 'super.git'), theirs]);
    assert.equal(a.status, b.status);
    assert.equal(a.status, 1);
    assert.match(a.stderr, /fatal: transport 'file' not allowed\n/);
    assert.deepEqual(fs.readdirSync(path.join(mine, 'md')), []);
    assert.equal(fs.existsSync(path.join(mine, '.git', 'modules', 'md')), false);
    assert.equal(git(mine, ['rev-parse', 'HEAD']), git(theirs, ['rev-parse', 'HEAD']));
  });
});

describe('submodule update, init and status', () => {
  test('update --init --recursive in a plain clone, then back to the recorded commit', () => {
    const mine = path.join(root, 'plain-tsgit'), theirs = path.join(root, 'plain-git');
    for (const dir of [mine, theirs]) git(root, ['clone', '-q', path.join(root, 'super.git'), dir]);
    assert.equal(sameStatus(mine), `-${heads.mid} md\n`);
    const a = tsgitRun([...ALLOW, 'submodule', 'update', '--init', '--recursive'], mine);
    const b = gitRun([...ALLOW, 'submodule', 'update', '--init', '--recursive'], theirs);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
    compare(mine, theirs);
    // Move the submodule's HEAD: status shows `+` and the commit, --cached the recorded one.
    for (const dir of [mine, theirs]) git(path.join(dir, 'md', 'lf'), ['checkout', '-q', 'HEAD~1']);
    assert.match(sameStatus(mine, '--recursive'), new RegExp(`\\n\\+${heads.leaf1} md/lf \\(v1\\)\\n$`));
    sameStatus(mine, '--recursive', '--cached');
    const c = tsgitRun(['submodule', 'update', '--recursive'], mine);
    assert.equal(c.status, 0, c.stderr);
    assert.equal(c.stdout, `Submodule path 'md/lf': checked out '${heads.leaf}'\n`);
    assert.equal(c.stdout, gitRun(['submodule', 'update', '--recursive'], theirs).stdout);
    compare(mine, theirs);
  });

  test('sync --recursive: a URL changed in .gitmodules reaches the config and the checked-out remotes', () => {
    const { mine, theirs } = cloneBoth('sync', ['--recurse-submodules', path.join(root, 'super.git')]);
    // The superproject's mid moves (a relative URL); the nested leaf's URL is relative to it.
    for (const dir of [mine, theirs]) {
      const file = path.join(dir, '.gitmodules');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('../mid.git', '../mid-moved.git'));
    }
    const configs = (dir: string): string => ['.', 'md', 'md/lf'].map((d) => git(path.join(dir, d), ['config', '--local', '-l'])).join('--\n');
    for (const args of [['sync', '--recursive'], ['--quiet', 'sync'], ['sync', '--', 'md'], ['sync', 'nomatch']]) {
      const a = tsgitRun(['submodule', ...args], mine);
      const b = gitRun(['submodule', ...args], theirs);
      assert.equal(a.status, b.status, a.stderr);
      assert.equal(a.stdout, b.stdout);
      assert.equal(a.stderr, b.stderr);
      assert.equal(configs(mine).replaceAll(mine, theirs), configs(theirs));
    }
    assert.match(configs(mine), /submodule\.md\.url=.*mid-moved\.git/);
  });

  test('foreach [--recursive]: the command in each checked-out submodule, its variables, and a failing one', () => {
    const { mine, theirs } = cloneBoth('foreach', ['--recurse-submodules', path.join(root, 'super.git')]);
    for (const dir of [mine, theirs]) fs.mkdirSync(path.join(dir, 'below'));
    const cases: [string[], string][] = [
      [['foreach', 'echo "$name|$sm_path|$displaypath|$sha1|$toplevel|$path|$(pwd)"'], '.'],
      [['foreach', '--recursive', 'echo "$name $displaypath $toplevel"'], '.'],
      [['foreach', '--recursive', 'echo "$displaypath"'], 'below'],
      [['--quiet', 'foreach', '--recursive', 'git config --local gc.auto 0'], '.'],
      [['foreach', 'echo', '$name', 'two words'], '.'],
      [['foreach'], '.'],
      [['foreach', 'exit 3'], '.'],
      [['foreach', '--recursive', 'test "$name" != lf'], '.'],
    ];
    for (const [args, cwd] of cases) {
      const a = tsgitRun(['submodule', ...args], path.join(mine, cwd));
      const b = gitRun(['submodule', ...args], path.join(theirs, cwd));
      assert.equal(a.status, b.status, `${args.join(' ')}: ${a.stderr}`);
      assert.equal(a.stdout.replaceAll(mine, theirs), b.stdout, args.join(' '));
      assert.equal(a.stderr, b.stderr, args.join(' '));
    }
    assert.equal(git(path.join(mine, 'md', 'lf'), ['config', '--local', 'gc.auto']).trim(), '0');
  });

  test('init registers URLs; status of a path, of an unmerged gitlink and of no match', () => {
    const mine = path.join(root, 'init-tsgit'), theirs = path.join(root, 'init-git');
    for (const dir of [mine, theirs]) git(root, ['clone', '-q', path.join(root, 'rel.git'), dir]);
    const a = tsgitRun(['submodule', 'init', 'deps'], mine);
    const b = gitRun(['submodule', 'init', 'deps'], theirs);
    assert.equal(a.stderr.replaceAll(mine, '<dir>'), b.stderr.replaceAll(theirs, '<dir>'));
    assert.equal(git(mine, ['config', '--local', '-l']), git(theirs, ['config', '--local', '-l']));
    sameStatus(mine, 'b');
    const none = tsgitRun(['submodule', 'status', 'nothing-here'], mine);
    assert.equal(none.status, 1);
    assert.equal(none.stderr, "error: pathspec 'nothing-here' did not match any file(s) known to git\n");
    // A conflict on the gitlink: `U` and the zero id.
    for (const dir of [mine, theirs]) {
      git(dir, ['checkout', '-q', '-b', 'other']);
      git(dir, ['update-index', '--cacheinfo', `160000,${heads.leaf1},b`]);
      git(dir, ['commit', '-q', '-m', 'other']);
      git(dir, ['checkout', '-q', 'main']);
      git(dir, ['update-index', '--cacheinfo', `160000,${heads.detached},b`]);
      git(dir, ['commit', '-q', '-m', 'main']);
      assert.equal(gitRun(['merge', '-q', 'other'], dir).status, 1);
    }
    assert.match(sameStatus(mine), /^U0{40} b\n/);
    assert.equal(tsgitRun(['submodule', 'update'], mine).stdout, gitRun(['submodule', 'update'], theirs).stdout);
  });

  test('a submodule whose .git file is not a gitfile is fatal, as in git', () => {
    const mine = path.join(root, 'gitfile-tsgit'), theirs = path.join(root, 'gitfile-git');
    for (const dir of [mine, theirs]) {
      git(root, ['clone', '-q', path.join(root, 'super.git'), dir]);
      assert.equal(gitRun([...ALLOW, 'submodule', 'update', '-q', '--init'], dir).status, 0);
      fs.writeFileSync(path.join(dir, 'md', '.git'), 'not a gitfile\n');
    }
    const a = tsgitRun(['submodule', 'status'], mine);
    assert.equal(a.status, gitRun(['submodule', 'status'], theirs).status);
    assert.equal(a.stderr, `fatal: invalid gitfile format: ${path.join(mine, 'md', '.git')}\n`);
    assert.equal(a.stdout, '');
  });
});

describe('what git refuses', () => {
  const outside = () => path.join(root, 'outside');

  /** A superproject whose one gitlink (at `link`) points at the leaf's head. */
  function evil(name: string, gitmodules: string, links: string[]): string {
    return makeRepo(name, (d) => {
      commitFile(d, 'x.txt', 'x\n', 'x');
      addSubmodules(d, gitmodules, Object.fromEntries(links.map((l) => [l, heads.leaf!])));
    });
  }

  const CASES: { name: string; gitmodules: string; links: string[]; warning: RegExp }[] = [
    {
      name: 'traversing-name', links: ['sub'], warning: /warning: ignoring suspicious submodule name: \.\.\/\.\.\/modules\/evil\n/,
      gitmodules: '[submodule "../../modules/evil"]\n\tpath = sub\n\turl = ../leaf.git\n',
    },
    {
      name: 'option-url', links: ['sub'], warning: /warning: ignoring 'submodule\.sub\.url' which may be interpreted as a command-line option: -oProxyCommand/,
      gitmodules: `[submodule "sub"]\n\tpath = sub\n\turl = -oProxyCommand=touch ${root}/outside/PWNED\n`,
    },
    {
      name: 'option-path', links: ['-sub'], warning: /warning: ignoring 'submodule\.sub\.path' which may be interpreted as a command-line option: -sub\n/,
      gitmodules: '[submodule "sub"]\n\tpath = -sub\n\turl = ../leaf.git\n',
    },
    {
      name: 'nested-gitdir', links: ['thing1', 'thing2'], warning: /fatal: refusing to create\/use '[^']*\/\.git\/modules\/hippo\/hooks' in another submodule's git dir\n/,
      gitmodules: '[submodule "hippo"]\n\tpath = thing1\n\turl = ../leaf.git\n[submodule "hippo/hooks"]\n\tpath = thing2\n\turl = ../leaf.git\n',
    },
  ];

  for (const c of CASES) {
    test(`.gitmodules with a ${c.name}: refused as git refuses it, nothing written outside`, () => {
      fs.mkdirSync(outside(), { recursive: true });
      const url = evil(c.name, c.gitmodules, c.links);
      const mine = path.join(root, `${c.name}-tsgit`), theirs = path.join(root, `${c.name}-git`);
      const a = tsgitRun([...ALLOW, 'clone', '--recurse-submodules', url, mine]);
      const b = gitRun([...ALLOW, 'clone', '--recurse-submodules', url, theirs]);
      assert.equal(a.status, b.status, a.stderr);
      assert.match(a.stderr, c.warning);
      assert.match(b.stderr, c.warning);
      const modules = (d: string) => (fs.existsSync(path.join(d, '.git', 'modules')) ? fs.readdirSync(path.join(d, '.git', 'modules')).sort() : []);
      assert.deepEqual(modules(mine), modules(theirs));
      assert.equal(run('diff', ['-r', '--no-dereference', '-x', '.git', mine, theirs], root).status, 0);
      assert.deepEqual(fs.readdirSync(outside()), []);
      assert.equal(fs.existsSync(path.join(root, 'modules')), false);
    });
  }

  test('a submodule path, or a directory above it, that is a symbolic link', () => {
    fs.mkdirSync(outside(), { recursive: true });
    const mine = path.join(root, 'symlinked-tsgit'), theirs = path.join(root, 'symlinked-git');
    for (const dir of [mine, theirs]) {
      git(root, ['clone', '-q', path.join(root, 'rel.git'), dir]);
      fs.rmSync(path.join(dir, 'deps'), { recursive: true });
      fs.symlinkSync(outside(), path.join(dir, 'deps'));
      fs.rmdirSync(path.join(dir, 'b'));
      fs.symlinkSync(outside(), path.join(dir, 'b'));
    }
    const args = [...ALLOW, '-c', `url.${root}/.insteadOf=gh:`, 'submodule', 'update', '--init'];
    const a = tsgitRun(args, mine);
    const b = gitRun(args, theirs);
    assert.equal(a.status, b.status);
    assert.equal(a.status, 1);
    assert.match(a.stderr, /error: expected submodule path 'b' not to be a symbolic link\n/);
    assert.match(a.stderr, /error: expected 'deps' in submodule path 'deps\/a' not to be a symbolic link\n/);
    assert.deepEqual(fs.readdirSync(outside()), []);
    assert.equal(fs.existsSync(path.join(mine, '.git', 'modules')), false);
  });

  // Two refusals stricter than git 2.39, which would write into a repository it does not own and
  // read its settings wherever a symlink points.
  test('a submodule path inside another repository, and .gitmodules as a symbolic link', () => {
    const mine = path.join(root, 'inside-tsgit');
    git(root, ['clone', '-q', path.join(root, 'rel.git'), mine]);
    git(mine, ['init', '-q', 'deps']);
    const r = tsgitRun([...ALLOW, 'submodule', 'update', '--init', 'deps/a'], mine);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /error: submodule path 'deps\/a' lies inside the repository at 'deps'\n/);
    assert.deepEqual(fs.readdirSync(path.join(mine, 'deps', 'a')), []);
    assert.equal(fs.existsSync(path.join(mine, '.git', 'modules')), false);
    fs.renameSync(path.join(mine, '.gitmodules'), path.join(root, 'elsewhere-gitmodules'));
    fs.symlinkSync(path.join(root, 'elsewhere-gitmodules'), path.join(mine, '.gitmodules'));
    const s = tsgitRun(['submodule', 'status'], mine);
    assert.equal(s.status, 128);
    assert.match(s.stderr, /^fatal: .*\.gitmodules is a symbolic link; refusing to read submodule settings through it\n$/);
  });
});
