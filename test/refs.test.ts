import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError, GitError } from '../src/core/errors.js';
import { ZERO_HEX } from '../src/core/oid.js';
import { FileRefStore, type RefEntry } from '../src/refs/index.js';
import { GIT_ENV, git, makeRepo, rmrf, tsgit } from './helpers.js';

const IDENT = 'C O Mitter <committer@example.com> 1700000000 +0000';

/** A work tree whose refs are a mix of packed and loose, with tags, symrefs and odd names. */
function richRepo(): { dir: string; gitDir: string } {
  const dir = makeRepo(6);
  const run = (...args: string[]) => git(dir, args);
  run('branch', 'b1', 'main~1');
  run('branch', 'feature/deep/x', 'main~2');
  run('tag', 'light', 'main~3');
  run('tag', '-a', '-m', 'annotated', 'v1', 'main~1');
  run('tag', '-a', '-m', 'tag of a tag', 'v1-outer', 'v1');
  run('update-ref', 'refs/remotes/origin/main', 'main~4');
  run('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
  run('branch', 'é-accent', 'main');
  run('branch', '\u{1F600}-emoji', 'main');
  run('branch', '\uE000-private-use', 'main');
  run('pack-refs', '--all');
  // Loose refs added after packing; b1 now differs from its packed value, v2 is loose only.
  run('update-ref', 'refs/heads/b1', 'main~2');
  run('tag', '-a', '-m', 'loose annotated', 'v2', 'main');
  run('branch', 'loose-only', 'main~5');
  run('update-ref', 'refs/notes/commits', 'main');
  return { dir, gitDir: path.join(dir, '.git') };
}

function forEachRef(dir: string, ...patterns: string[]): { entries: RefEntry[]; warnings: string[] } {
  const r = spawnSync('git', ['for-each-ref', '--format=%(objectname) %(refname) %(symref)', ...patterns], { cwd: dir, env: GIT_ENV });
  assert.equal(r.status, 0, r.stderr.toString());
  const entries = r.stdout.toString('utf8').split('\n').filter(Boolean).map((line) => {
    const [oid, name, symref] = line.split(' ') as [string, string, string];
    return symref ? { name, oid, symref } : { name, oid };
  });
  const warnings = r.stderr.toString('utf8').split('\n').filter(Boolean).map((l) => l.replace(/^warning: /, ''));
  return { entries, warnings };
}

const withoutPeeled = (entries: RefEntry[]) => entries.map(({ peeled: _, ...rest }) => rest);

test('list() matches git for-each-ref and show-ref on packed + loose refs', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    const ours = store.list();
    const theirs = forEachRef(dir);
    assert.deepEqual(withoutPeeled(ours), theirs.entries);
    assert.equal(theirs.warnings.length, 0);
    // show-ref prints the same set, symbolic refs resolved.
    const showRef = git(dir, ['show-ref']).split('\n').filter(Boolean);
    assert.deepEqual(ours.map((e) => `${e.oid} ${e.name}`), showRef);
    for (const prefix of ['refs/heads/', 'refs/tags/', 'refs/remotes/origin/', 'refs/heads/feature/']) {
      assert.deepEqual(withoutPeeled(store.list(prefix)), forEachRef(dir, prefix).entries, prefix);
    }
    assert.deepEqual(store.list('refs/tags/v1').map((e) => e.name), ['refs/tags/v1', 'refs/tags/v1-outer']);
    assert.deepEqual(store.list('HEAD'), []);
    // The ordering is bytewise UTF-8: U+E000 sorts before an emoji, unlike UTF-16 order.
    const heads = ours.map((e) => e.name).filter((n) => /^refs\/heads\/[^a-z]/.test(n));
    assert.deepEqual(heads, ['refs/heads/é-accent', 'refs/heads/\uE000-private-use', 'refs/heads/\u{1F600}-emoji']);
  } finally {
    rmrf(dir);
  }
});

