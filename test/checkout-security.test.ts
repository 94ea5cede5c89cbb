// Checkout of hostile trees: every malicious branch of libgit2's `nasty` fixture, and one tree per
// rule of security.md ("Tree entries", "Writing the work tree"), built byte by byte. A refusal
// must name the path and the rule, and leave the work tree, the repository and everything around
// them exactly as they were: no file, no directory, no index.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { TsgitSession } from './cli-batch.js';
import { FIXTURES, git, gitBuf, rmrf, tmpDir, tsgit as spawnTsgit } from './helpers.js';

// The checkouts run through the CLI in one process (cli-batch.ts's session: a fresh process for
// each of some 150 checkouts cost most of this file's time); the first refusal of the nasty
// fixture is also made by a spawned bin/tsgit, which must say the same.
let session: TsgitSession;
before(() => { session = new TsgitSession(); });
after(() => session.stop());
const tsgit = (cwd: string, args: string[]) => session.run(cwd, args);

interface RawEntry { mode: string; name: string | Buffer; oid: string }

/** Writes a tree object with exactly these entries, in this order (no sorting, no checks). */
function rawTree(repo: string, entries: RawEntry[]): string {
  const body = Buffer.concat(entries.flatMap(e => [
    Buffer.from(`${e.mode} `), typeof e.name === 'string' ? Buffer.from(e.name) : e.name, Buffer.from([0]), Buffer.from(e.oid, 'hex'),
  ]));
  return gitBuf(repo, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], body).toString().trim();
}

