// receive.denyCurrentBranch=updateInstead: git-core pushes to a non-bare repository served by
// `tsgit receive-pack` and to an identical one served by git's own; what the client reports, the
// refs, and the work tree and index afterwards (`git status --porcelain`, `git ls-files -s`, the
// files themselves) must be the same.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, rmrf, tmpDir } from './helpers.js';
import { assertFsck, commits, nonBareTargets, push, pushBoth, workRepo, type NonBareTargets } from './push-helpers.js';

type Targets = NonBareTargets;

/** The work tree as files (path, exec bit or link, content), the index, and status, of `dir`. */
function snapshot(dir: string): { files: string[]; index: string; status: string } {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      if (rel === '' && name === '.git') continue;
      const r = rel ? `${rel}/${name}` : name, p = path.join(dir, r);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) walk(r);
      else if (st.isSymbolicLink()) files.push(`${r} -> ${fs.readlinkSync(p)}`);
      else files.push(`${r} ${st.mode & 0o111 ? 'x' : '-'} ${fs.readFileSync(p, 'utf8')}`);
    }
  };
  walk('');
  return { files, index: git(dir, ['ls-files', '-s']), status: git(dir, ['status', '--porcelain', '--untracked-files=all']) };
}

describe('receive.denyCurrentBranch=updateInstead, side by side with git receive-pack', () => {
  let root: string;
  before(() => { root = tmpDir('tsgit-rp-instead-'); });
  after(() => rmrf(root));

  /** Two identical non-bare targets with updateInstead (the second for git receive-pack), and a clone to push from. */
  const targets = (name: string, setup: string[][] = []): Targets =>
    nonBareTargets(root, name, [['config', 'receive.denyCurrentBranch', 'updateInstead'], ...setup]);
  /** A commit in `work` that edits, removes, adds (in a new directory) and makes a file executable. */
  const change = (work: string): string => {
    commits(work, 1, 'pushed');
    fs.rmSync(path.join(work, 'd', 'base', 'f0.txt'));
    fs.mkdirSync(path.join(work, 'new', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(work, 'new', 'deep', 'x.txt'), 'new file\n');
    fs.writeFileSync(path.join(work, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    git(work, ['add', '-A']);
    git(work, ['commit', '-q', '-m', 'reshape']);
    return git(work, ['rev-parse', 'HEAD']).trim();
  };
  const both = pushBoth;
  const head = (dir: string) => git(dir, ['rev-parse', 'refs/heads/main']).trim();

  test('a clean work tree and index are moved to the pushed commit', () => {
    const t = targets('clean');
    const pushed = change(t.work);
    const r = both(t, ['<url>', 'main']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.porcelain, /^ \trefs\/heads\/main:refs\/heads\/main\t/m);
    assert.equal(head(t.ts), pushed);
    const ours = snapshot(t.ts);
    assert.deepEqual(ours, snapshot(t.git));
    assert.equal(ours.status, '');
    assert.ok(ours.files.includes('new/deep/x.txt - new file\n') && ours.files.includes('run.sh x #!/bin/sh\n'));
    assert.ok(!ours.files.some((f) => f.startsWith('d/base/f0.txt')));
    assertFsck(t.ts);
  });

  test('an index another process has locked fails the up-to-date check', () => {
    const t = targets('locked');
    for (const dir of [t.ts, t.git]) fs.writeFileSync(path.join(dir, '.git', 'index.lock'), '');
    const before = snapshot(t.ts);
    change(t.work);
    const r = both(t, ['<url>', 'main']);
    assert.match(r.porcelain, /\[remote rejected\] \(Up-to-date check failed\)/);
    assert.match(r.stderr, /Unable to create '.*index\.lock': File exists/);
    for (const dir of [t.ts, t.git]) fs.rmSync(path.join(dir, '.git', 'index.lock'));
    assert.deepEqual(snapshot(t.ts), before);
  });

  test('files checked out through eol conversion are clean when their content says so', () => {
    const t = targets('eol', [['config', 'core.autocrlf', 'true']]);
    for (const dir of [t.ts, t.git]) {
      // Checked out again with CRLF, then given a new mtime: only the content can tell them clean.
      for (const f of ['shared.txt', 'd/base/f1.txt']) fs.rmSync(path.join(dir, f));
      git(dir, ['checkout', '--', '.']);
      for (const f of ['shared.txt', 'd/base/f1.txt']) {
        const p = path.join(dir, f);
        assert.match(fs.readFileSync(p, 'utf8'), /\r\n/);
        fs.utimesSync(p, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
      }
    }
    const pushed = change(t.work);
    const r = both(t, ['<url>', 'main']);
    assert.equal(r.status, 0, r.porcelain);
    assert.equal(head(t.ts), pushed);
    const ours = snapshot(t.ts);
    assert.deepEqual(ours, snapshot(t.git));
    assert.ok(ours.files.some((f) => f.startsWith('new/deep/x.txt - new file\r\n')), 'written with CRLF');
  });

  test('a file marked assume-unchanged is taken at its word', () => {
    const t = targets('assume-unchanged');
    for (const dir of [t.ts, t.git]) {
      git(dir, ['update-index', '--assume-unchanged', 'd/base/f1.txt']);
      fs.appendFileSync(path.join(dir, 'd', 'base', 'f1.txt'), 'local\n');
    }
    const pushed = change(t.work);
    const r = both(t, ['<url>', 'main']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(head(t.ts), pushed);
    assert.deepEqual(snapshot(t.ts), snapshot(t.git));
  });

  for (const [kind, reason, dirty] of [
    ['unstaged', 'Working directory has unstaged changes', (dir: string) => fs.appendFileSync(path.join(dir, 'shared.txt'), 'local\n')],
    ['staged', 'Working directory has staged changes', (dir: string) => {
      fs.writeFileSync(path.join(dir, 'added.txt'), 'staged\n');
      git(dir, ['add', 'added.txt']);
    }],
    ['staged deletion', 'Working directory has staged changes', (dir: string) => { git(dir, ['rm', '-q', '--cached', 'd/base/f1.txt']); }],
  ] as const) {
    test(`a change ${kind === 'unstaged' ? 'not staged' : kind} refuses the push and is left as it is`, () => {
      const t = targets(kind.replace(' ', '-'));
      const old = head(t.ts);
      for (const dir of [t.ts, t.git]) dirty(dir);
      const before = snapshot(t.ts);
      change(t.work);
      const r = both(t, ['<url>', 'main']);
      assert.notEqual(r.status, 0);
      assert.match(r.porcelain, new RegExp(`!\\trefs/heads/main:refs/heads/main\\t\\[remote rejected\\] \\(${reason}\\)`));
      assert.equal(head(t.ts), old);
      assert.deepEqual(snapshot(t.ts), before);
      assert.deepEqual(snapshot(t.ts), snapshot(t.git));
    });
  }

  test('an untracked file is no change, unless the pushed commit needs its path', () => {
    const t = targets('untracked');
    for (const dir of [t.ts, t.git]) fs.writeFileSync(path.join(dir, 'run.sh'), 'mine\n');
    change(t.work);
    const r = both(t, ['<url>', 'main']);
    assert.match(r.porcelain, /\[remote rejected\] \(Could not update working tree to new HEAD\)/);
    assert.deepEqual(snapshot(t.ts), snapshot(t.git));
    for (const dir of [t.ts, t.git]) fs.renameSync(path.join(dir, 'run.sh'), path.join(dir, 'other.txt'));
    assert.equal(both(t, ['<url>', 'main']).status, 0);
    assert.deepEqual(snapshot(t.ts), snapshot(t.git));
  });

  test('a push-to-checkout hook decides, and updates the work tree itself', () => {
    const t = targets('hook');
    const old = head(t.ts);
    const hook = (body: string) => {
      for (const dir of [t.ts, t.git]) fs.writeFileSync(path.join(dir, '.git', 'hooks', 'push-to-checkout'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    };
    // It runs instead of the clean check: a dirty work tree is its business.
    for (const dir of [t.ts, t.git]) fs.appendFileSync(path.join(dir, 'shared.txt'), 'local\n');
    hook('echo "declining $1 GIT_DIR=$GIT_DIR GIT_WORK_TREE=$GIT_WORK_TREE"; exit 1');
    const pushed = change(t.work);
    const said = (target: string) => {
      const r = push(t.work, target, ['<url>', 'main'], target === t.ts);
      // git's GIT_DIR is absolute_path(".") from the git directory it runs in: <target>/.git/.
      return /^declining .*/m.exec(r.stderr)?.[0].split(target).join('<target>').replace('/.git/. ', '/.git ');
    };
    // What the hook is told, as git tells it, on receive-pack's stderr (not the side-band).
    assert.equal(said(t.ts), `declining ${pushed} GIT_DIR=<target>/.git GIT_WORK_TREE=<target>`);
    assert.equal(said(t.ts), said(t.git));
    const refused = both(t, ['<url>', 'main']);
    assert.match(refused.porcelain, /\[remote rejected\] \(push-to-checkout hook declined\)/);
    assert.equal(head(t.ts), old);
    assert.deepEqual(snapshot(t.ts), snapshot(t.git));
    for (const dir of [t.ts, t.git]) git(dir, ['checkout', '--', 'shared.txt']);
    hook('test -n "$GIT_WORK_TREE" && test -n "$GIT_DIR" && git read-tree -u -m HEAD "$1"');
    const r = both(t, ['<url>', 'main']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(head(t.ts), pushed);
    const ours = snapshot(t.ts);
    assert.deepEqual(ours, snapshot(t.git));
    assert.equal(ours.status, '');
  });

  test('into an empty repository: the unborn branch is checked out', () => {
    const ts = path.join(root, 'empty-ts'), theirs = path.join(root, 'empty-git');
    for (const dir of [ts, theirs]) {
      git(root, ['init', '-q', '-b', 'main', dir]);
      git(dir, ['config', 'receive.denyCurrentBranch', 'updateInstead']);
    }
    const work = workRepo(root, 'empty-work', 2);
    const r = both({ ts, git: theirs, work }, ['<url>', 'main']);
    assert.equal(r.status, 0, r.stderr);
    const ours = snapshot(ts);
    assert.deepEqual(ours, snapshot(theirs));
    assert.equal(ours.status, '');
    assert.ok(ours.files.length > 0);
  });

  test('a linked work tree\'s branch updates that work tree, with its own index', () => {
    const t = targets('linked', [['worktree', 'add', '-q', 'linked-wt', 'side']]);
    git(t.work, ['checkout', '-q', 'side']);
    const wt = (dir: string) => path.join(dir, 'linked-wt');
    for (const dir of [t.ts, t.git]) fs.appendFileSync(path.join(wt(dir), 'shared.txt'), 'local\n');
    const pushed = change(t.work);
    const refused = both(t, ['<url>', 'side']);
    assert.match(refused.porcelain, /\[remote rejected\] \(Working directory has unstaged changes\)/);
    assert.deepEqual(snapshot(wt(t.ts)), snapshot(wt(t.git)));
    for (const dir of [t.ts, t.git]) git(wt(dir), ['checkout', '--', 'shared.txt']);
    const mainTree = () => { const m = snapshot(t.ts); return { ...m, files: m.files.filter((f) => !f.startsWith('linked-wt/')) }; };
    const main = mainTree();
    const r = both(t, ['<url>', 'side']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(git(t.ts, ['rev-parse', 'refs/heads/side']).trim(), pushed);
    const ours = snapshot(wt(t.ts));
    assert.deepEqual(ours, snapshot(wt(t.git)));
    assert.equal(ours.status, '');
    assert.ok(ours.files.includes('new/deep/x.txt - new file\n'));
    assert.deepEqual(mainTree(), main, 'the main work tree is not touched');
  });

  test('pushed to a linked work tree, the main work tree\'s branch updates the main work tree', () => {
    const t = targets('main-from-linked', [['worktree', 'add', '-q', 'linked-wt', 'side']]);
    const wt = (dir: string) => path.join(dir, 'linked-wt');
    const linkedBefore = snapshot(wt(t.ts));
    const pushed = change(t.work);
    const r = both({ ...t, ts: wt(t.ts), git: wt(t.git) }, ['<url>', 'main']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(head(t.ts), pushed);
    const mainTree = (dir: string) => { const m = snapshot(dir); return { ...m, files: m.files.filter((f) => !f.startsWith('linked-wt/')) }; };
    const ours = mainTree(t.ts);
    assert.deepEqual(ours, mainTree(t.git));
    assert.equal(ours.status, '?? linked-wt/\n', 'clean, but for the linked work tree inside it');
    assert.ok(ours.files.includes('new/deep/x.txt - new file\n'));
    assert.deepEqual(snapshot(wt(t.ts)), linkedBefore, 'the linked work tree is not touched');
  });
});