test('peeled values come from packed-refs and agree with git rev-parse ^{}', () => {
  const { dir, gitDir } = richRepo();
  try {
    const entries = new FileRefStore(gitDir).list('refs/tags/');
    const peeled = entries.filter((e) => typeof e.peeled === 'string').map((e) => e.name);
    // v2 is loose, so nothing records its peeled value; light is not an annotated tag, and the
    // packed-refs traits say so: null, "known not to peel".
    assert.deepEqual(peeled, ['refs/tags/v1', 'refs/tags/v1-outer']);
    assert.equal(entries.find((e) => e.name === 'refs/tags/light')?.peeled, null);
    assert.equal(entries.find((e) => e.name === 'refs/tags/v2')?.peeled, undefined);
    for (const e of entries) {
      if (e.peeled) assert.equal(e.peeled, git(dir, ['rev-parse', `${e.name}^{}`]).trim(), e.name);
    }
  } finally {
    rmrf(dir);
  }
});

test('resolve, readRaw and head agree with git rev-parse and symbolic-ref', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    for (const name of ['HEAD', 'refs/heads/main', 'refs/heads/b1', 'refs/tags/v1', 'refs/remotes/origin/HEAD', 'refs/heads/loose-only']) {
      assert.equal(store.resolve(name)?.oid, git(dir, ['rev-parse', '--verify', name]).trim(), name);
    }
    assert.deepEqual(store.resolve('refs/remotes/origin/HEAD')?.chain, ['refs/remotes/origin/HEAD', 'refs/remotes/origin/main']);
    assert.equal(store.resolve('refs/heads/nope'), null);
    assert.deepEqual(store.readRaw('HEAD'), { type: 'symbolic', target: git(dir, ['symbolic-ref', 'HEAD']).trim() });
    assert.deepEqual(store.readRaw('refs/tags/v1'), {
      type: 'direct', oid: git(dir, ['rev-parse', 'v1']).trim(), peeled: git(dir, ['rev-parse', 'v1^{}']).trim(),
    });
    assert.deepEqual(store.head(), { symref: 'refs/heads/main', oid: git(dir, ['rev-parse', 'HEAD']).trim() });
    git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/unborn']);
    assert.deepEqual(store.head(), { symref: 'refs/heads/unborn', oid: null });
    git(dir, ['update-ref', '--no-deref', 'HEAD', 'b1']);
    assert.deepEqual(store.head(), { symref: null, oid: git(dir, ['rev-parse', 'b1']).trim() });
  } finally {
    rmrf(dir);
  }
});

test('symbolic refs are followed as deep as git follows them, and no further', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    let previous = 'refs/heads/main';
    for (let i = 1; i <= 6; i++) {
      git(dir, ['symbolic-ref', `refs/heads/c${i}`, previous]);
      previous = `refs/heads/c${i}`;
    }
    for (let i = 1; i <= 6; i++) {
      const name = `refs/heads/c${i}`;
      const r = spawnSync('git', ['rev-parse', '-q', '--verify', name], { cwd: dir, env: GIT_ENV });
      if (r.status === 0) {
        assert.equal(store.resolve(name)?.oid, r.stdout.toString().trim(), name);
      } else {
        assert.throws(() => store.resolve(name), (e: unknown) => e instanceof GitError && e.code === 'symref-loop', name);
      }
    }
    // git resolves c1..c4 (five reads) and gives up on c5 and c6.
    assert.equal(store.resolve('refs/heads/c4')?.chain.length, 5);
    assert.deepEqual(withoutPeeled(store.list('refs/heads/c')), forEachRef(dir, 'refs/heads/').entries.filter((e) => e.name.startsWith('refs/heads/c')));
  } finally {
    rmrf(dir);
  }
});

