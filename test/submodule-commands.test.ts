// submodule deinit, set-url, set-branch and absorbgitdirs, with git as the oracle: two superprojects
// are built once (one cloned with its submodules as update leaves them, nested one included; one
// whose submodules are repositories made in place, `.git` directories and all), and each case runs
// git on one copy and tsgit on a twin, comparing exit status, stdout, stderr (the copy's path
// replaced) and every byte of the result, .git included: configs, .gitmodules, gitfiles, the
// layout of .git/modules. Not the index files, whose stat data differs between twins a `git add`
// made at different times, and which git's `status` (deinit runs it in the submodules) refreshes.
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

let root: string;
/** Cloned with its submodules: md (with md/lf inside it) and lf2. */
let cloned: string;
/** md and md/lf are repositories cloned in place, each with its own .git directory. */
let embedded: string;
const ALLOW = ['-c', 'protocol.file.allow=always'];

interface Run { status: number | null; stdout: string; stderr: string }

function run(cmd: string, args: string[], cwd: string): Run {
  const r = spawnSync(cmd, args, { cwd, env: GIT_ENV, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Repositories without the sample hooks, fewer files for every copy to copy and compare. */
let setupEnv: NodeJS.ProcessEnv;
const setup = (dir: string, args: string[]) => git(dir, args, undefined, setupEnv);

function commit(dir: string, file: string): void {
  fs.writeFileSync(path.join(dir, file), `${file}\n`);
  setup(dir, ['add', file]);
  setup(dir, ['commit', '-q', '-m', file]);
}

/** Gitlinks and their `.gitmodules` entries (url `../<path>`) recorded in one commit, nothing cloned. */
function link(dir: string, links: Record<string, string>): void {
  const text = Object.keys(links).map((p) => `[submodule "${p}"]\n\tpath = ${p}\n\turl = ../${links[p]}\n`).join('');
  fs.writeFileSync(path.join(dir, '.gitmodules'), text);
  for (const [p, repo] of Object.entries(links)) {
    const head = setup(path.join(root, repo), ['rev-parse', 'HEAD']).trim();
    setup(dir, ['update-index', '--add', '--cacheinfo', `160000,${head},${p}`]);
  }
  setup(dir, ['add', '.gitmodules']);
  setup(dir, ['commit', '-q', '-m', 'submodules']);
}

before(() => {
  root = fs.realpathSync(tmpDir('tsgit-submodule-commands-'));
  fs.mkdirSync(path.join(root, 'no-template'));
  setupEnv = { ...GIT_ENV, GIT_TEMPLATE_DIR: path.join(root, 'no-template') };
  const make = (name: string) => {
    const dir = path.join(root, name);
    setup(root, ['init', '-q', '-b', 'main', dir]);
    commit(dir, `${name}.txt`);
    return dir;
  };
  make('leaf');
  link(make('mid'), { lf: 'leaf' });
  link(make('super'), { md: 'mid', lf2: 'leaf' });
  cloned = path.join(root, 'cloned');
  setup(root, ['clone', '-q', path.join(root, 'super'), cloned]);
  setup(cloned, [...ALLOW, 'submodule', '-q', 'update', '--init', '--recursive']);
  // The same commits, md and md/lf made by cloning into place.
  embedded = path.join(root, 'embedded');
  setup(root, ['clone', '-q', path.join(root, 'super'), embedded]);
  fs.rmSync(path.join(embedded, 'md'), { recursive: true });
  setup(root, ['clone', '-q', path.join(root, 'mid'), path.join(embedded, 'md')]);
  fs.rmdirSync(path.join(embedded, 'md', 'lf'));
  setup(root, ['clone', '-q', path.join(root, 'leaf'), path.join(embedded, 'md', 'lf')]);
});

after(() => rmrf(root));

/** Every entry below `dir`: a file's bytes, a link's target, a directory's mark. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      const full = path.join(dir, p);
      if (d.isSymbolicLink()) out.set(p, `-> ${fs.readlinkSync(full)}`);
      else if (d.isDirectory()) {
        out.set(p, '<dir>');
        walk(p);
      } else if (!(d.name === 'index' && p.startsWith('.git/'))) out.set(p, fs.readFileSync(full, 'latin1'));
    }
  };
  walk('');
  return out;
}

let copies = 0;

interface Twins { theirs: string; mine: string }

/** Two copies of `base` after `prepare`, git's and tsgit's. */
function twins(base: string, prepare?: (dir: string) => void): Twins {
  const t = { theirs: path.join(root, `git-${++copies}`), mine: path.join(root, `tsgit-${copies}`) };
  // cp -a: half the CPU time of fs.cpSync.
  run('cp', ['-a', base, t.theirs], root);
  prepare?.(t.theirs);
  run('cp', ['-a', t.theirs, t.mine], root);
  return t;
}

/**
 * Runs `submodule <args>` with git in one twin and with tsgit in the other, from `sub` below them;
 * asserts the same status, output and result, and returns tsgit's run.
 */
function both(t: Twins, args: string[], o: { sub?: string; firstLine?: boolean } = {}): Run & { dir: string } {
  const results: Run[] = [];
  for (const [dir, cmd, pre] of [[t.theirs, 'git', []], [t.mine, process.execPath, [TSGIT]]] as const) {
    const cwd = path.join(dir, o.sub ?? '');
    fs.mkdirSync(cwd, { recursive: true });
    const r = run(cmd, [...pre, 'submodule', ...args], cwd);
    results.push({ status: r.status, stdout: r.stdout.replaceAll(dir, '<dir>'), stderr: r.stderr.replaceAll(dir, '<dir>') });
  }
  const [b, a] = results as [Run, Run];
  assert.equal(a.status, b.status, a.stderr);
  assert.equal(a.stdout, b.stdout);
  // A usage message is tsgit's own; the error line before it is git's.
  const shown = (r: Run) => (o.firstLine ? r.stderr.split('\n')[0] : r.stderr);
  assert.equal(shown(a), shown(b));
  assert.deepEqual(tree(t.mine), tree(t.theirs));
  return { ...a, dir: t.mine };
}

const same = (base: string, args: string[], o: { prepare?: (dir: string) => void; sub?: string; firstLine?: boolean } = {}) =>
  both(twins(base, o.prepare), args, o);

describe('submodule deinit', () => {
  test('a clean submodule, from a subdirectory: work tree emptied, config section gone, git dir kept with core.worktree unset', () => {
    const r = same(cloned, ['deinit', '../md'], { sub: 'deeper' });
    assert.equal(r.stdout, "Cleared directory '../md'\nSubmodule 'md' (../mid) unregistered for path '../md'\n");
    assert.deepEqual(fs.readdirSync(path.join(r.dir, 'md')), []);
    assert.ok(fs.existsSync(path.join(r.dir, '.git', 'modules', 'md', 'modules', 'lf', 'HEAD')));
    assert.doesNotMatch(fs.readFileSync(path.join(r.dir, '.git', 'modules', 'md', 'config'), 'utf8'), /worktree/);
    assert.doesNotMatch(fs.readFileSync(path.join(r.dir, '.git', 'config'), 'utf8'), /submodule "md"/);
  });

  // Two of git rm -n's verdicts: another commit staged, and a file a nested submodule does not track.
  const refusals: [string, (d: string) => void, RegExp][] = [
    ['another commit staged', (d) => {
      git(path.join(d, 'md'), ['commit', '-q', '--allow-empty', '-m', 'x']);
      git(d, ['add', 'md']);
    }, /has changes staged in the index/],
    ['an untracked file in a nested submodule', (d) => fs.writeFileSync(path.join(d, 'md', 'lf', 'new'), 'new\n'), /has local modifications/],
  ];
  for (const [what, prepare, message] of refusals) {
    test(`local changes refused without -f: ${what}`, () => {
      const r = same(cloned, ['deinit', 'md'], { prepare });
      assert.equal(r.status, 128);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /fatal: Submodule work tree 'md' contains local modifications; use '-f' to discard them\n$/);
    });
  }

  test('-f --all removes them anyway; neither paths nor --all is refused', () => {
    const t = twins(cloned, refusals[1]![1]);
    assert.equal(both(t, ['deinit']).stderr, "fatal: Use '--all' if you really want to deinitialize all submodules\n");
    const r = both(t, ['deinit', '-f', '--all']);
    assert.equal(r.stdout, "Cleared directory 'lf2'\nSubmodule 'lf2' (../leaf) unregistered for path 'lf2'\n"
      + "Cleared directory 'md'\nSubmodule 'md' (../mid) unregistered for path 'md'\n");
  });

  test('a .git directory in the work tree is absorbed first, a nested gitfile into it pointed at where it went', () => {
    // md/lf's gitfile names md/.git/modules/lf, which goes with md/.git.
    const r = same(embedded, ['deinit', 'md'], { prepare: (d) => git(path.join(d, 'md'), ['submodule', 'absorbgitdirs']) });
    assert.match(r.stderr, /^warning: Submodule work tree 'md' contains a \.git directory\. .*\nMigrating git directory of 'md' from\n/);
    assert.ok(fs.existsSync(path.join(r.dir, '.git', 'modules', 'md', 'modules', 'lf', 'HEAD')));
    assert.match(fs.readFileSync(path.join(r.dir, '.git', 'modules', 'md', 'modules', 'lf', 'config'), 'utf8'), /\tworktree = \.\.\/\.\.\/\.\.\/\.\.\/\.\.\/md\/lf\n/);
  });

  test('a submodule path that is a symbolic link is refused', () => {
    const r = same(cloned, ['deinit', 'lf2'], {
      prepare: (d) => {
        fs.rmSync(path.join(d, 'lf2'), { recursive: true });
        fs.mkdirSync(path.join(d, 'elsewhere'));
        fs.writeFileSync(path.join(d, 'elsewhere', 'kept'), 'kept\n');
        fs.symlinkSync('elsewhere', path.join(d, 'lf2'));
      },
    });
    assert.equal(r.stderr, "error: expected submodule path 'lf2' not to be a symbolic link\n");
    assert.ok(fs.existsSync(path.join(r.dir, 'elsewhere', 'kept')));
  });
});

describe('submodule absorbgitdirs', () => {
  test('nested .git directories moved into .git/modules, from a subdirectory', () => {
    const r = same(embedded, ['absorbgitdirs'], { sub: 'deeper' });
    assert.equal(r.stderr, "Migrating git directory of 'md' from\n'<dir>/md/.git' to\n'<dir>/.git/modules/md'\n"
      + "Migrating git directory of 'md/lf' from\n'<dir>/md/lf/.git' to\n'<dir>/.git/modules/md/modules/lf'\n");
    assert.equal(fs.readFileSync(path.join(r.dir, 'md', 'lf', '.git'), 'utf8'), 'gitdir: ../../.git/modules/md/modules/lf\n');
    assert.equal(fs.readFileSync(path.join(r.dir, '.git', 'modules', 'md', 'modules', 'lf', 'config'), 'utf8').match(/worktree = .*/)?.[0],
      'worktree = ../../../../../md/lf');
  });

  test("a git directory that would lie inside another submodule's is refused", () => {
    const r = same(embedded, ['absorbgitdirs'], {
      prepare: (d) => {
        git(d, ['init', '-q', '--bare', path.join(d, '.git', 'modules', 'md')]);
        fs.writeFileSync(path.join(d, '.gitmodules'), '[submodule "md/hooks"]\n\tpath = md\n\turl = ../mid\n');
      },
    });
    assert.equal(r.status, 128);
    assert.equal(r.stderr, "error: submodule git dir '.git/modules/md/hooks' is inside git dir '.git/modules/md'\n"
      + "fatal: refusing to move '<dir>/md/.git' into an existing git dir\n");
  });
});

describe('submodule set-url and set-branch', () => {
  test('set-url: .gitmodules written, the superproject config and the submodule remote synced', () => {
    const r = same(cloned, ['set-url', '--', 'md', '../other']);
    assert.equal(r.stdout, "Synchronizing submodule url for 'md'\n");
    assert.match(fs.readFileSync(path.join(r.dir, '.gitmodules'), 'utf8'), /\turl = \.\.\/other\n/);
  });

  test('set-branch -b, then -d', () => {
    const t = twins(cloned);
    const r = both(t, ['set-branch', '-b', 'dev', 'md']);
    assert.match(fs.readFileSync(path.join(r.dir, '.gitmodules'), 'utf8'), /\turl = \.\.\/mid\n\tbranch = dev\n/);
    both(t, ['--quiet', 'set-branch', '-d', 'md']);
    assert.doesNotMatch(fs.readFileSync(path.join(r.dir, '.gitmodules'), 'utf8'), /branch/);
  });
});