/** Every path under `dir`, recursively, with sizes: a fingerprint of "nothing changed". */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string, rel: string): void => {
    for (const name of fs.readdirSync(p, { encoding: 'buffer' })) {
      const r = `${rel}/${name.toString('latin1')}`;
      const full = Buffer.concat([Buffer.from(p), Buffer.from('/'), name]);
      const st = fs.lstatSync(full);
      out.push(`${r} ${st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : st.size}`);
      if (st.isDirectory()) walk(full.toString('latin1') === full.toString() ? full.toString() : full.toString('latin1'), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/**
 * A sandbox: <box>/repo is a repository whose work tree holds only .git, <box>/outside a
 * directory a hostile tree might try to reach. Returns helpers to build trees and to check out.
 */
function sandbox() {
  const box = tmpDir('tsgit-checkout-sec-');
  const repo = path.join(box, 'repo');
  fs.mkdirSync(repo);
  fs.mkdirSync(path.join(box, 'outside'));
  git(repo, ['init', '-q', '-b', 'main', '.']);
  const blob = (data: string): string => git(repo, ['hash-object', '-w', '--stdin'], data).trim();
  const good = blob('harmless\n');
  const commit = (tree: string): string => git(repo, ['commit-tree', tree, '-m', 'hostile']).trim();
  return {
    box, repo, blob, good, commit,
    tree: (entries: RawEntry[]) => rawTree(repo, entries),
    /** Checks out `treeish` expecting a refusal matching `why`; asserts that nothing changed. */
    async refuses(commitId: string, why: RegExp, args: string[] = []): Promise<void> {
      const before = listing(box);
      const r = await tsgit(repo, ['checkout', '-q', ...args, commitId]);
      assert.equal(r.status, 1, `expected a refusal (git's unpack-trees status), got status ${r.status}: ${r.stderr}`);
      assert.match(r.stderr.toString(), why);
      assert.deepEqual(listing(box), before, 'the refused checkout changed something on disk');
    },
  };
}

test('every malicious branch of libgit2\'s nasty fixture is refused, leaving everything as it was', async () => {
  const box = tmpDir('tsgit-nasty-');
  try {
    const src = path.join(box, 'nasty.git');
    fs.cpSync(path.join(FIXTURES, 'nasty', '.gitted'), src, { recursive: true });
    const wt = path.join(box, 'wt');
    git(box, ['clone', '-q', '-n', src, wt]);
    const branches = git(src, ['for-each-ref', '--format=%(refname:short)', 'refs/heads']).trim().split('\n');
    assert.ok(branches.length > 40, `only ${branches.length} branches in the fixture`);
    const before = listing(box);
    let refused = 0;
    for (const b of branches) {
      if (b === 'master') continue;
      const r = await tsgit(wt, ['checkout', '-q', `origin/${b}`]);
      // Refused as git's unpack-trees refuses an invalid path: "error:", status 1.
      assert.equal(r.status, 1, `${b} was not refused: ${r.stderr}`);
      if (refused === 0) {
        const spawned = spawnTsgit(wt, ['checkout', '-q', `origin/${b}`]);
        assert.equal(spawned.status, r.status, `${b}: a spawned bin/tsgit exits ${spawned.status}`);
        assert.equal(spawned.stderr.toString(), r.stderr.toString(), `${b}: a spawned bin/tsgit says otherwise`);
      }
      assert.match(r.stderr.toString(), /^error: refusing to check out '.*': .* \((hasDotgit|hasDot|hasDotdot|fullPathname|gitmodulesSymlink|symlinkDirectoryCollision)\)/, b);
      assert.deepEqual(listing(box), before, `${b} left something behind`);
      refused++;
    }
    assert.equal(refused, branches.length - 1);
    // The one harmless branch checks out.
    const r = await tsgit(wt, ['checkout', '-q', 'origin/master']);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.deepEqual(fs.readdirSync(wt).sort(), ['.git', 'foobar']);
  } finally {
    rmrf(box);
  }
});

test('names: empty, ".", "..", and "/" inside a name', async () => {
  const s = sandbox();
  try {
    const sub = s.tree([{ mode: '100644', name: 'config', oid: s.good }]);
    const cases: [RawEntry[], RegExp][] = [
      [[{ mode: '100644', name: '', oid: s.good }], /emptyName/],
      [[{ mode: '100644', name: '.', oid: s.good }], /'\.' as a file name \(hasDot\)/],
      [[{ mode: '40000', name: '.', oid: sub }], /hasDot/],
      [[{ mode: '40000', name: '..', oid: sub }], /'\.\.' as a file name \(hasDotdot\)/],
      [[{ mode: '100644', name: '..', oid: s.good }], /hasDotdot/],
      [[{ mode: '100644', name: 'a/../../outside/x', oid: s.good }], /fullPathname/],
      [[{ mode: '100644', name: '/etc/passwd', oid: s.good }], /fullPathname/],
    ];
    for (const [entries, why] of cases) {
      // Behind a harmless first entry, so that a checkout writing as it walks would leave a trace.
      const tree = s.tree([{ mode: '100644', name: 'a-first', oid: s.good }, ...entries]);
      await s.refuses(s.commit(tree), why);
    }
  } finally {
    rmrf(s.box);
  }
});

test('.git in every spelling a filesystem may fold to it, as file or directory, at any depth', async () => {
  const s = sandbox();
  try {
    const hooks = s.tree([{ mode: '100755', name: 'post-checkout', oid: s.blob('#!/bin/sh\necho pwned\n') }]);
    const spellings = [
      '.git', '.GIT', '.Git', '.git.', '.git..', '.git ', '.git . ', 'GIT~1', 'git~1', 'git~2', 'Git~4',
      '.git::$INDEX_ALLOCATION', '.git:stream', '.git\\hooks', 'a\\.git', '.g\u200cit', '.gi\u200dt',
      '\u200e.git', '.git\u200f', '.\u202agit', '.g\u206ait', '\ufeff.git', '.G\u200dIT',
    ];
    for (const name of spellings) {
      for (const entry of [{ mode: '40000', name, oid: hooks }, { mode: '100644', name, oid: s.good }]) {
        const deep = s.tree([entry]);
        const root = s.tree([
          { mode: '100644', name: 'a-first', oid: s.good },
          { mode: '40000', name: 'z', oid: deep },
        ]);
        await s.refuses(s.commit(root), /refusing to check out 'z\/.*' .*\(hasDotgit\)/);
      }
    }
  } finally {
    rmrf(s.box);
  }
});

test('.gitmodules, .gitattributes, .gitignore and .mailmap may not be symlinks, in any spelling', async () => {
  const s = sandbox();
  try {
    const target = s.blob('../../outside/secret');
    const cases: [string, string][] = [
      ['.gitmodules', 'gitmodulesSymlink'], ['.GITMODULES', 'gitmodulesSymlink'], ['gitmod~1', 'gitmodulesSymlink'],
      ['gi7eba~1', 'gitmodulesSymlink'], ['.gitmodules.', 'gitmodulesSymlink'], ['.gitmodules::$DATA', 'gitmodulesSymlink'],
      ['.gitattributes', 'gitattributesSymlink'], ['gitatt~1', 'gitattributesSymlink'],
      ['.gitignore', 'gitignoreSymlink'], ['.GitIgnore', 'gitignoreSymlink'], ['.mailmap', 'mailmapSymlink'],
    ];
    for (const [name, rule] of cases) {
      const inner = s.tree([{ mode: '120000', name, oid: target }]);
      await s.refuses(s.commit(s.tree([{ mode: '120000', name, oid: target }])), new RegExp(`\\(${rule}\\)`));
      await s.refuses(s.commit(s.tree([{ mode: '40000', name: 'deep', oid: inner }])), new RegExp(`'deep/.*\\(${rule}\\)`));
    }
    // As regular files they are fine.
    const ok = s.commit(s.tree([{ mode: '100644', name: '.gitmodules', oid: s.good }]));
    const r = await tsgit(s.repo, ['checkout', '-q', ok]);
    assert.equal(r.status, 0, r.stderr.toString());
  } finally {
    rmrf(s.box);
  }
});

test('duplicate names and unsorted trees', async () => {
  const s = sandbox();
  try {
    const dir = s.tree([{ mode: '100644', name: 'x', oid: s.good }]);
    const link = s.blob('../outside');
    const cases: [RawEntry[], RegExp][] = [
      // A symlink "a" and a directory "a": writing a/x would go through the link.
      [[{ mode: '120000', name: 'a', oid: link }, { mode: '40000', name: 'a', oid: dir }], /'a'.*\((duplicateEntries|treeNotSorted)\)/],
      [[{ mode: '100644', name: 'a', oid: s.good }, { mode: '100644', name: 'a', oid: s.good }], /duplicateEntries/],
      [[{ mode: '40000', name: 'a', oid: dir }, { mode: '40000', name: 'a', oid: dir }], /duplicateEntries/],
      // Not adjacent: "a" < "a-b" < "a/" in tree order.
      [[{ mode: '120000', name: 'a', oid: link }, { mode: '100644', name: 'a-b', oid: s.good }, { mode: '40000', name: 'a', oid: dir }],
        /'a': the tree has a file and a directory of this name \(duplicateEntries\)/],
      [[{ mode: '100644', name: 'b', oid: s.good }, { mode: '100644', name: 'a', oid: s.good }], /'a'.*\(treeNotSorted\)/],
      [[{ mode: '40000', name: 'a', oid: dir }, { mode: '100644', name: 'a', oid: s.good }], /treeNotSorted/],
    ];
    for (const [entries, why] of cases) await s.refuses(s.commit(s.tree(entries)), why);
  } finally {
    rmrf(s.box);
  }
});

test('a symlink whose name folds to a directory\'s (case, HFS+ ignorables, trailing dots) is refused', async () => {
  const s = sandbox();
  try {
    const dir = s.tree([{ mode: '100644', name: 'hook', oid: s.good }]);
    const link = s.blob('../outside');
    for (const [linkName, dirName] of [['Docs', 'docs'], ['docs', 'DOCS'], ['do\u200ccs', 'docs'], ['docs.', 'docs'], ['caf\u00e9', 'cafe\u0301']]) {
      const entries = [{ mode: '120000', name: linkName, oid: link }, { mode: '40000', name: dirName, oid: dir }]
        .sort((a, b) => Buffer.compare(Buffer.from(a.name + (a.mode === '40000' ? '/' : '')), Buffer.from(b.name + (b.mode === '40000' ? '/' : ''))));
      await s.refuses(s.commit(s.tree(entries)), /symlinkDirectoryCollision/);
    }
    // Two regular entries that differ in case are legitimate (and common): they pass.
    const ok = s.commit(s.tree([{ mode: '100644', name: 'README', oid: s.good }, { mode: '100644', name: 'readme', oid: s.good }]));
    assert.equal((await tsgit(s.repo, ['checkout', '-q', ok])).status, 0);
  } finally {
    rmrf(s.box);
  }
});

test('modes other than file, executable, symlink, directory and submodule are refused; 100664 reads as 100644', async () => {
  const s = sandbox();
  try {
    for (const mode of ['100600', '100777', '100000', '140000', '20000', '60644', '170000']) {
      await s.refuses(s.commit(s.tree([{ mode, name: 'f', oid: s.good }])), /\(badFilemode\)/);
    }
    const ok = s.commit(s.tree([{ mode: '100664', name: 'f', oid: s.good }]));
    const r = await tsgit(s.repo, ['checkout', '-q', ok]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(fs.statSync(path.join(s.repo, 'f')).mode & 0o111, 0);
    assert.equal(git(s.repo, ['ls-files', '-s']).split(' ')[0], '100644');
  } finally {
    rmrf(s.box);
  }
});

test('a symlink target is written as text, never followed, even when it points outside', async () => {
  const s = sandbox();
  try {
    const tree = s.tree([
      { mode: '120000', name: 'escape', oid: s.blob('../outside') },
      { mode: '120000', name: 'passwd', oid: s.blob('/etc/passwd') },
      { mode: '100644', name: 'z', oid: s.good },
    ]);
    const r = await tsgit(s.repo, ['checkout', '-q', s.commit(tree)]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(fs.readlinkSync(path.join(s.repo, 'escape')), '../outside');
    assert.equal(fs.readlinkSync(path.join(s.repo, 'passwd')), '/etc/passwd');
    assert.deepEqual(fs.readdirSync(path.join(s.box, 'outside')), []);
  } finally {
    rmrf(s.box);
  }
});

test('with -f, a symlink already in the work tree is replaced, never written through', async () => {
  const s = sandbox();
  try {
    const outside = path.join(s.box, 'outside');
    fs.writeFileSync(path.join(outside, 'victim'), 'original\n');
    // A leading directory that is a symlink to the outside, and a final component that is one.
    fs.symlinkSync(outside, path.join(s.repo, 'dir'));
    fs.symlinkSync(path.join(outside, 'victim'), path.join(s.repo, 'file'));
    const dir = s.tree([{ mode: '100644', name: 'victim', oid: s.blob('overwritten through dir\n') }]);
    const tree = s.tree([
      { mode: '40000', name: 'dir', oid: dir },
      { mode: '100644', name: 'file', oid: s.blob('overwritten through file\n') },
    ]);
    const id = s.commit(tree);
    await s.refuses(id, /not empty/);
    const r = await tsgit(s.repo, ['checkout', '-q', '-f', id]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(fs.readFileSync(path.join(outside, 'victim'), 'utf8'), 'original\n');
    assert.deepEqual(fs.readdirSync(outside), ['victim']);
    assert.ok(fs.lstatSync(path.join(s.repo, 'dir')).isDirectory());
    assert.ok(fs.lstatSync(path.join(s.repo, 'file')).isFile());
    assert.equal(fs.readFileSync(path.join(s.repo, 'dir', 'victim'), 'utf8'), 'overwritten through dir\n');
    assert.equal(git(s.repo, ['status', '--porcelain']), '');
  } finally {
    rmrf(s.box);
  }
});

test('a switch never removes or writes through a directory replaced by a symlink', async () => {
  const s = sandbox();
  try {
    const outside = path.join(s.box, 'outside');
    fs.writeFileSync(path.join(outside, 'x'), 'outside file\n');
    const one = s.commit(s.tree([{ mode: '40000', name: 'd', oid: s.tree([{ mode: '100644', name: 'x', oid: s.good }]) }]));
    const two = s.commit(s.tree([{ mode: '100644', name: 'other', oid: s.good }]));
    assert.equal((await tsgit(s.repo, ['checkout', '-q', one])).status, 0);
    // The user (or an attacker) swaps the checked-out directory for a symlink to the outside.
    fs.rmSync(path.join(s.repo, 'd'), { recursive: true });
    fs.symlinkSync(outside, path.join(s.repo, 'd'));
    const r = await tsgit(s.repo, ['checkout', '-q', '-f', two]);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(fs.readFileSync(path.join(outside, 'x'), 'utf8'), 'outside file\n');
  } finally {
    rmrf(s.box);
  }
});

test('the refusal comes before the first write even when the bad entry is the last of many', async () => {
  const s = sandbox();
  try {
    const many = s.tree(Array.from({ length: 200 }, (_, i) => ({ mode: '100644', name: `f${String(i).padStart(3, '0')}`, oid: s.good })));
    const bad = s.tree([{ mode: '100644', name: 'config', oid: s.blob('[core]\n\tfsmonitor = echo pwned\n') }]);
    const deep = s.tree([{ mode: '40000', name: '.GIT', oid: bad }]);
    const root = s.tree([
      { mode: '40000', name: 'aaa', oid: many },
      { mode: '40000', name: 'bbb', oid: many },
      { mode: '40000', name: 'zzz', oid: deep },
    ]);
    await s.refuses(s.commit(root), /'zzz\/\.GIT'.*\(hasDotgit\)/);
  } finally {
    rmrf(s.box);
  }
});