test('broken refs: list() skips them with git for-each-ref\'s warnings, reads fail naming the file', () => {
  const { dir, gitDir } = richRepo();
  try {
    const heads = path.join(gitDir, 'refs', 'heads');
    fs.writeFileSync(path.join(heads, 'garbage'), 'this is not a ref\n');
    fs.writeFileSync(path.join(heads, 'zero'), ZERO_HEX + '\n');
    fs.writeFileSync(path.join(heads, 'dangling'), 'ref: refs/heads/does-not-exist\n');
    fs.writeFileSync(path.join(heads, 'bad..name'), git(dir, ['rev-parse', 'main']));
    fs.writeFileSync(path.join(heads, 'upper'), git(dir, ['rev-parse', 'main']).toUpperCase());
    fs.writeFileSync(path.join(heads, 'no-newline'), git(dir, ['rev-parse', 'main']).trim());
    fs.writeFileSync(path.join(heads, 'trailing'), git(dir, ['rev-parse', 'main']).trim() + ' anything after a blank');
    fs.writeFileSync(path.join(heads, 'loose-only'), 'truncated 1234\n'); // hides a good loose ref value
    fs.writeFileSync(path.join(heads, 'b1.lock'), 'a lock file is not a ref');
    fs.writeFileSync(path.join(heads, '.hidden'), git(dir, ['rev-parse', 'main']));
    const warnings: string[] = [];
    const store = new FileRefStore(gitDir, { warn: (m) => warnings.push(m) });
    const theirs = forEachRef(dir);
    assert.deepEqual(withoutPeeled(store.list()), theirs.entries);
    assert.deepEqual(warnings, theirs.warnings);
    assert.ok(warnings.includes('ignoring broken ref refs/heads/garbage'));
    // git show-ref refuses outright; for a single ref tsgit throws, naming the file.
    assert.notEqual(spawnSync('git', ['show-ref'], { cwd: dir, env: GIT_ENV }).status, 0);
    const file = path.join(heads, 'garbage');
    for (const read of [() => store.resolve('refs/heads/garbage'), () => store.readRaw('refs/heads/garbage')]) {
      assert.throws(read, (e: unknown) => e instanceof CorruptError && e.layer === 'refs' && e.message.includes(file));
    }
    // Like git update-ref, writing over or deleting a broken ref is refused.
    assert.throws(() => store.update('refs/heads/garbage', git(dir, ['rev-parse', 'main']).trim()), CorruptError);
    assert.throws(() => store.delete('refs/heads/garbage'), CorruptError);
    assert.equal(fs.readFileSync(file, 'utf8'), 'this is not a ref\n');
    assert.equal(store.resolve('refs/heads/dangling'), null);
    fs.writeFileSync(path.join(gitDir, 'HEAD'), 'garbage\n');
    assert.throws(() => store.head(), (e: unknown) => e instanceof CorruptError && e.message.includes(path.join(gitDir, 'HEAD')));
  } finally {
    rmrf(dir);
  }
});

test('malformed packed-refs files are refused with the file and line named', () => {
  const { dir, gitDir } = richRepo();
  try {
    const file = path.join(gitDir, 'packed-refs');
    const good = fs.readFileSync(file, 'utf8');
    const oid = git(dir, ['rev-parse', 'main']).trim();
    const cases: [string, RegExp][] = [
      [good.trimEnd(), /unterminated line/],
      [good + 'not a packed ref line\n', /unexpected line \d+/],
      [good + `^${oid}\n^${oid}\n`, /unexpected line/],
      ['# a comment that is not the header\n', /unexpected line 1/],
      [`${oid} refs/heads/../../config\n`, /packed refname is dangerous/],
      [`${oid}\n`, /unexpected line 1/],
    ];
    for (const [content, pattern] of cases) {
      fs.writeFileSync(file, content);
      const store = new FileRefStore(gitDir);
      assert.throws(() => store.list(), (e: unknown) =>
        e instanceof CorruptError && e.message.startsWith(file) && pattern.test(e.message), JSON.stringify(content.slice(-80)));
      assert.notEqual(spawnSync('git', ['for-each-ref'], { cwd: dir, env: GIT_ENV }).status, 0, 'git accepts it');
    }
    // A bad but harmless name is listed as broken, as git does.
    fs.writeFileSync(file, `${oid} refs/heads/a..b\n${oid} refs/heads/ok\n`);
    const warnings: string[] = [];
    const listed = new FileRefStore(gitDir, { warn: (m) => warnings.push(m) }).list('refs/heads/o');
    assert.deepEqual(listed.map((e) => e.name), ['refs/heads/ok']);
    assert.deepEqual(new FileRefStore(gitDir, { warn: (m) => warnings.push(m) }).list('refs/heads/a').map((e) => e.name), []);
    assert.deepEqual(warnings, ['ignoring ref with broken name refs/heads/a..b']);
    // Headerless and unsorted is fine.
    fs.writeFileSync(file, `${oid} refs/tags/z\n${oid} refs/tags/a\n`);
    assert.deepEqual(new FileRefStore(gitDir).list('refs/tags/').map((e) => e.name), ['refs/tags/a', 'refs/tags/v2', 'refs/tags/z']);
  } finally {
    rmrf(dir);
  }
});

