// git-core as the client of tsgit's server over every transport (stdio --upload-pack, smart HTTP
// v0 and v2, git:// v0 and v2): full and bare clones, --depth, --shallow-since, --filter with a
// later lazy fetch, incremental fetches (a thin pack of a few objects), fetching a tag, ls-remote.
// After each, `git fsck --full` must be clean, and what the client got is compared with what the
// same command gets from git-core's own upload-pack on the same repository.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, pkt, rmrf, tmpDir, TSGIT } from './helpers.js';
import { startServe, type Served } from './serve-process.js';

const DAY = 86400;
const T0 = 1700000000;

/**
 * main: 8 commits a day apart editing a 300-line file and nested ones, a side branch merged back,
 * an annotated tag, a tag of that tag and a lightweight tag; most of it packed, the last commits
 * loose, as a live repository is.
 */
function makeServerRepo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const lines: string[] = [];
  const big = (i: number) => Array.from({ length: 300 - i }, (_, k) => `line ${k} of the big file\n`).join('');
  const commit = (ref: string, mark: number, day: number, msg: string, from: number | null, files: [string, string][], merge?: number) => {
    lines.push(`commit ${ref}`, `mark :${mark}`, `committer C O Mitter <c@example.com> ${T0 + day * DAY} +0000`,
      `data ${Buffer.byteLength(msg)}`, msg);
    if (from !== null) lines.push(`from :${from}`);
    if (merge !== undefined) lines.push(`merge :${merge}`);
    for (const [p, body] of files) lines.push(`M 100644 inline ${p}`, `data ${Buffer.byteLength(body)}`, body);
  };
  for (let i = 1; i <= 6; i++) {
    commit('refs/heads/main', i, i, `main ${i}\n`, i > 1 ? i - 1 : null,
      [['big.txt', big(i)], [`src/dir${i % 3}/file${i}.txt`, `file ${i}\n`], ['README', `readme ${i}\n`]]);
  }
  commit('refs/heads/side', 20, 3.5, 'side 1\n', 3, [['side/a.txt', 'side a\n']]);
  commit('refs/heads/side', 21, 4.5, 'side 2\n', 20, [['side/b.txt', 'side b\n']]);
  commit('refs/heads/main', 7, 7, 'merge side\n', 6, [['README', 'readme 7\n']], 21);
  lines.push('');
  git(dir, ['fast-import', '--quiet'], lines.join('\n'));
  git(dir, ['tag', '-a', '-m', 'release 1', 'v1', 'main~2']);
  git(dir, ['tag', '-a', '-m', 'signed release', 'v1-signed', 'v1']);
  git(dir, ['tag', 'light', 'main~4']);
  git(dir, ['repack', '-adq']);
  // Two more commits stay loose.
  const tree = git(dir, ['rev-parse', 'main^{tree}']).trim();
  let head = git(dir, ['rev-parse', 'main']).trim();
  for (let i = 8; i <= 9; i++) {
    const blob = git(dir, ['hash-object', '-w', '--stdin'], `loose ${i}\n`).trim();
    const t = git(dir, ['mktree'], git(dir, ['ls-tree', tree]).replace(/^(100644 blob )\S+(\tREADME)$/m, `$1${blob}$2`)).trim();
    head = git(dir, ['commit-tree', t, '-p', head, '-m', `loose ${i}`], undefined,
      { ...GIT_ENV, GIT_COMMITTER_DATE: `${T0 + i * DAY} +0000` }).trim();
  }
  git(dir, ['update-ref', 'refs/heads/main', head]);
  git(dir, ['config', 'uploadpack.allowFilter', 'true']);
}

/** Commits `content` as `file` on top of main (the server's own loose objects). */
function commitFile(dir: string, file: string, content: string, day: number): void {
  const parent = git(dir, ['rev-parse', 'main']).trim();
  const blob = git(dir, ['hash-object', '-w', '--stdin'], content).trim();
  const listing = git(dir, ['ls-tree', 'main']).split('\n').filter(l => l && !l.endsWith(`\t${file}`));
  listing.push(`100644 blob ${blob}\t${file}`);
  const tree = git(dir, ['mktree'], listing.join('\n') + '\n').trim();
  const c = git(dir, ['commit-tree', tree, '-p', parent, '-m', `${file} on day ${day}`], undefined,
    { ...GIT_ENV, GIT_COMMITTER_DATE: `${T0 + day * DAY} +0000` }).trim();
  git(dir, ['update-ref', 'refs/heads/main', c]);
}

