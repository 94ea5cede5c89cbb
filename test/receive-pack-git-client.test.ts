// git-core pushes to `tsgit receive-pack` over stdio (--receive-pack), each push made twice: to a
// repository served by tsgit and to an identical one served by git's own receive-pack. What git's
// client reports (--porcelain: one line per ref with its flag and reason), its exit status and the
// refs afterwards must be the same, and `git fsck --full` must be clean on tsgit's side.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';
import { assertFsck, commits, nonBareTargets, push, pushBoth, Twins, workRepo, type NonBareTargets } from './push-helpers.js';

describe('git push to tsgit receive-pack, side by side with git receive-pack', () => {
  let root: string, work: string, twins: Twins;
  before(() => {
    root = tmpDir('tsgit-rp-');
    work = workRepo(root, 'work', 3);
    git(work, ['branch', 'side']);
    git(work, ['tag', '-a', '-m', 'one', 'v1']);
    const seed = path.join(root, 'seed.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', seed]);
    twins = new Twins(root, seed);
  });
  after(() => rmrf(root));

  test('create branches and tags into an empty repository', () => {
    const r = twins.push(work, ['<url>', 'main', 'side', 'v1']);
    assert.equal(r.status, 0);
    for (const dir of [twins.ts, twins.git]) assert.ok(!fs.existsSync(path.join(dir, 'logs', 'refs', 'heads', 'main')), 'no reflog in a bare repository');
    assert.match(r.porcelain, /\*\trefs\/heads\/main:refs\/heads\/main\t\[new branch\]/);
  });

  test('one ref sent twice to an empty repository: the second fails at its lock, as in git', () => {
    // git push sends both only where the remote has no ref at all; git's receive-pack updates each
    // ref in a transaction of its own, so the second meets the first's ref ("remote: error: cannot
    // lock ref 'refs/heads/twice': reference already exists").
    const apart = path.join(root, 'twice');
    const seed = path.join(apart, 'seed.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', seed]);
    const pair = new Twins(apart, seed);
    const args = ['<url>', 'main:refs/heads/twice', 'main:refs/heads/twice'];
    const ours = push(work, pair.ts, args, true), theirs = push(work, pair.git, args, false);
    assert.equal(ours.status, 1);
    assert.equal(ours.status, theirs.status);
    assert.equal(ours.porcelain, theirs.porcelain);
    const remoteLines = (text: string) => text.split('\n').filter((l) => l.startsWith('remote: '));
    assert.deepEqual(remoteLines(ours.stderr), remoteLines(theirs.stderr));
    assert.match(ours.stderr, /remote: error: cannot lock ref 'refs\/heads\/twice': reference already exists/);
  });

  test('update (a thin pack against what the server has), then nothing to do', () => {
    commits(work, 4, 'update');
    assert.equal(twins.push(work, ['<url>', 'main']).status, 0);
    assert.match(twins.push(work, ['<url>', 'main']).porcelain, /=\trefs\/heads\/main:refs\/heads\/main\t\[up to date\]/);
  });

  test('a push of 150 objects is kept as a pack; of a few, as loose objects', () => {
    const packs = () => fs.readdirSync(path.join(twins.ts, 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length;
    const before = packs();
    commits(work, 50, 'many');
    twins.push(work, ['<url>', 'main']);
    assert.equal(packs(), before + 1);
    assert.ok(!fs.readdirSync(path.join(twins.ts, 'objects', 'pack')).some((n) => n.endsWith('.keep')), 'the .keep is gone once the refs are written');
    const loose = looseObjects(twins.ts).length, gitLoose = looseObjects(twins.git).length;
    commits(work, 1, 'few');
    twins.push(work, ['<url>', 'main']);
    assert.equal(packs(), before + 1, 'a few objects make no pack');
    const added = looseObjects(twins.ts).length - loose;
    assert.ok(added > 0, 'they are loose objects');
    assert.equal(added, looseObjects(twins.git).length - gitLoose, 'as many as git receive-pack leaves loose');
  });

  test('loose objects are compressed at core.loosecompression\'s level (git\'s 1 unset), and a bad level is git\'s fatal error', () => {
    // The zlib header's second byte names the level's class: 0x01 for level 1, 0xda for 7-9.
    const levelsOfNew = (dir: string, before: string[]) => looseObjects(dir).filter((o) => !before.includes(o))
      .map((o) => fs.readFileSync(path.join(dir, 'objects', o))[1]!.toString(16)).sort();
    for (const [setting, byte] of [[undefined, '1'], ['9', 'da']] as const) {
      if (setting) twins.config('core.looseCompression', setting);
      const before = { ts: looseObjects(twins.ts), git: looseObjects(twins.git) };
      commits(work, 1, `level-${setting ?? 'unset'}`);
      assert.equal(twins.push(work, ['<url>', 'main']).status, 0);
      const ours = levelsOfNew(twins.ts, before.ts);
      assert.ok(ours.length > 0 && ours.every((b) => b === byte), `core.looseCompression ${setting ?? 'unset'}: ${ours.join(' ')}`);
      assert.deepEqual(ours, levelsOfNew(twins.git, before.git));
    }
    // git itself dies of it too (twins.push's own checks would), so each side is pushed alone.
    twins.config('core.looseCompression', '10');
    try {
      commits(work, 1, 'level-10');
      const ours = push(work, twins.ts, ['<url>', 'main'], true), theirs = push(work, twins.git, ['<url>', 'main'], false);
      assert.equal(ours.status, theirs.status);
      assert.equal(ours.porcelain, theirs.porcelain);
      for (const r of [ours, theirs]) assert.match(r.stderr, /fatal: bad zlib compression level 10/);
    } finally {
      twins.config('--unset', 'core.looseCompression');
    }
    assert.equal(twins.push(work, ['<url>', 'main']).status, 0);
  });

  test('delete a branch, and a deletion-only push sends no pack', () => {
    const objects = looseObjects(twins.ts).concat(fs.readdirSync(path.join(twins.ts, 'objects', 'pack')));
    const r = twins.push(work, ['<url>', ':side']);
    assert.equal(r.status, 0);
    assert.match(r.porcelain, /-\t:refs\/heads\/side\t\[deleted\]/);
    assert.deepEqual(looseObjects(twins.ts).concat(fs.readdirSync(path.join(twins.ts, 'objects', 'pack'))), objects, 'no object and no pack arrived');
  });

  test('non-fast-forward: refused by the client, forced, then refused by receive.denyNonFastForwards', () => {
    git(work, ['reset', '-q', '--hard', 'HEAD~2']);
    commits(work, 1, 'diverged');
    assert.notEqual(twins.push(work, ['<url>', 'main']).status, 0);
    assert.equal(twins.push(work, ['--force', '<url>', 'main']).status, 0);
    twins.config('receive.denyNonFastForwards', 'true');
    git(work, ['reset', '-q', '--hard', 'HEAD~1']);
    commits(work, 1, 'diverged-again');
    const r = twins.push(work, ['--force', '<url>', 'main']);
    assert.match(r.porcelain, /!\trefs\/heads\/main:refs\/heads\/main\t\[remote rejected\] \(non-fast-forward\)/);
    assert.match(r.stderr, /remote: error: denying non-fast-forward refs\/heads\/main/);
    twins.config('--unset', 'receive.denyNonFastForwards');
    twins.push(work, ['--force', '<url>', 'main']);
  });

  test('receive.denyDeletes', () => {
    twins.push(work, ['<url>', 'main:refs/heads/doomed']);
    twins.config('receive.denyDeletes', 'true');
    const r = twins.push(work, ['<url>', ':doomed']);
    assert.match(r.porcelain, /\(deletion prohibited\)/);
    twins.config('--unset', 'receive.denyDeletes');
    twins.push(work, ['<url>', ':doomed']);
  });

  test('--atomic with one failing ref updates none; without it the others go through', () => {
    twins.hook('update', 'case "$1" in refs/heads/blocked) echo "no pushes to $1" >&2; exit 1;; esac; exit 0');
    commits(work, 1, 'atomic');
    const atomic = twins.push(work, ['--atomic', '<url>', 'main', 'main:refs/heads/blocked']);
    assert.notEqual(atomic.status, 0);
    assert.match(atomic.porcelain, /\(hook declined\)/);
    assert.match(atomic.porcelain, /\(atomic push failure\)/);
    const each = twins.push(work, ['<url>', 'main', 'main:refs/heads/blocked']);
    assert.match(each.porcelain, / \trefs\/heads\/main:refs\/heads\/main\t/);
    assert.match(each.porcelain, /\(hook declined\)/);
    fs.rmSync(path.join(twins.ts, 'hooks', 'update'));
    fs.rmSync(path.join(twins.git, 'hooks', 'update'));
  });

  test('--force-with-lease: a stale expectation is refused', () => {
    const old = git(work, ['rev-parse', 'HEAD~1']).trim();
    commits(work, 1, 'lease');
    const stale = twins.push(work, [`--force-with-lease=main:${old}`, '<url>', 'main']);
    assert.match(stale.porcelain, /\[rejected\] \(stale info\)/);
    const current = git(twins.ts, ['rev-parse', 'main']).trim();
    assert.equal(twins.push(work, [`--force-with-lease=main:${current}`, '<url>', 'main']).status, 0);
  });

  test('funny ref names are refused', () => {
    const r = twins.push(work, ['<url>', 'main:refs/foo']);
    assert.match(r.porcelain, /\(funny refname\)/);
  });

  test('a branch points only at a commit: a tag or a tree pushed to refs/heads/ is refused as git refuses it', () => {
    // git's ref backend refuses it when the transaction commits: "failed to update ref" beside a
    // ref that goes through, "atomic transaction failed" for every ref of an atomic push.
    commits(work, 1, 'not-a-commit');
    for (const args of [['<url>', 'v1:refs/heads/tag-branch'], ['<url>', 'main^{tree}:refs/heads/tree-branch'],
      ['<url>', 'main', 'v1:refs/heads/tag-branch'], ['--atomic', '<url>', 'main', 'v1:refs/heads/tag-branch'],
      ['<url>', 'v1:refs/other/tag']]) {
      const r = twins.push(work, args);
      if (args.some((a) => a.includes('refs/heads/'))) assert.match(r.stderr, /remote: error: cannot update ref 'refs\/heads\/(tag|tree)-branch': trying to write non-commit object [0-9a-f]{40} to branch/);
    }
    assert.equal(git(twins.ts, ['for-each-ref', 'refs/heads/tag-branch', 'refs/heads/tree-branch']), '');
    twins.push(work, ['<url>', ':refs/other/tag']);
  });

  test('receive.hideRefs: hidden refs are not advertised and cannot be updated', () => {
    twins.push(work, ['<url>', 'main:refs/hidden/x']);
    twins.config('receive.hideRefs', 'refs/hidden');
    const r = twins.push(work, ['--force', '<url>', 'HEAD~1:refs/hidden/x']);
    assert.match(r.porcelain, /\(deny updating a hidden ref\)/);
    twins.config('--unset', 'receive.hideRefs');
  });

  test('push options need the capability, and git says so when it is off', () => {
    twins.config('receive.advertisePushOptions', 'true');
    twins.hook('pre-receive', 'echo "options: $GIT_PUSH_OPTION_COUNT $GIT_PUSH_OPTION_0 $GIT_PUSH_OPTION_1"; cat >/dev/null');
    commits(work, 1, 'options');
    const r = twins.push(work, ['-o', 'first', '-o', 'second value', '<url>', 'main']);
    assert.match(r.stderr, /remote: options: 2 first second value/);
    twins.config('receive.advertisePushOptions', 'false');
    const refused = push(work, twins.ts, ['-o', 'x', '<url>', 'main'], true);
    assert.match(refused.stderr, /the receiving end does not support push options/);
    fs.rmSync(path.join(twins.ts, 'hooks', 'pre-receive'));
    fs.rmSync(path.join(twins.git, 'hooks', 'pre-receive'));
    twins.config('--unset', 'receive.advertisePushOptions');
  });

  test('protocol v1 and v2 requests are answered (v2 falls back to v0, as in git)', () => {
    commits(work, 1, 'versions');
    for (const v of ['1', '2']) {
      const env = { ...GIT_ENV, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'protocol.version', GIT_CONFIG_VALUE_0: v };
      git(work, ['commit', '-q', '--allow-empty', '-m', `v${v}`]);
      assert.equal(twins.push(work, ['<url>', 'main'], env).status, 0);
    }
  });
});