test('update writes refs git reads back, checks the old value, and logs like git', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir, { logAllRefUpdates: true, ident: () => IDENT });
    const rev = (r: string) => git(dir, ['rev-parse', r]).trim();
    const [c1, c2, c3, c4] = [rev('main~1'), rev('main~2'), rev('main~3'), rev('main~4')];

    store.update('refs/heads/created/deep/name', c1, { oldOid: ZERO_HEX, reflogMessage: 'branch: Created from main~1' });
    assert.equal(rev('refs/heads/created/deep/name'), c1);
    assert.throws(() => store.update('refs/heads/created/deep/name', c2, { oldOid: null }),
      (e: unknown) => e instanceof GitError && e.code === 'ref-changed' && /reference already exists/.test(e.message));
    assert.throws(() => store.update('refs/heads/created/deep/name', c2, { oldOid: c3 }),
      (e: unknown) => e instanceof GitError && e.message.includes(`is at ${c1} but expected ${c3}`));
    assert.throws(() => store.update('refs/heads/absent', c2, { oldOid: c3 }), /unable to resolve reference/);
    store.update('refs/heads/created/deep/name', c2.toUpperCase(), { oldOid: c1.toUpperCase(), reflogMessage: 'reset:  moving\n to c2' });
    assert.equal(rev('refs/heads/created/deep/name'), c2);
    assert.equal(fs.readFileSync(path.join(gitDir, 'refs/heads/created/deep/name'), 'utf8'), c2 + '\n');

    // The reflog is the one git writes and reads.
    assert.equal(fs.readFileSync(path.join(gitDir, 'logs/refs/heads/created/deep/name'), 'utf8'),
      `${ZERO_HEX} ${c1} ${IDENT}\tbranch: Created from main~1\n${c1} ${c2} ${IDENT}\treset: moving to c2\n`);
    assert.equal(git(dir, ['reflog', 'show', '--format=%H %gs', 'refs/heads/created/deep/name']),
      `${c2} reset: moving to c2\n${c1} branch: Created from main~1\n`);

    // Through HEAD: the branch moves, and both reflogs hear of it.
    const headLogBefore = fs.readFileSync(path.join(gitDir, 'logs/HEAD'), 'utf8');
    store.update('HEAD', c3, { reflogMessage: 'via HEAD' });
    assert.equal(rev('refs/heads/main'), c3);
    assert.equal(git(dir, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');
    assert.ok(fs.readFileSync(path.join(gitDir, 'logs/HEAD'), 'utf8').startsWith(headLogBefore));
    assert.match(git(dir, ['reflog', 'show', '-1', '--format=%H %gs', 'HEAD']), new RegExp(`^${c3} via HEAD\n$`));
    assert.match(git(dir, ['reflog', 'show', '-1', '--format=%H %gs', 'refs/heads/main']), new RegExp(`^${c3} via HEAD\n$`));
    // Updating the branch by name also reaches HEAD's log.
    store.update('refs/heads/main', c2, { reflogMessage: 'by name' });
    assert.match(git(dir, ['reflog', 'show', '-1', '--format=%gs', 'HEAD']), /^by name\n$/);

    // Refs outside heads/remotes/notes get no new reflog unless 'always'.
    store.update('refs/tags/new-tag', c1);
    assert.ok(!fs.existsSync(path.join(gitDir, 'logs/refs/tags/new-tag')));
    new FileRefStore(gitDir, { logAllRefUpdates: 'always', ident: () => IDENT }).update('refs/tags/new-tag', c2);
    assert.ok(fs.existsSync(path.join(gitDir, 'logs/refs/tags/new-tag')));

    // noDeref replaces a symbolic ref itself.
    store.update('refs/remotes/origin/HEAD', c1, { noDeref: true });
    assert.equal(fs.readFileSync(path.join(gitDir, 'refs/remotes/origin/HEAD'), 'utf8'), c1 + '\n');
    assert.equal(rev('refs/remotes/origin/main'), c4);

    assert.equal(spawnSync('git', ['fsck', '--no-progress'], { cwd: dir, env: GIT_ENV }).status, 0);
    assert.deepEqual(withoutPeeled(store.list()), forEachRef(dir).entries);
    assert.ok(!fs.readdirSync(path.join(gitDir, 'refs/heads')).some((n) => n.endsWith('.lock')));
  } finally {
    rmrf(dir);
  }
});

