// Linked work trees (`git worktree add`): tsgit run inside one must see what git sees there (its
// own HEAD, index and refs/worktree/, everything else from the common directory), and write each
// file where git would: HEAD, the index and FETCH_HEAD into `<common>/worktrees/<id>`, refs and
// objects into the common directory. git, run in the same place, is the oracle.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Repository } from '../src/index.js';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, TSGIT, tsgit } from './helpers.js';
import { assertSameAsGit } from './cli-batch.js';

describe('linked work trees', () => {
  let root: string, main: string, linked: string, detached: string, common: string;
  /** The linked work trees' own git directories. */
  let linkedDir: string, detachedDir: string;
  /** The commit only the detached work tree's HEAD reaches. */
  let detachedOnly: string;

  before(() => {
    root = fs.realpathSync(tmpDir('tsgit-linked-wt-'));
    main = makeRepo(5, { at: path.join(root, 'main') });
    common = path.join(main, '.git');
    git(main, ['branch', 'other', 'main~2']);
    linked = path.join(root, 'linked');
    detached = path.join(root, 'detached');
    git(main, ['worktree', 'add', '-q', '-b', 'wt', linked, 'main~1']);
    git(main, ['worktree', 'add', '-q', '--detach', detached, 'main~3']);
    linkedDir = path.join(common, 'worktrees', 'linked');
    detachedDir = path.join(common, 'worktrees', 'detached');
    fs.writeFileSync(path.join(detached, 'only-here.txt'), 'detached\n');
    git(detached, ['add', 'only-here.txt']);
    git(detached, ['commit', '-q', '-m', 'only in the detached work tree']);
    detachedOnly = git(detached, ['rev-parse', 'HEAD']).trim();
  });
  after(() => rmrf(root));

  /** tsgit's stdout, which must have succeeded and say what git's does in the same place. */
  const same = (dir: string, args: string[], env = GIT_ENV): string => {
    const r = tsgit(dir, args, undefined, env);
    assert.equal(r.status, 0, `tsgit ${args.join(' ')} in ${dir}: ${r.stderr}`);
    assert.equal(r.stdout.toString(), git(dir, args, undefined, env), `tsgit ${args.join(' ')} in ${dir}`);
    return r.stdout.toString();
  };
  const read = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'latin1') : null);

  test('reading commands see what git sees, in each work tree and below its top', () => {
    const commands = [
      ['rev-parse', 'HEAD'], ['rev-parse', '--git-dir'], ['rev-parse', '--git-common-dir'], ['rev-parse', '--absolute-git-dir'],
      ['rev-parse', '--show-toplevel'], ['show-ref'], ['show-ref', '--head'], ['rev-list', '--all'], ['rev-list', 'HEAD'],
      ['cat-file', '-p', 'HEAD'], ['ls-tree', 'HEAD'], ['ls-tree', '-r', 'HEAD'],
    ];
    // In each work tree, and below the top (where ls-tree lists that directory, relative to it).
    const dirs = [linked, detached, main, path.join(linked, 'dir1'), path.join(main, 'dir1')];
    assertSameAsGit(dirs.flatMap((cwd) => commands.map((args) => ({ cwd, args }))), { stderr: 'always', spawnSome: true });
    // Each work tree has its own HEAD, and --all takes in the other work trees' HEADs, as git's.
    assert.equal(same(linked, ['rev-parse', 'HEAD']).trim(), git(main, ['rev-parse', 'main~1']).trim());
    assert.equal(same(detached, ['rev-parse', 'HEAD']).trim(), detachedOnly);
    assert.match(same(linked, ['rev-list', '--all']), new RegExp(`^${detachedOnly}$`, 'm'));
    assert.equal(same(linked, ['rev-parse', '--git-dir']).trim(), linkedDir);
    assert.equal(same(linked, ['rev-parse', '--git-common-dir']).trim(), common);
    assert.equal(same(main, ['rev-parse', '--git-common-dir']).trim(), '.git');
  });

  test('Repository.discover gives a linked work tree its own git directory and the common one', () => {
    const repo = Repository.discover(path.join(linked, 'dir1'), GIT_ENV);
    try {
      assert.equal(repo.gitDir, linkedDir);
      assert.equal(repo.commonDir, common);
      assert.equal(repo.workTree, linked);
      assert.deepEqual(repo.refs.head(), { symref: 'refs/heads/wt', oid: git(main, ['rev-parse', 'main~1']).trim() });
      assert.equal(repo.config.path, path.join(common, 'config'));
    } finally {
      repo.close();
    }
    const ordinary = Repository.discover(main, GIT_ENV);
    try {
      assert.equal(ordinary.gitDir, common);
      assert.equal(ordinary.commonDir, common);
    } finally {
      ordinary.close();
    }
  });

  test('$GIT_DIR may name a work tree\'s git directory, and $GIT_COMMON_DIR overrides its commondir', () => {
    same(linked, ['rev-parse', '--git-dir', '--git-common-dir', 'HEAD'], { ...GIT_ENV, GIT_DIR: linkedDir });
    same(linked, ['show-ref'], { ...GIT_ENV, GIT_DIR: linkedDir });
    // A git directory with only a HEAD is a repository through $GIT_COMMON_DIR: objects and
    // config come from there, but not refs, which git's files backend takes from the `commondir`
    // file alone (files_ref_store_init), so HEAD names a branch it cannot find.
    const headOnly = path.join(root, 'head-only');
    fs.mkdirSync(headOnly);
    fs.writeFileSync(path.join(headOnly, 'HEAD'), 'ref: refs/heads/other\n');
    const env = { ...GIT_ENV, GIT_DIR: headOnly, GIT_COMMON_DIR: common };
    assert.equal(same(root, ['rev-parse', '--git-dir', '--git-common-dir'], env), `${headOnly}\n${common}\n`);
    const commit = git(main, ['rev-parse', 'other']).trim();
    assert.equal(same(root, ['cat-file', '-t', commit], env), 'commit\n');
    const showRef = tsgit(root, ['show-ref'], undefined, env);
    assert.equal(showRef.status, spawnSync('git', ['show-ref'], { cwd: root, env }).status);
    assert.equal(showRef.stdout.toString(), '');
    const without = tsgit(root, ['rev-parse', '--git-dir'], undefined, { ...GIT_ENV, GIT_DIR: headOnly });
    assert.equal(without.status, 128);
    assert.match(without.stderr.toString(), /not a git repository/);
  });

  test('a ref under refs/worktree/ is seen only in the work tree that made it', () => {
    git(linked, ['update-ref', 'refs/worktree/mine', 'main~4']);
    git(main, ['update-ref', 'refs/worktree/main-own', 'main~3']);
    git(linked, ['update-ref', 'refs/bisect/bad', 'main~2']);
    assert.ok(fs.existsSync(path.join(linkedDir, 'refs', 'worktree', 'mine')));
    const inLinked = same(linked, ['show-ref']);
    assert.match(inLinked, / refs\/worktree\/mine$/m);
    assert.match(inLinked, / refs\/bisect\/bad$/m);
    assert.doesNotMatch(inLinked, /main-own/);
    const inMain = same(main, ['show-ref']);
    assert.match(inMain, / refs\/worktree\/main-own$/m);
    assert.doesNotMatch(inMain, /refs\/worktree\/mine|refs\/bisect/);
    assert.doesNotMatch(same(detached, ['show-ref']), /refs\/worktree|refs\/bisect/);
    assert.equal(same(linked, ['rev-parse', 'refs/worktree/mine']).trim(), git(main, ['rev-parse', 'main~4']).trim());
    for (const dir of [main, detached]) {
      assert.notEqual(tsgit(dir, ['rev-parse', '--verify', '-q', 'refs/worktree/mine']).status, 0);
      assert.notEqual(spawnSync('git', ['rev-parse', '--verify', '-q', 'refs/worktree/mine'], { cwd: dir, env: GIT_ENV }).status, 0);
    }
  });

  test('checkout switches the linked work tree only, and refuses a branch another work tree has', () => {
    const mainHead = read(path.join(common, 'HEAD')), mainIndex = read(path.join(common, 'index'));
    const mainLog = read(path.join(common, 'logs', 'HEAD'));
    const linkedIndex = read(path.join(linkedDir, 'index'));

    const r = tsgit(linked, ['checkout', '-q', 'other']);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(git(linked, ['status', '--porcelain', '--untracked-files=all']), '');
    assert.equal(git(linked, ['symbolic-ref', 'HEAD']), 'refs/heads/other\n');
    assert.equal(read(path.join(linkedDir, 'HEAD')), 'ref: refs/heads/other\n');
    assert.notEqual(read(path.join(linkedDir, 'index')), linkedIndex);
    assert.match(read(path.join(linkedDir, 'logs', 'HEAD'))!, /\tcheckout: moving from wt to other\n$/);
    // The main work tree is as it was.
    assert.equal(read(path.join(common, 'HEAD')), mainHead);
    assert.equal(read(path.join(common, 'index')), mainIndex);
    assert.equal(read(path.join(common, 'logs', 'HEAD')), mainLog);
    assert.equal(git(main, ['status', '--porcelain', '--untracked-files=all']), '');
    assert.equal(git(main, ['symbolic-ref', 'HEAD']), 'refs/heads/main\n');

    // main is the main work tree's: git and tsgit refuse it alike, and nothing moves.
    const ours = tsgit(linked, ['checkout', 'main']);
    const theirs = spawnSync('git', ['checkout', 'main'], { cwd: linked, env: GIT_ENV });
    assert.equal(ours.status, theirs.status);
    assert.equal(ours.stderr.toString(), theirs.stderr.toString());
    assert.equal(ours.stderr.toString(), `fatal: 'main' is already checked out at '${main}'\n`);
    assert.equal(git(linked, ['symbolic-ref', 'HEAD']), 'refs/heads/other\n');
    // And the other way round: wt is no longer checked out anywhere, other is the linked tree's.
    const fromMain = tsgit(main, ['checkout', 'other']);
    assert.equal(fromMain.status, 128);
    assert.equal(fromMain.stderr.toString(), `fatal: 'other' is already checked out at '${linked}'\n`);

    // A detached work tree moves to another commit; its HEAD file stays an id.
    const target = git(main, ['rev-parse', 'main~4']).trim();
    const d = tsgit(detached, ['checkout', '-q', target]);
    assert.equal(d.status, 0, d.stderr.toString());
    assert.equal(read(path.join(detachedDir, 'HEAD')), `${target}\n`);
    assert.equal(git(detached, ['status', '--porcelain']), '');
    assert.equal(read(path.join(common, 'HEAD')), mainHead);
    assert.equal(read(path.join(common, 'index')), mainIndex);
    git(detached, ['checkout', '-q', detachedOnly]);
  });

  test('fetch in a linked work tree updates the common refs and writes FETCH_HEAD in its own directory', () => {
    const remote = path.join(root, 'remote.git');
    git(root, ['clone', '-q', '--bare', main, remote]);
    const up = path.join(root, 'up');
    git(root, ['clone', '-q', remote, up]);
    fs.writeFileSync(path.join(up, 'fetched.txt'), 'new\n');
    git(up, ['add', 'fetched.txt']);
    git(up, ['commit', '-q', '-m', 'to fetch']);
    git(up, ['push', '-q', 'origin', 'HEAD:refs/heads/main', 'HEAD:refs/heads/topic']);
    const pushed = git(up, ['rev-parse', 'HEAD']).trim();
    git(main, ['remote', 'add', 'origin', remote]);

    const r = tsgit(linked, ['fetch', '-q', 'origin']);
    assert.equal(r.status, 0, r.stderr.toString());
    // Seen from the main work tree too: the refs and objects are the common directory's.
    assert.equal(git(main, ['rev-parse', 'refs/remotes/origin/main', 'refs/remotes/origin/topic']), `${pushed}\n${pushed}\n`);
    assert.equal(git(main, ['cat-file', '-t', pushed]), 'commit\n');
    assert.equal(fs.existsSync(path.join(linkedDir, 'refs', 'remotes')), false);
    assert.equal(fs.existsSync(path.join(common, 'FETCH_HEAD')), false);
    const fetchHead = read(path.join(linkedDir, 'FETCH_HEAD'));
    assert.ok(fetchHead?.includes(pushed), `FETCH_HEAD: ${fetchHead}`);
    // git, fetching the same in the same place, writes the same file in the same place.
    git(linked, ['fetch', '-q', 'origin']);
    assert.equal(read(path.join(linkedDir, 'FETCH_HEAD')), fetchHead);
    assert.equal(fs.existsSync(path.join(common, 'FETCH_HEAD')), false);
  });

  test('upload-pack opens a work tree named by its top, through its .git gitfile, as git\'s enter_repo', () => {
    const uploadPack = `${process.execPath} ${TSGIT} upload-pack`;
    for (const url of [linked, detached, main, linkedDir, path.join(linked, '.git')]) {
      const ours = spawnSync('git', ['ls-remote', `--upload-pack=${uploadPack}`, url], { cwd: root, env: GIT_ENV, encoding: 'utf8' });
      assert.equal(ours.status, 0, `${url}: ${ours.stderr}`);
      assert.equal(ours.stdout, git(root, ['ls-remote', url]), url);
    }
  });

  test('repack -ad in a linked work tree keeps what only another work tree\'s HEAD reaches', () => {
    // In a pack, not loose (git keeps it: it sees every work tree's HEAD), and in no reflog, so
    // only the detached work tree's HEAD holds it.
    git(main, ['repack', '-adq']);
    rmrf(path.join(detachedDir, 'logs'));
    assert.equal(fs.existsSync(path.join(common, 'objects', detachedOnly.slice(0, 2), detachedOnly.slice(2))), false);
    const r = tsgit(linked, ['repack', '-adq']);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(git(detached, ['cat-file', '-t', 'HEAD']), 'commit\n');
    git(main, ['fsck', '--no-dangling', '--no-progress']);
    assert.equal(git(detached, ['status', '--porcelain']), '');
    // Nothing of the linked work tree's own went into the common directory, nor the other way.
    assert.equal(fs.existsSync(path.join(linkedDir, 'objects')), false);
    assert.equal(fs.existsSync(path.join(linkedDir, 'packed-refs')), false);
  });
});