describe('pushing into a non-bare repository', () => {
  let root: string;
  before(() => { root = tmpDir('tsgit-rp-nonbare-'); });
  after(() => rmrf(root));

  test('the checked-out branch is refused with git\'s explanation, other branches are not', () => {
    const target = workRepo(root, 'target', 1);
    const work = path.join(root, 'w');
    git(root, ['clone', '-q', target, work]);
    commits(work, 1, 'more');
    const r = push(work, target, ['<url>', 'main', 'main:other'], true);
    assert.match(r.porcelain, /!\trefs\/heads\/main:refs\/heads\/main\t\[remote rejected\] \(branch is currently checked out\)/);
    assert.match(r.porcelain, /\*\trefs\/heads\/main:refs\/heads\/other\t\[new branch\]/);
    assert.match(r.stderr, /remote: error: refusing to update checked out branch: refs\/heads\/main/);
    assert.match(r.stderr, /receive\.denyCurrentBranch/);
    // A non-bare repository logs ref updates (core.logAllRefUpdates' default), a bare one does not.
    assert.match(git(target, ['reflog', 'show', '--format=%gs', 'refs/heads/other']), /^push\n$/);
    git(target, ['config', 'receive.denyCurrentBranch', 'ignore']);
    assert.equal(push(work, target, ['<url>', 'main'], true).status, 0);
    assertFsck(target);
  });
});