test('FileRefStore.open takes core.logAllRefUpdates and core.bare from the config', () => {
  const bare = makeRepo(2, { bare: true });
  try {
    const oid = git(bare, ['rev-parse', 'main~1']).trim();
    FileRefStore.open(bare, { env: GIT_ENV }).update('refs/heads/x', oid);
    assert.ok(!fs.existsSync(path.join(bare, 'logs/refs/heads/x')), 'bare repositories log nothing by default');
    git(bare, ['config', 'core.logAllRefUpdates', 'true']);
    FileRefStore.open(bare, { env: GIT_ENV }).update('refs/heads/y', oid, { reflogMessage: 'm' });
    assert.equal(git(bare, ['reflog', 'show', '--format=%H %gs %gn <%ge>', 'refs/heads/y']),
      `${oid} m C O Mitter <committer@example.com>\n`);
  } finally {
    rmrf(bare);
  }
});

test('setSymbolic writes what git symbolic-ref reads, and can repair a broken HEAD', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir, { logAllRefUpdates: true, ident: () => IDENT });
    store.setSymbolic('HEAD', 'refs/heads/b1', { reflogMessage: 'checkout: moving from main to b1' });
    assert.equal(git(dir, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/b1');
    assert.match(git(dir, ['reflog', 'show', '-1', '--format=%H %gs', 'HEAD']),
      new RegExp(`^${git(dir, ['rev-parse', 'b1']).trim()} checkout: moving from main to b1\n$`));
    fs.writeFileSync(path.join(gitDir, 'HEAD'), 'garbage');
    store.setSymbolic('HEAD', 'refs/heads/main');
    assert.deepEqual(store.head(), { symref: 'refs/heads/main', oid: git(dir, ['rev-parse', 'main']).trim() });
    assert.throws(() => store.setSymbolic('HEAD', 'refs/heads/../config'), (e: unknown) => e instanceof GitError && e.code === 'invalid-ref');
    assert.throws(() => store.setSymbolic('HEAD', 'config'), (e: unknown) => e instanceof GitError && e.code === 'invalid-ref');
  } finally {
    rmrf(dir);
  }
});

test('delete removes loose and packed copies and the reflog, keeping the rest of packed-refs intact', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir, { logAllRefUpdates: true, ident: () => IDENT });
    const packedFile = path.join(gitDir, 'packed-refs');
    const before = fs.readFileSync(packedFile, 'utf8');
    const b1Line = before.split('\n').find((l) => l.endsWith(' refs/heads/b1'))!;
    // b1 is both packed (old value) and loose (new value): both must go, or the old one returns.
    assert.throws(() => store.delete('refs/heads/b1', { oldOid: git(dir, ['rev-parse', 'main']).trim() }), /but expected/);
    assert.equal(store.delete('refs/heads/b1', { oldOid: git(dir, ['rev-parse', 'b1']).trim() }), true);
    assert.notEqual(spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/heads/b1'], { cwd: dir, env: GIT_ENV }).status, 0);
    assert.equal(fs.readFileSync(packedFile, 'utf8'), before.replace(b1Line + '\n', ''));
    // A packed annotated tag goes with its "^" line.
    store.delete('refs/tags/v1');
    const after = fs.readFileSync(packedFile, 'utf8');
    assert.ok(!after.includes(' refs/tags/v1\n') && after.includes(' refs/tags/v1-outer\n'));
    assert.equal(after.split('\n').filter((l) => l.startsWith('^')).length, 1);
    // Nested loose ref with a reflog: directories it leaves empty disappear.
    store.update('refs/heads/tmp/a/b', git(dir, ['rev-parse', 'main']).trim());
    assert.ok(fs.existsSync(path.join(gitDir, 'logs/refs/heads/tmp/a/b')));
    assert.equal(store.delete('refs/heads/tmp/a/b'), true);
    assert.ok(!fs.existsSync(path.join(gitDir, 'refs/heads/tmp')));
    assert.ok(!fs.existsSync(path.join(gitDir, 'logs/refs/heads/tmp')));
    assert.ok(fs.existsSync(path.join(gitDir, 'refs/heads')));
    assert.equal(store.delete('refs/heads/never-existed'), false);
    assert.throws(() => store.delete('refs/heads/never-existed', { oldOid: git(dir, ['rev-parse', 'main']).trim() }), /unable to resolve/);
    assert.deepEqual(withoutPeeled(store.list()), forEachRef(dir).entries);
    assert.equal(spawnSync('git', ['fsck', '--no-progress'], { cwd: dir, env: GIT_ENV }).status, 0);
  } finally {
    rmrf(dir);
  }
});