const thinLines = (n: number) => Array.from({ length: n }, (_, k) => `thin line ${k}: ${'x'.repeat(k % 37)}\n`).join('');

function refsOf(dir: string, pattern: string[] = ['refs/heads', 'refs/tags']): string {
  return git(dir, ['for-each-ref', '--format=%(objectname) %(refname)', ...pattern]);
}

function fsck(dir: string): void {
  const out = git(dir, ['fsck', '--full', '--no-dangling']);
  assert.equal(out.trim(), '', `git fsck --full in ${dir}`);
}

interface Transport {
  name: string;
  /** git -c options and the clone URL of `repo` (a directory under the served root). */
  client(repo: string): { config: string[]; url: string; extra: string[] };
}

let work: string;
let root: string;
let server: Served;

before(async () => {
  work = tmpDir('tsgit-serve-clients-');
  root = path.join(work, 'root');
  fs.mkdirSync(root);
  server = await startServe(root, work);
});

after(async () => {
  await server.stop();
  rmrf(work);
});

const uploadPack = `${process.execPath} ${TSGIT} upload-pack`;
const TRANSPORTS: Transport[] = [
  { name: 'stdio v0', client: r => ({ config: ['-c', 'protocol.version=0'], url: `file://${path.join(root, r)}`, extra: [`--upload-pack=${uploadPack}`] }) },
  { name: 'stdio v2', client: r => ({ config: ['-c', 'protocol.version=2'], url: `file://${path.join(root, r)}`, extra: [`--upload-pack=${uploadPack}`] }) },
  { name: 'http v0', client: r => ({ config: ['-c', 'protocol.version=0'], url: `${server.httpUrl}/${r}`, extra: [] }) },
  { name: 'http v2', client: r => ({ config: ['-c', 'protocol.version=2'], url: `${server.httpUrl}/${r}`, extra: [] }) },
  { name: 'git:// v0', client: r => ({ config: ['-c', 'protocol.version=0'], url: `${server.gitUrl}/${r}`, extra: [] }) },
  { name: 'git:// v2', client: r => ({ config: ['-c', 'protocol.version=2'], url: `${server.gitUrl}/${r}`, extra: [] }) },
];