describe('pushing into a non-bare repository, side by side with git receive-pack', () => {
  let root: string;
  before(() => { root = tmpDir('tsgit-rp-nonbare-twins-'); });
  after(() => rmrf(root));

  const targets = (name: string, setup: string[][]): NonBareTargets => nonBareTargets(root, name, setup);
  const both = pushBoth;

  test('deleting the checked-out branch meets receive.denyCurrentBranch before receive.denyDeleteCurrent', () => {
    for (const [current, deleteCurrent, reason] of [
      [null, null, 'branch is currently checked out'], [null, 'warn', 'branch is currently checked out'],
      ['refuse', 'ignore', 'branch is currently checked out'], ['ignore', null, 'deletion of the current branch prohibited'],
      ['updateInstead', null, 'deletion of the current branch prohibited'], ['ignore', 'ignore', null],
      // Allowed by both rules, the deletion then fails to check out the zero id.
      ['updateInstead', 'ignore', 'Could not update working tree to new HEAD'],
    ] as const) {
      const setup = [...(current ? [['config', 'receive.denyCurrentBranch', current]] : []),
        ...(deleteCurrent ? [['config', 'receive.denyDeleteCurrent', deleteCurrent]] : [])];
      const t = targets(`delete-${current}-${deleteCurrent}`, setup);
      const r = both(t, ['<url>', ':main']);
      if (reason) assert.match(r.porcelain, new RegExp(`\\[remote rejected\\] \\(${reason}\\)`), `${current}/${deleteCurrent}`);
      else assert.match(r.porcelain, /\[deleted\]/);
    }
  });

  test('the hooks of a push run in the git directory with GIT_DIR=., as git runs them (githooks(5))', () => {
    const t = targets('hook-dir', []);
    const names = ['pre-receive', 'update', 'post-receive', 'post-update'];
    for (const dir of [t.ts, t.git]) {
      const hook = `#!/bin/sh\necho "$(basename "$0") in $(pwd | sed "s#^${dir}#<repo>#") GIT_DIR=$GIT_DIR" >> ${dir}.log\n`;
      for (const name of names) fs.writeFileSync(path.join(dir, '.git', 'hooks', name), hook, { mode: 0o755 });
    }
    commits(t.work, 1, 'hooked');
    both(t, ['<url>', 'HEAD:refs/heads/hooked']);
    const log = (dir: string) => fs.readFileSync(`${dir}.log`, 'utf8');
    assert.equal(log(t.git), names.map(n => `${n} in <repo>/.git GIT_DIR=.\n`).join(''), 'git\'s own');
    assert.equal(log(t.ts), log(t.git));
  });

  test('a branch a linked work tree has checked out is protected as the main one\'s is', () => {
    const t = targets('linked', [['worktree', 'add', '-q', 'linked-wt', 'side']]);
    git(t.work, ['checkout', '-q', 'side']);
    commits(t.work, 1, 'to-linked');
    const r = both(t, ['<url>', 'side']);
    assert.match(r.porcelain, /\[remote rejected\] \(branch is currently checked out\)/);
    assert.match(both(t, ['<url>', ':side']).porcelain, /\[remote rejected\] \(branch is currently checked out\)/);
    // A detached linked work tree holds no branch.
    for (const dir of [t.ts, t.git]) git(path.join(dir, 'linked-wt'), ['checkout', '-q', '--detach']);
    assert.match(both(t, ['<url>', 'side']).porcelain, /^ \trefs\/heads\/side:refs\/heads\/side\t/m);
  });

  test('pushed to a linked work tree, the main work tree\'s branch is protected as well as the linked one\'s', () => {
    const t = targets('into-linked', [['worktree', 'add', '-q', 'linked-wt', 'side']]);
    // The url is the linked work tree's top: receive-pack runs in <common>/worktrees/linked-wt.
    const linked = { ...t, ts: path.join(t.ts, 'linked-wt'), git: path.join(t.git, 'linked-wt') };
    const pushed = commits(t.work, 1, 'to-main');
    const before = git(t.ts, ['rev-parse', 'main']);
    for (const spec of [`${pushed}:main`, `${pushed}:side`, ':main']) {
      const r = both(linked, ['<url>', spec]);
      assert.equal(r.status, 1, spec);
      assert.match(r.porcelain, /^!\t[^\t]*\t\[remote rejected\] \(branch is currently checked out\)$/m, spec);
      assert.match(r.stderr, /remote: error: refusing to update checked out branch: refs\/heads\/(main|side)/, spec);
    }
    assert.equal(git(t.ts, ['rev-parse', 'main']), before);
    // A branch no work tree has checked out is taken.
    assert.match(both(linked, ['<url>', `${pushed}:refs/heads/other`]).porcelain, /\[new branch\]/);
  });
});

/** The loose objects of a repository, as xx/yyyy names. */
function looseObjects(gitDir: string): string[] {
  const objects = path.join(gitDir, 'objects');
  return fs.readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d)).flatMap((d) => fs.readdirSync(path.join(objects, d)).map((f) => `${d}/${f}`)).sort();
}