test('delete with noDeref removes a symbolic ref itself, even one leading nowhere, as git update-ref --no-deref -d', () => {
  const { dir, gitDir } = richRepo();
  const copy = `${dir}-copy`;
  try {
    git(dir, ['symbolic-ref', 'refs/heads/to-main', 'refs/heads/main']);
    git(dir, ['symbolic-ref', 'refs/heads/to-nowhere', 'refs/heads/nowhere']);
    fs.cpSync(dir, copy, { recursive: true });
    for (const name of ['refs/heads/to-main', 'refs/heads/to-nowhere']) git(copy, ['update-ref', '--no-deref', '-d', name]);
    const store = new FileRefStore(gitDir);
    assert.equal(store.delete('refs/heads/to-main', { noDeref: true }), true);
    assert.equal(store.delete('refs/heads/to-nowhere', { noDeref: true }), true);
    assert.equal(store.delete('refs/heads/to-nowhere', { noDeref: true }), false);
    // for-each-ref leaves dangling symbolic refs out, so the files are compared too.
    assert.deepEqual(forEachRef(dir).entries, forEachRef(copy).entries);
    assert.deepEqual(fs.readdirSync(path.join(gitDir, 'refs/heads')).sort(), fs.readdirSync(path.join(copy, '.git/refs/heads')).sort());
  } finally {
    rmrf(dir);
    rmrf(copy);
  }
});

test('rename moves a ref and its reflog as git branch -m does, packed copy and all, and refuses a symbolic ref', () => {
  const { dir, gitDir } = richRepo();
  const copy = `${dir}-copy`;
  try {
    // b1 is packed and loose, with a reflog; loose-only is loose, with one; the second name is taken.
    fs.cpSync(dir, copy, { recursive: true });
    git(copy, ['branch', '-m', 'b1', 'renamed/b1']);
    git(copy, ['branch', '-M', 'loose-only', 'feature/deep/x']);
    const store = new FileRefStore(gitDir, { logAllRefUpdates: true, ident: () => IDENT });
    store.rename('refs/heads/b1', 'refs/heads/renamed/b1', 'Branch: renamed refs/heads/b1 to refs/heads/renamed/b1');
    store.rename('refs/heads/loose-only', 'refs/heads/feature/deep/x', 'Branch: renamed refs/heads/loose-only to refs/heads/feature/deep/x');
    for (const file of ['packed-refs', 'refs/heads/renamed/b1', 'logs/refs/heads/renamed/b1', 'refs/heads/feature/deep/x', 'logs/refs/heads/feature/deep/x']) {
      assert.equal(fs.readFileSync(path.join(gitDir, file), 'utf8'), fs.readFileSync(path.join(copy, '.git', file), 'utf8'), file);
    }
    for (const gone of ['refs/heads/b1', 'logs/refs/heads/b1', 'refs/heads/loose-only', 'logs/refs/heads/loose-only', 'logs/refs/.tmp-renamed-log']) {
      assert.ok(!fs.existsSync(path.join(gitDir, gone)), gone);
    }
    assert.deepEqual(forEachRef(dir).entries, forEachRef(copy).entries);
    assert.throws(() => store.rename('refs/remotes/origin/HEAD', 'refs/remotes/origin/x', 'm'), /is a symbolic ref, renaming it is not supported/);
    assert.throws(() => store.rename('refs/heads/nope', 'refs/heads/x', 'm'), /refname refs\/heads\/nope not found/);
  } finally {
    rmrf(dir);
    rmrf(copy);
  }
});