for (const transport of TRANSPORTS) {
  describe(`git-core client over ${transport.name}`, () => {
    let name: string;
    let repo: string;
    let oracleDir: string;
    let n = 0;
    const target = () => path.join(work, `${transport.name.replace(/\W+/g, '-')}-${++n}`);

    before(() => {
      name = `${transport.name.replace(/\W+/g, '-')}.git`;
      repo = path.join(root, name);
      makeServerRepo(repo);
      oracleDir = path.join(work, `oracle-${name}`);
    });

    /** Runs git as a client of tsgit (`git <config> <cmd> <options> [--upload-pack] <url> <args>`). */
    const client = (cwd: string, cmd: string, args: string[], options: string[] = []) => {
      const c = transport.client(name);
      return git(cwd, [...c.config, cmd, ...options, ...c.extra, c.url, ...args]);
    };
    /** The same command against git-core's own upload-pack, as the oracle. */
    const oracle = (cmd: string, args: string[]) => {
      rmrf(oracleDir);
      git(work, ['-c', 'protocol.version=2', cmd, `file://${repo}`, ...args]);
    };

    test('full clone: refs equal the server\'s, fsck clean', () => {
      const dst = target();
      client(work, 'clone', ['-q', dst]);
      fsck(dst);
      const server = refsOf(repo).replace(/ refs\/heads\//g, ' refs/remotes/origin/');
      assert.equal(refsOf(dst, ['refs/remotes/origin/main', 'refs/remotes/origin/side', 'refs/tags']), server);
      assert.equal(git(dst, ['rev-parse', 'HEAD']), git(repo, ['rev-parse', 'main']));
      assert.equal(git(dst, ['status', '--porcelain']), '');
    });

    test('--bare clone: every ref equal, fsck clean', () => {
      const dst = target();
      client(work, 'clone', ['-q', '--bare', dst]);
      fsck(dst);
      assert.equal(refsOf(dst), refsOf(repo));
      // The same refs, so the same walk: every object, named and in git's order.
      assert.equal(git(dst, ['rev-list', '--objects', '--all']), git(repo, ['rev-list', '--objects', '--all']));
    });

    test('--depth 1: one commit and the shallow boundary git-core gives', () => {
      const dst = target();
      client(work, 'clone', ['-q', '--bare', '--depth', '1', dst]);
      fsck(dst);
      oracle('clone', ['-q', '--bare', '--depth', '1', oracleDir]);
      assert.equal(git(dst, ['rev-list', '--all']), git(oracleDir, ['rev-list', '--all']));
      assert.equal(fs.readFileSync(path.join(dst, 'shallow'), 'utf8'), fs.readFileSync(path.join(oracleDir, 'shallow'), 'utf8'));
      assert.equal(refsOf(dst), refsOf(oracleDir));
      // Deepening by two more commits afterwards unshallows the boundary.
      git(dst, [...transport.client(name).config, 'fetch', '-q', '--deepen=2']);
      fsck(dst);
      assert.equal(git(dst, ['rev-list', '--count', 'main']).trim(), '3');
    });

    test('--shallow-since: the commits and boundary git-core gives', () => {
      const dst = target();
      const since = `${T0 + 5 * DAY - 3600}`;
      client(work, 'clone', ['-q', '--bare', `--shallow-since=${since}`, dst]);
      fsck(dst);
      oracle('clone', ['-q', '--bare', `--shallow-since=${since}`, oracleDir]);
      assert.equal(git(dst, ['rev-list', '--all']), git(oracleDir, ['rev-list', '--all']));
      assert.equal(fs.readFileSync(path.join(dst, 'shallow'), 'utf8').split('\n').sort().join('\n'),
        fs.readFileSync(path.join(oracleDir, 'shallow'), 'utf8').split('\n').sort().join('\n'));
    });

    test('--filter=blob:none, then a lazy fetch of a missing blob', () => {
      const dst = target();
      client(work, 'clone', ['-q', '--filter=blob:none', '--no-checkout', dst]);
      const missing = git(dst, ['rev-list', '--objects', '--missing=print', '--all']).split('\n').filter(l => l.startsWith('?'));
      const blobs = git(repo, ['rev-list', '--objects', '--all', '--filter=blob:none', '--filter-print-omitted']).split('\n').filter(l => l.startsWith('~'));
      assert.equal(missing.length, blobs.length);
      assert.ok(missing.length > 10);
      const blob = missing[0]!.slice(1);
      const expected = git(repo, ['cat-file', '-p', blob]);
      // The lazy fetch speaks v2 whatever the clone used, as the issue asks.
      assert.equal(git(dst, ['-c', 'protocol.version=2', 'cat-file', '-p', blob]), expected);
      git(dst, ['checkout', '-q', 'main']);
      fsck(dst);
    });

    test('incremental fetch after new commits: a thin pack of the new objects only', () => {
      const dst = target();
      client(work, 'clone', ['-q', '--bare', dst]);
      git(dst, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/heads/*']);
      commitFile(repo, `new-${n}.txt`, `new file ${n}\n`, 30 + n);
      const before = Number(/count: (\d+)/.exec(git(dst, ['count-objects', '-v']))![1]);
      // Unpacking what arrives counts exactly the objects sent.
      git(dst, [...transport.client(name).config, '-c', 'fetch.unpackLimit=1000', 'fetch', '-q', 'origin']);
      const afterCount = Number(/count: (\d+)/.exec(git(dst, ['count-objects', '-v']))![1]);
      assert.equal(afterCount - before, 3, 'a commit, its root tree and the new blob');
      commitFile(repo, `new-${n}.txt`, `new file ${n}, changed\n`, 31 + n);
      git(dst, [...transport.client(name).config, 'fetch', '-q', 'origin']);
      fsck(dst);
      assert.equal(refsOf(dst, ['refs/heads']), refsOf(repo, ['refs/heads']));
    });

    test('a thin pack: the new blob arrives as a delta against one the client has', () => {
      // A repository of its own, so the new blob is stored as a delta of the one in the clone's HEAD.
      const thinName = `thin-${name}`;
      const thinRepo = path.join(root, thinName);
      makeServerRepo(thinRepo);
      commitFile(thinRepo, 'thin.txt', thinLines(400), 40);
      git(thinRepo, ['repack', '-adq']);
      const dst = target();
      const c = transport.client(thinName);
      git(work, [...c.config, 'clone', '-q', '--bare', ...c.extra, c.url, dst]);
      git(dst, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/heads/*']);
      commitFile(thinRepo, 'thin.txt', thinLines(399), 41);
      git(thinRepo, ['repack', '-adfq']);
      const r = spawnSync('git', [...c.config, '-c', 'fetch.unpackLimit=1', 'fetch', '--progress', 'origin'],
        { cwd: dst, env: GIT_ENV, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /Total 3 \(delta 1\)/, r.stderr);
      assert.match(r.stderr, /completed with [1-9]\d* local object/, r.stderr);
      fsck(dst);
      assert.equal(refsOf(dst, ['refs/heads']), refsOf(thinRepo, ['refs/heads']));
    });

    test('fetching one tag', () => {
      const dst = target();
      client(work, 'clone', ['-q', '--bare', '--no-tags', '--single-branch', '--branch', 'side', dst]);
      assert.equal(refsOf(dst, ['refs/tags']), '');
      git(dst, [...transport.client(name).config, 'fetch', '-q', 'origin', 'tag', 'v1-signed']);
      fsck(dst);
      assert.equal(refsOf(dst, ['refs/tags/v1-signed']), refsOf(repo, ['refs/tags/v1-signed']));
      assert.equal(git(dst, ['cat-file', '-t', git(repo, ['rev-parse', 'v1']).trim()]), 'tag\n', 'the tag it points at came along');
    });

    test('uploadpack.hideRefs: what is listed, mirrored and fetched by id is what git-core\'s upload-pack gives', () => {
      const hiddenName = `hidden-${name}`;
      const hiddenRepo = path.join(root, hiddenName);
      makeServerRepo(hiddenRepo);
      // A commit only the hidden ref reaches, a hidden tag, and a pull ref un-hidden by a later `!`.
      const secret = git(hiddenRepo, ['commit-tree', '-p', 'side', '-m', 'secret', 'side^{tree}']).trim();
      git(hiddenRepo, ['update-ref', 'refs/hidden/secret', secret]);
      git(hiddenRepo, ['update-ref', 'refs/pull/1/head', 'side~1']);
      git(hiddenRepo, ['update-ref', 'refs/pull/2/head', 'side']);
      git(hiddenRepo, ['config', 'uploadpack.hideRefs', 'refs/hidden/']);
      git(hiddenRepo, ['config', '--add', 'transfer.hideRefs', 'refs/pull']);
      git(hiddenRepo, ['config', '--add', 'uploadpack.hideRefs', '!refs/pull/2']);
      git(hiddenRepo, ['config', '--add', 'uploadpack.hideRefs', 'refs/tags/light']);
      const c = transport.client(hiddenName);
      const run = (cwd: string, args: string[], extra = c.extra, url = c.url) =>
        spawnSync('git', [...c.config, ...args.slice(0, 1), ...extra, url, ...args.slice(1)], { cwd, env: GIT_ENV, encoding: 'utf8' });
      const oracleRun = (cwd: string, args: string[]) => run(cwd, args, [], `file://${hiddenRepo}`);
      const listed = run(work, ['ls-remote']);
      assert.equal(listed.status, 0, listed.stderr);
      assert.equal(listed.stdout, oracleRun(work, ['ls-remote']).stdout);
      assert.doesNotMatch(listed.stdout, /refs\/hidden|refs\/pull\/1|refs\/tags\/light/);
      const dst = target();
      assert.equal(run(work, ['clone', '-q', '--mirror', dst]).status, 0);
      fsck(dst);
      const oracleMirror = `${dst}-oracle`;
      assert.equal(oracleRun(work, ['clone', '-q', '--mirror', oracleMirror]).status, 0);
      assert.equal(refsOf(dst, []), refsOf(oracleMirror, []));
      // The hidden tip by id: git-core's v0 client will not ask for what was not advertised unless
      // allow-tip-sha1-in-want is; its v2 client asks, and git-core's upload-pack serves it.
      for (const allowTip of [false, true]) {
        git(hiddenRepo, ['config', 'uploadpack.allowTipSHA1InWant', String(allowTip)]);
        const ours = target(), theirs = `${ours}-oracle`;
        git(work, ['init', '-q', '--bare', ours]);
        git(work, ['init', '-q', '--bare', theirs]);
        const got = run(ours, ['fetch', secret]), expected = oracleRun(theirs, ['fetch', secret]);
        // (Success or failure: git's client exits 128 over HTTP where it exits 1 over a pipe.)
        assert.equal(got.status === 0, expected.status === 0, `allowTipSHA1InWant=${allowTip}: ${got.stderr}`);
        const has = spawnSync('git', ['cat-file', '-e', secret], { cwd: ours, env: GIT_ENV }).status === 0;
        assert.equal(has, got.status === 0, 'the hidden commit arrived exactly when the fetch succeeded');
      }
      git(hiddenRepo, ['config', '--unset', 'uploadpack.allowTipSHA1InWant']);
    });

    test('ls-remote lists what git-core\'s upload-pack lists', () => {
      const ours = client(work, 'ls-remote', []);
      const theirs = git(work, ['ls-remote', `file://${repo}`]);
      assert.equal(ours, theirs);
      assert.equal(client(work, 'ls-remote', ['HEAD'], ['--symref']).split('\n')[0], 'ref: refs/heads/main\tHEAD');
    });
  });
}


test('uploadpack.hideRefs: a v0 want of a hidden tip is refused as git upload-pack refuses it, over a connection and stateless', () => {
  const repo = path.join(work, 'hidden-v0.git');
  makeServerRepo(repo);
  const secret = git(repo, ['commit-tree', '-p', 'side', '-m', 'secret', 'side^{tree}']).trim();
  git(repo, ['update-ref', 'refs/hidden/secret', secret]);
  git(repo, ['config', 'uploadpack.hideRefs', 'refs/hidden']);
  // What a client that ignores the advertisement sends: the hidden tip, and a commit only it reaches.
  for (const want of [secret, git(repo, ['rev-parse', 'side']).trim()]) {
    const request = Buffer.from(`${pkt(`want ${want} side-band-64k no-progress\n`)}0000${pkt('done\n')}`);
    for (const allowTip of ['false', 'true']) {
      git(repo, ['config', 'uploadpack.allowTipSHA1InWant', allowTip]);
      for (const stateless of [[], ['--stateless-rpc']]) {
        const answer = (cmd: string[]) => {
          const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'upload-pack', ...stateless, repo], { input: request, env: GIT_ENV });
          const out = r.stdout.toString('latin1');
          return { served: r.status === 0 && out.includes('PACK'), refused: /ERR upload-pack: not our ref/.test(out) };
        };
        const ours = answer([process.execPath, TSGIT]), theirs = answer(['git']);
        assert.deepEqual(ours, theirs, `want ${want === secret ? 'hidden tip' : 'side'}, allowTipSHA1InWant=${allowTip} ${stateless.join('')}`);
      }
    }
  }
  git(repo, ['config', '--unset', 'uploadpack.allowTipSHA1InWant']);
  const refused = spawnSync(process.execPath, [TSGIT, 'upload-pack', repo], {
    input: Buffer.from(`${pkt(`want ${secret}\n`)}0000${pkt('done\n')}`), env: GIT_ENV,
  });
  assert.notEqual(refused.status, 0);
  assert.doesNotMatch(refused.stdout.toString('latin1'), /refs\/hidden/, 'the hidden ref is not advertised');
  rmrf(repo);
});
