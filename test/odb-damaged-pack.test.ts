// Damaged packs against git 2.39: a pack truncated (or its header or trailer altered) under an intact
// .idx fails git's checks when opened and is passed over, lookups going on to the other packs and the
// loose objects, each lookup that needs it printing git's `error: packfile ... does not match index`;
// an entry whose zlib stream is corrupt is read from another copy (a delta's base too), and only
// with no copy left does the read fail, with git's `packed object ... is corrupt`. tsgit's stdout,
// stderr and exit status are compared with git's for the same command in the same repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromHex } from '../src/core/oid.js';
import { ObjectDatabase } from '../src/odb/database.js';
import { Repository } from '../src/repository/repository.js';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';

interface Run { status: number | null; stdout: string; stderr: string }

function run(program: 'git' | 'tsgit', cwd: string, args: string[], input?: string, env: NodeJS.ProcessEnv = GIT_ENV): Run {
  const r = program === 'git'
    ? spawnSync('git', args, { cwd, env, input, encoding: 'latin1' })
    : spawnSync(process.execPath, [TSGIT, ...args], { cwd, env, input, encoding: 'latin1' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `args` under git and tsgit in `cwd`: the same status, stdout and stderr. Returns git's run. */
function same(cwd: string, args: string[], input?: string, env?: NodeJS.ProcessEnv): Run {
  const theirs = run('git', cwd, args, input, env), ours = run('tsgit', cwd, args, input, env);
  const what = `${args.join(' ')} in ${cwd}`;
  assert.equal(ours.status, theirs.status, `${what}: status (tsgit said ${ours.stderr})`);
  assert.equal(ours.stdout, theirs.stdout, `${what}: stdout`);
  assert.equal(ours.stderr, theirs.stderr, `${what}: stderr`);
  return theirs;
}

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

/**
 * A repository of three commits whose files grow (f3 holds f2 holds f1: git stores the biggest
 * whole and the others as deltas against it), packed into one pack.
 */
function history(dir: string): void {
  git(path.dirname(dir), ['init', '-q', '-b', 'main', dir]);
  for (const n of [1, 2, 3]) {
    fs.writeFileSync(path.join(dir, `f${n}`), lines(n * 1000));
    git(dir, ['add', `f${n}`]);
    git(dir, ['commit', '-qm', `c${n}`]);
  }
  git(dir, ['repack', '-adq']);
}

function packDir(repo: string): string {
  return path.join(repo, '.git', 'objects', 'pack');
}

/** The .pack files of the repository, by name. */
function packs(repo: string): string[] {
  return fs.readdirSync(packDir(repo)).filter(n => n.endsWith('.pack')).map(n => path.join(packDir(repo), n));
}

/** Applies `edit` to a copy of the file's bytes and writes them back (pack files are read-only). */
function rewrite(file: string, edit: (b: Buffer) => Buffer): void {
  const bytes = edit(fs.readFileSync(file));
  fs.chmodSync(file, 0o644);
  fs.writeFileSync(file, bytes);
}

/** Sets a file's mtime: git searches the newest pack first, and compares whole seconds. */
function age(file: string, seconds: number): void {
  fs.utimesSync(file, seconds, seconds);
}

/** `git verify-pack -v` of a pack: id -> [type, entry offset, bytes in the pack, delta base or null]. */
function entries(repo: string, pack: string): Map<string, { type: string; offset: number; stored: number; base: string | null }> {
  const out = git(repo, ['verify-pack', '-v', pack.replace(/\.pack$/, '.idx')]);
  const map = new Map<string, { type: string; offset: number; stored: number; base: string | null }>();
  for (const line of out.split('\n')) {
    const f = line.split(/\s+/);
    if (!/^[0-9a-f]{40}$/.test(f[0] ?? '') || f.length < 5) continue;
    map.set(f[0]!, { type: f[1]!, offset: Number(f[4]), stored: Number(f[3]), base: f[6] ?? null });
  }
  return map;
}

describe('a pack damaged under an intact .idx is passed over, as by git', () => {
  let work: string;
  let template: string;
  let blob: string;
  before(() => {
    work = tmpDir();
    template = path.join(work, 'template');
    history(template);
    blob = git(template, ['rev-parse', 'HEAD:f3']).trim();
  });
  after(() => rmrf(work));

  /** A copy of the template repository under `name`. */
  const copy = (name: string): string => {
    const dir = path.join(work, name);
    fs.cpSync(template, dir, { recursive: true });
    return dir;
  };

  it('reads the objects from another pack, after git\'s error line for the one that does not match its index', () => {
    const repo = copy('two-packs');
    const [first] = packs(repo);
    // A second pack of every object, without deltas (so another name), searched after the damaged one.
    git(repo, ['pack-objects', '-q', '--window=0', path.join(packDir(repo), 'pack')], git(repo, ['rev-list', '--objects', '--all']));
    rewrite(first!, b => b.subarray(0, b.length >> 1));
    for (const p of packs(repo)) age(p, p === first ? 1700000100 : 1700000000);
    const r = same(repo, ['cat-file', '-p', blob]);
    assert.equal(r.stdout, lines(3000));
    assert.equal(r.stderr, `error: packfile .git/objects/pack/${path.basename(first!)} does not match index\n`);
    same(repo, ['cat-file', '-t', blob]);
    same(repo, ['cat-file', '-s', 'HEAD:f1']);
    same(repo, ['rev-list', '--objects', '--all']);
    same(repo, ['cat-file', '--batch-check'], `${blob}\nHEAD\nHEAD:f2\n`);
    // From a subdirectory git still names the pack from the top of the work tree.
    fs.mkdirSync(path.join(repo, 'sub'));
    same(path.join(repo, 'sub'), ['cat-file', '-p', 'HEAD:f1']);
  });

  it('fails only where the damaged pack held the only copy, naming it as git does', () => {
    const repo = copy('only-copy');
    const [pack] = packs(repo);
    rewrite(pack!, b => b.subarray(0, 3000));
    const r = same(repo, ['cat-file', '-p', blob]);
    assert.equal(r.status, 128);
    // git looks twice, the second time after scanning the pack directory again, and says so twice.
    const line = `error: packfile .git/objects/pack/${path.basename(pack!)} does not match index\n`;
    assert.equal(r.stderr, `${line}${line}fatal: Not a valid object name ${blob}\n`);
    same(repo, ['cat-file', '-t', blob]);
    same(repo, ['cat-file', '-e', blob]);
    // Its index still lists the objects: git lists them as missing.
    assert.match(same(repo, ['cat-file', '--batch-all-objects', '--batch-check']).stdout, new RegExp(`^${blob} missing$`, 'm'));
    same(repo, ['cat-file', '--batch-all-objects', '--batch']);
    // The same repository reached other ways: bare from inside it, by a relative --git-dir, and
    // as another repository's alternate (whose packs git names by their absolute path).
    const bare = path.join(work, 'only-copy.git');
    fs.cpSync(path.join(repo, '.git'), bare, { recursive: true });
    git(bare, ['config', 'core.bare', 'true']);
    same(bare, ['cat-file', '-t', blob]);
    same(work, ['--git-dir=only-copy/.git', 'cat-file', '-t', blob]);
    // git keeps the name it was given or found unless it starts below the top of the work tree,
    // where it takes the real path; a linked work tree's common directory by its real path.
    const sub = path.join(repo, 'sub');
    fs.mkdirSync(sub);
    const withEnv = (vars: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...GIT_ENV, ...vars });
    for (const [cwd, vars] of [
      [repo, { GIT_DIR: '.git/' }], [repo, { GIT_DIR: './.git' }], [repo, { GIT_DIR: '.git', GIT_WORK_TREE: '.' }],
      [sub, { GIT_DIR: '../.git', GIT_WORK_TREE: '..' }], [sub, { GIT_DIR: '../.git', GIT_WORK_TREE: '.' }],
      [sub, { GIT_WORK_TREE: '..' }], [repo, { GIT_WORK_TREE: 'sub' }], [work, { GIT_DIR: 'only-copy/.git', GIT_WORK_TREE: 'only-copy' }],
      [path.join(bare, 'objects'), {}],
    ] as [string, NodeJS.ProcessEnv][]) {
      same(cwd, ['cat-file', '-t', blob], undefined, withEnv(vars));
    }
    // A linked work tree laid out by hand: git worktree add would need the damaged pack's commits.
    const linked = path.join(work, 'only-copy-wt');
    const admin = path.join(repo, '.git', 'worktrees', 'wt');
    fs.mkdirSync(admin, { recursive: true });
    fs.mkdirSync(linked);
    fs.writeFileSync(path.join(admin, 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(admin, 'commondir'), '../..\n');
    fs.writeFileSync(path.join(admin, 'gitdir'), `${linked}/.git\n`);
    fs.writeFileSync(path.join(linked, '.git'), `gitdir: ${admin}\n`);
    same(linked, ['cat-file', '-t', blob]);
    same(linked, ['cat-file', '-t', blob], undefined, withEnv({ GIT_COMMON_DIR: '../only-copy/.git' }));
    const borrower = path.join(work, 'borrower');
    git(work, ['init', '-q', borrower]);
    fs.writeFileSync(path.join(borrower, '.git/objects/info/alternates'), '../../../only-copy/.git/objects\n');
    same(borrower, ['cat-file', '-t', blob]);
    // An alternate that does not resolve, and one that is no directory: git's error, once.
    fs.writeFileSync(path.join(borrower, '.git/objects/info/alternates'), `../../only-copy/.git/objects\n${path.join(work, 'only-copy/f1')}\n`);
    const r2 = same(borrower, ['cat-file', '-t', blob]);
    assert.match(r2.stderr, /^error: unable to normalize alternate object path: .*\nerror: object directory .* does not exist; check \.git\/objects\/info\/alternates\n/);
  });

  it("says what git's open_packed_git_1() says of each kind of damage", () => {
    const kinds: [string, (b: Buffer) => Buffer][] = [
      ['far-too-short', b => b.subarray(0, 5)],
      ['no-trailer', b => b.subarray(0, 15)],
      ['trailer', b => { const c = Buffer.from(b); c[c.length - 1]! ^= 0xff; return c; }],
      ['count', b => { const c = Buffer.from(b); c.writeUInt32BE(5, 8); return c; }],
      ['signature', b => { const c = Buffer.from(b); c.write('JUNK', 0, 'latin1'); return c; }],
      ['version', b => { const c = Buffer.from(b); c.writeUInt32BE(5, 4); return c; }],
    ];
    for (const [name, damage] of kinds) {
      const repo = copy(`kind-${name}`);
      rewrite(packs(repo)[0]!, damage);
      const r = same(repo, ['cat-file', '-t', blob]);
      assert.match(r.stderr, /^error: .*pack.*\nerror: .*\nfatal: git cat-file: could not get object info\n$/, name);
    }
  });

  it('clones from a repository whose damaged pack has its objects elsewhere', () => {
    const repo = copy('clone-source');
    const [first] = packs(repo);
    git(repo, ['pack-objects', '-q', '--window=0', path.join(packDir(repo), 'pack')], git(repo, ['rev-list', '--objects', '--all']));
    rewrite(first!, b => b.subarray(0, b.length - 100));
    for (const p of packs(repo)) age(p, p === first ? 1700000100 : 1700000000);
    // git fetching from tsgit's upload-pack: upload-pack's own error line reaches the client's stderr.
    const viaGit = spawnSync('git', ['clone', '-q', '--no-local', '-u', `${process.execPath} ${TSGIT} upload-pack`, `file://${repo}`, 'by-git'],
      { cwd: work, env: GIT_ENV, encoding: 'utf8' });
    assert.equal(viaGit.status, 0, viaGit.stderr);
    assert.equal(viaGit.stderr, `error: packfile ./objects/pack/${path.basename(first!)} does not match index\n`);
    git(path.join(work, 'by-git'), ['fsck', '--no-dangling']);
    const ours = run('tsgit', work, ['clone', '-q', `file://${repo}`, 'by-tsgit']);
    assert.equal(ours.status, 0, ours.stderr);
    git(path.join(work, 'by-tsgit'), ['fsck', '--no-dangling']);
    assert.equal(git(path.join(work, 'by-tsgit'), ['rev-parse', 'HEAD:f3']).trim(), blob);
  });

  it('the library says nothing unless given a warn hook', () => {
    const repo = copy('library');
    const [pack] = packs(repo);
    git(repo, ['pack-objects', '-q', '--window=0', path.join(packDir(repo), 'pack')], git(repo, ['rev-list', '--objects', '--all']));
    rewrite(pack!, b => b.subarray(0, 100));
    for (const p of packs(repo)) age(p, p === pack ? 1700000100 : 1700000000);
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; }) as typeof process.stderr.write;
    let repository: Repository | null = null;
    try {
      repository = Repository.discover(repo);
      assert.equal(repository.odb.read(fromHex(blob)!)!.data.toString(), lines(3000));
    } finally {
      process.stderr.write = write;
      repository?.close();
    }
    assert.deepEqual(written, []);
    // Given one, a database says what git says, naming the file by the path it was opened with.
    const odb = new ObjectDatabase(path.join(repo, '.git', 'objects'));
    const warnings: string[] = [];
    odb.warn = (text) => warnings.push(text);
    assert.equal(odb.info(fromHex(blob)!)?.size, lines(3000).length);
    odb.close();
    assert.deepEqual(warnings, [`error: packfile ${pack} does not match index\n`]);
  });
});

describe('a pack entry that does not inflate is read from another copy, as by git', () => {
  let work: string;
  let template: string;
  /** The whole blob the others are deltas of, and one of those deltas. */
  let base: string;
  let delta: string;
  before(() => {
    work = tmpDir();
    template = path.join(work, 'template');
    history(template);
    const [pack] = packs(template);
    const all = entries(template, pack!);
    delta = [...all].find(([, e]) => e.type === 'blob' && e.base !== null)![0];
    base = all.get(delta)!.base!;
    assert.equal(all.get(base)!.base, null, 'the base is stored whole');
  });
  after(() => rmrf(work));

  /** A copy of the template whose base blob has a byte flipped in the middle of its zlib stream. */
  const damaged = (name: string): { repo: string; pack: string } => {
    const repo = path.join(work, name);
    fs.cpSync(template, repo, { recursive: true });
    const [pack] = packs(repo);
    const e = entries(repo, pack!).get(base)!;
    rewrite(pack!, b => { b[e.offset + (e.stored >> 1)]! ^= 0xff; return b; });
    return { repo, pack: pack! };
  };

  it('fails with no other copy, as git does, after git\'s inflate error', () => {
    const { repo, pack } = damaged('no-copy');
    const r = same(repo, ['cat-file', '-p', base]);
    assert.match(r.stderr, /^error: inflate: data stream error \(.+\)\n/);
    assert.match(r.stderr, new RegExp(`fatal: packed object ${base} \\(stored in \\.git/objects/pack/${path.basename(pack)}\\) is corrupt\\n$`));
    // A delta on it: git says which base failed, then that the delta's object is corrupt.
    const d = same(repo, ['cat-file', '-p', delta]);
    assert.match(d.stderr, new RegExp(`error: failed to read delta base object ${base} at offset \\d+ from \\.git/objects/pack/`));
    // Neither its type nor a walk needs the data.
    same(repo, ['cat-file', '-t', base]);
    same(repo, ['rev-list', '--objects', '--all']);
  });

  it('reads the object, and a delta on it, from a loose copy', () => {
    const { repo } = damaged('loose-copy');
    // The base's loose copy, written by git in another repository.
    const other = path.join(work, 'loose-source');
    git(work, ['init', '-q', other]);
    const id = git(other, ['hash-object', '-w', '--stdin'], lines(3000)).trim();
    assert.equal(id, base);
    const rel = path.join(id.slice(0, 2), id.slice(2));
    fs.mkdirSync(path.join(repo, '.git/objects', id.slice(0, 2)));
    fs.copyFileSync(path.join(other, '.git/objects', rel), path.join(repo, '.git/objects', rel));
    assert.equal(same(repo, ['cat-file', '-p', base]).stdout, lines(3000));
    assert.equal(same(repo, ['cat-file', '-p', delta]).status, 0);
    same(repo, ['cat-file', '--batch'], `${delta}\n${base}\n`);
    // A checkout writes the files from the good copies, saying what git says on the way.
    const checkout = (program: 'git' | 'tsgit'): Run => {
      for (const n of [1, 2, 3]) fs.rmSync(path.join(repo, `f${n}`));
      const r = run(program, repo, ['checkout', '-f', 'main']);
      for (const n of [1, 2, 3]) assert.equal(fs.readFileSync(path.join(repo, `f${n}`), 'utf8'), lines(n * 1000), `${program}: f${n}`);
      return r;
    };
    const theirs = checkout('git'), ours = checkout('tsgit');
    assert.deepEqual(ours, theirs);
    assert.match(ours.stderr, /failed to read delta base object/);
  });

  it('reads the object from another pack searched after the damaged one', () => {
    const { repo, pack } = damaged('pack-copy');
    const other = path.join(work, 'pack-source');
    git(work, ['init', '-q', other]);
    git(other, ['hash-object', '-w', '--stdin'], lines(3000));
    git(other, ['pack-objects', '-q', path.join(packDir(repo), 'pack')], `${base}\n`);
    for (const p of packs(repo)) age(p, p === pack ? 1700000100 : 1700000000);
    const r = same(repo, ['cat-file', '-p', base]);
    assert.equal(r.stdout, lines(3000));
    assert.match(r.stderr, /^error: inflate: data stream error \(.+\)\n$/);
    same(repo, ['cat-file', '-p', delta]);
  });
});