test('createInitial writes packed-refs with the same bytes as git pack-refs --all', () => {
  const { dir, gitDir } = richRepo();
  const copy = `${dir}-copy`;
  try {
    fs.cpSync(dir, copy, { recursive: true });
    const store = new FileRefStore(gitDir);
    // Direct refs with their peeled values, as a clone would get them from the remote.
    const refs = store.list().filter((e) => e.symref === undefined).map((e) => {
      const type = git(dir, ['cat-file', '-t', e.name]).trim();
      const peeled = type === 'tag' ? git(dir, ['rev-parse', `${e.name}^{}`]).trim() : undefined;
      return peeled ? { name: e.name, oid: e.oid, peeled } : { name: e.name, oid: e.oid };
    });
    git(copy, ['pack-refs', '--all', '--prune']);
    store.createInitial([...refs].reverse());
    assert.equal(fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8'), fs.readFileSync(path.join(copy, '.git', 'packed-refs'), 'utf8'));
    assert.throws(() => store.createInitial([refs[0]!, refs[0]!]), /twice/);
    assert.throws(() => store.createInitial([{ name: 'refs/heads/../../config', oid: refs[0]!.oid }]), /cannot pack ref/);
    assert.throws(() => store.createInitial([{ name: 'HEAD', oid: refs[0]!.oid }]), /not under 'refs\/'/);
    assert.throws(() => store.createInitial([{ name: 'refs/heads/x', oid: 'abc' }]), /40-hex/);
  } finally {
    rmrf(dir);
    rmrf(copy);
  }
});

test('a lock someone else holds makes updates fail clearly and change nothing', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    const main = git(dir, ['rev-parse', 'main']).trim();
    const older = git(dir, ['rev-parse', 'main~1']).trim();
    const lock = path.join(gitDir, 'refs/heads/main.lock');
    fs.writeFileSync(lock, '');
    for (const op of [() => store.update('refs/heads/main', older), () => store.delete('refs/heads/main'),
      () => store.update('HEAD', older)]) {
      assert.throws(op, (e: unknown) => e instanceof GitError && e.code === 'locked' && e.message.includes(lock));
    }
    assert.ok(fs.existsSync(lock));
    assert.equal(git(dir, ['rev-parse', 'main']).trim(), main);
    fs.rmSync(lock);
    const packedLock = path.join(gitDir, 'packed-refs.lock');
    fs.writeFileSync(packedLock, '');
    assert.throws(() => store.createInitial([]), (e: unknown) => e instanceof GitError && e.code === 'locked' && e.message.includes(packedLock));
    // Deleting a packed ref needs packed-refs.lock too, and leaves the loose lock behind it released.
    assert.throws(() => store.delete('refs/tags/v1'), (e: unknown) => e instanceof GitError && e.code === 'locked');
    assert.ok(!fs.existsSync(path.join(gitDir, 'refs/tags/v1.lock')));
    assert.equal(git(dir, ['rev-parse', 'v1^{}']).trim(), git(dir, ['rev-parse', 'main~1']).trim());
  } finally {
    rmrf(dir);
  }
});

test('names that are not valid refs never become paths', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    const oid = git(dir, ['rev-parse', 'main']).trim();
    const configBefore = fs.readFileSync(path.join(gitDir, 'config'));
    for (const name of ['refs/heads/../../config', 'config', 'refs/heads/a.lock', '../outside', 'refs/heads//x',
      'refs/heads/x\n', '/tmp/x', 'objects/info/alternates', 'refs/heads/@{-1}', 'refs/heads/.git']) {
      const invalid = (e: unknown) => e instanceof GitError && e.code === 'invalid-ref';
      assert.throws(() => store.update(name, oid), invalid, name);
      assert.throws(() => store.readRaw(name), invalid, name);
      assert.throws(() => store.resolve(name), invalid, name);
      assert.throws(() => store.delete(name), invalid, name);
      assert.throws(() => store.setSymbolic(name, 'refs/heads/main'), invalid, name);
    }
    assert.deepEqual(fs.readFileSync(path.join(gitDir, 'config')), configBefore);
    assert.ok(!fs.existsSync(path.join(dir, 'outside')));
    // A symbolic ref planted on disk that points outside refs/ is refused when followed.
    fs.writeFileSync(path.join(gitDir, 'refs/heads/evil'), 'ref: refs/heads/../../config\n');
    assert.throws(() => store.resolve('refs/heads/evil'), CorruptError);
    assert.throws(() => store.update('refs/heads/evil', oid), CorruptError);
  } finally {
    rmrf(dir);
  }
});

test('a name too long for a file name is no ref, and updating it fails at its lock, as in git', () => {
  // Found by fuzzing revision names: lstat's ENAMETOOLONG escaped the ref store as a Node error.
  const dir = makeRepo(2);
  try {
    const store = new FileRefStore(path.join(dir, '.git'));
    const long = 'x'.repeat(300);
    assert.equal(store.resolve(`refs/heads/${long}`), null);
    assert.throws(() => store.update(`refs/heads/${long}`, git(dir, ['rev-parse', 'HEAD']).trim()),
      (e: unknown) => e instanceof GitError && /cannot lock ref/.test(e.message));
    for (const rev of [long, `refs/heads/${long}`]) {
      const ours = tsgit(dir, ['rev-parse', '--verify', '-q', rev]), theirs = spawnSync('git', ['rev-parse', '--verify', '-q', rev], { cwd: dir, env: GIT_ENV });
      assert.deepEqual([ours.status, ours.stdout.toString(), ours.stderr.toString()], [theirs.status, '', ''], rev);
    }
  } finally {
    rmrf(dir);
  }
});

test('file/directory clashes are refused the way git refuses them', () => {
  const { dir, gitDir } = richRepo();
  try {
    const store = new FileRefStore(gitDir);
    const oid = git(dir, ['rev-parse', 'main']).trim();
    const conflict = (existing: string) => (e: unknown) =>
      e instanceof GitError && e.code === 'ref-conflict' && e.message.includes(`'${existing}' exists`);
    assert.throws(() => store.update('refs/heads/main/sub', oid), conflict('refs/heads/main')); // loose
    assert.throws(() => store.update('refs/heads/é-accent/x', oid), conflict('refs/heads/é-accent')); // packed
    assert.throws(() => store.update('refs/heads/feature', oid), conflict('refs/heads/feature/deep/x'));
    assert.throws(() => store.update('refs/tags/v1/x', oid), conflict('refs/tags/v1'));
    // An empty directory where the ref file must go is cleared away, as git does.
    fs.mkdirSync(path.join(gitDir, 'refs/heads/emptydir/inner'), { recursive: true });
    store.update('refs/heads/emptydir', oid);
    assert.equal(git(dir, ['rev-parse', 'refs/heads/emptydir']).trim(), oid);
  } finally {
    rmrf(dir);
  }
});

test('packed-refs is parsed once per version of the file', () => {
  const { dir, gitDir } = richRepo();
  const original = fs.readFileSync;
  let reads = 0;
  const counting = ((...args: Parameters<typeof fs.readFileSync>) => {
    if (String(args[0]).endsWith('packed-refs')) reads++;
    return original(...args);
  }) as typeof fs.readFileSync;
  fs.readFileSync = counting;
  try {
    const store = new FileRefStore(gitDir);
    const first = store.list();
    store.list();
    store.resolve('refs/tags/v1');
    store.readRaw('refs/heads/é-accent');
    assert.equal(reads, 1);
    git(dir, ['pack-refs', '--all']);
    const repacked = store.list();
    assert.equal(reads, 2);
    assert.deepEqual(repacked.map((e) => [e.name, e.oid]), first.map((e) => [e.name, e.oid]));
  } finally {
    fs.readFileSync = original;
    rmrf(dir);
  }
});
