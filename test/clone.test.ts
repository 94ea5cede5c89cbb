// tsgit clone against git-core servers (git daemon, http-backend behind a CGI bridge,
// git-upload-pack over file://, and ssh through a GIT_SSH_COMMAND stand-in), protocol v0 and v2.
// Each clone is compared with git's own clone of the same URL with the same options: refs, HEAD,
// config, shallow file, objects, work tree and index; then git fsck --full, log, status and a
// later git fetch must all work in tsgit's result.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RemoteSession } from '../src/client/session.js';
import { parseRemoteUrl } from '../src/transport/url.js';
import { TsgitSession } from './cli-batch.js';
import { GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { clientEnv, makeServerRepo, runAsync, startServers, type ProtocolVersion, type TransportUnderTest } from './transport-servers.js';

let root: string;
let scratch: string;
let servers: Awaited<ReturnType<typeof startServers>>;
// The clones that cloneBoth compares run through the CLI in one session process (cli-batch.ts), but
// for the plain clone over each transport and version, which a spawned bin/tsgit makes: a process
// per clone was a large part of this file's time. The other tests spawn bin/tsgit as before.
let session: TsgitSession;

before(async () => {
  root = tmpDir('tsgit-clone-root-');
  scratch = tmpDir('tsgit-clone-');
  makeServerRepo(path.join(root, 'repo.git'));
  fs.mkdirSync(path.join(root, 'empty.git'));
  spawnSync('git', ['init', '-q', '--bare', '-b', 'trunk', path.join(root, 'empty.git')]);
  servers = await startServers(root, scratch);
  session = new TsgitSession();
});

after(async () => {
  await session.stop();
  await servers.stop();
  rmrf(root);
  rmrf(scratch);
});

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function gitIn(dir: string, args: string[], env: NodeJS.ProcessEnv): string {
  const r = run('git', args, dir, env);
  assert.equal(r.status, 0, `git ${args.join(' ')} in ${dir} failed:\n${r.stderr}`);
  return r.stdout;
}

/** What must be equal between tsgit's clone and git's. */
function describeClone(dir: string, env: NodeJS.ProcessEnv, bare: boolean): Record<string, string> {
  const gitDir = bare ? dir : path.join(dir, '.git');
  const read = (f: string) => (fs.existsSync(path.join(gitDir, f)) ? fs.readFileSync(path.join(gitDir, f), 'utf8') : '<none>');
  const out: Record<string, string> = {
    refs: gitIn(dir, ['for-each-ref', '--format=%(refname) %(objectname) %(symref)'], env),
    HEAD: read('HEAD'),
    config: gitIn(dir, ['config', '--local', '-l'], env),
    shallow: read('shallow'),
    objects: gitIn(dir, ['rev-list', '--objects', '--all', '--missing=print'], env).split('\n').sort().join('\n'),
    log: gitIn(dir, ['log', '--format=%H %s', '--all'], env),
  };
  if (!bare && fs.existsSync(path.join(gitDir, 'index'))) out.index = gitIn(dir, ['ls-files', '-s'], env);
  return out;
}

/** fsck, log, status and a later fetch by git-core, in tsgit's clone. */
async function gitUsesIt(dir: string, env: NodeJS.ProcessEnv, bare: boolean, checkedOut: boolean): Promise<void> {
  const fsck = run('git', ['fsck', '--full', '--no-dangling'], dir, env);
  assert.equal(fsck.status, 0, `git fsck failed:\n${fsck.stdout}${fsck.stderr}`);
  assert.equal(fsck.stdout + fsck.stderr.replace(/^Checking .*\n/gm, ''), '', 'git fsck reports nothing');
  gitIn(dir, ['log', '--oneline', '-3'], env);
  if (!bare && checkedOut) assert.equal(gitIn(dir, ['status', '--porcelain'], env), '', 'git status is clean');
  const fetch = await runAsync('git', ['fetch', '-q'], dir, env);
  assert.equal(fetch.status, 0, `a later git fetch failed:\n${fetch.stderr}`);
}

const OPERATIONS: { name: string; args: string[]; bare?: boolean; checkout?: boolean }[] = [
  { name: 'clone', args: [] },
  { name: '--bare', args: ['--bare'], bare: true },
  { name: '--depth 1', args: ['--depth', '1'] },
  { name: '--filter=blob:none', args: ['--filter=blob:none'] },
  { name: '-b side', args: ['-b', 'side'] },
];

async function cloneBoth(t: TransportUnderTest, version: ProtocolVersion, repo: string, args: string[], label: string) {
  const env = clientEnv(scratch, version, t.env);
  const base = path.join(scratch, `${t.name.replace(/\W+/g, '-')}-v${version}-${label.replace(/\W+/g, '_')}`);
  const ours = `${base}-tsgit`, theirs = `${base}-git`;
  const url = t.url(repo);
  const argv = ['clone', ...t.args, ...args, url, ours];
  const r = label === 'clone' ? await runAsync(process.execPath, [TSGIT, ...argv], scratch, env)
    : await session.run(scratch, argv, env).then((b) => ({ status: b.status, stdout: b.stdout.toString('utf8'), stderr: b.stderr.toString('utf8') }));
  assert.equal(r.status, 0, `tsgit clone ${args.join(' ')} ${url} failed:\n${r.stderr}`);
  const g = await runAsync('git', ['clone', '-q', ...t.args, ...args, url, theirs], scratch, env);
  assert.equal(g.status, 0, `git clone ${args.join(' ')} ${url} failed:\n${g.stderr}`);
  return { env, ours, theirs, stderr: r.stderr };
}

for (const version of [0, 2] as const) {
  describe(`protocol v${version}`, () => {
    for (const name of ['git daemon', 'http-backend', 'file', 'ssh'] as const) {
      test(`${name}: clone, --bare, --depth 1, --filter=blob:none, -b match git's clones, and git uses them`, async () => {
        const t = servers.transports.find((x) => x.name === name)!;
        for (const op of OPERATIONS) {
          const { env, ours, theirs, stderr } = await cloneBoth(t, version, 'repo.git', op.args, op.name);
          assert.match(stderr, op.bare ? /^Cloning into bare repository '.*'\.\.\.\n/ : /^Cloning into '.*'\.\.\.\n/);
          assert.deepEqual(describeClone(ours, env, op.bare ?? false), describeClone(theirs, env, op.bare ?? false), `${name} v${version} ${op.name}`);
          if (!op.bare) {
            const diff = run('diff', ['-r', '--no-dereference', '--exclude=.git', ours, theirs], scratch, env);
            assert.equal(diff.status, 0, `work trees differ:\n${diff.stdout}`);
          }
          await gitUsesIt(ours, env, op.bare ?? false, !op.bare);
          rmrf(ours);
          rmrf(theirs);
        }
      });
    }
  });
}

describe('clone options', () => {
  const file = () => servers.transports.find((x) => x.name === 'file')!;

  test('--single-branch, --shallow-since, --shallow-exclude, --no-tags, -n, -o, --mirror, -c and an empty repository match git', async () => {
    const cases: { label: string; args: string[]; repo?: string; bare?: boolean }[] = [
      { label: 'single-branch', args: ['--single-branch'] },
      { label: 'shallow-since', args: ['--shallow-since=2023-11-15 01:30:00 +0000'] },
      { label: 'shallow-exclude', args: ['--shallow-exclude=v1', '--shallow-exclude', 'side'] },
      { label: 'single-branch-tag', args: ['--single-branch', '-b', 'v1'] },
      { label: 'no-tags', args: ['--no-tags'] },
      { label: 'no-checkout', args: ['-n'] },
      { label: 'origin', args: ['-o', 'upstream'] },
      { label: 'mirror', args: ['--mirror'], bare: true },
      { label: 'empty', args: [], repo: 'empty.git' },
      { label: 'config', args: ['-c', 'core.autocrlf=false', '-c', 'Foo.Sub.Bar=x', '-c', 'foo.bare', '-c', 'foo.empty=', '-c', 'foo.multi=1', '-c', 'foo.multi=2'] },
    ];
    for (const version of [0, 2] as const) {
      for (const c of cases) {
        const { env, ours, theirs } = await cloneBoth(file(), version, c.repo ?? 'repo.git', c.args, `${c.label}`);
        const mine = describeClone(ours, env, c.bare ?? false);
        const gits = describeClone(theirs, env, c.bare ?? false);
        // git 2.39 learns an empty repository's unborn branch only over v2.
        assert.deepEqual(mine, gits, `${c.label} v${version}`);
        if (c.label === 'no-checkout') assert.deepEqual(fs.readdirSync(ours), ['.git']);
        rmrf(ours);
        rmrf(theirs);
      }
    }
  });

  test('--reference borrows a local repository\'s objects and fetches only the rest, over every transport; --dissociate copies them in', async () => {
    // The reference lacks main's last two commits and the tags.
    const ref = path.join(scratch, 'reference.git');
    gitIn(scratch, ['clone', '-q', '--bare', '--no-tags', path.join(root, 'repo.git'), ref], GIT_ENV);
    gitIn(ref, ['update-ref', 'refs/heads/main', 'main~2'], GIT_ENV);
    gitIn(ref, ['repack', '-adq'], GIT_ENV);
    gitIn(ref, ['prune', '--expire=now'], GIT_ENV);
    // Objects of its own, packed or (git unpacks a small fetch over HTTP) loose.
    const own = (dir: string) => {
      const counts = gitIn(dir, ['count-objects', '-v'], GIT_ENV);
      return String(Number(/^count: (\d+)/m.exec(counts)![1]) + Number(/^in-pack: (\d+)/m.exec(counts)![1]));
    };
    for (const t of servers.transports) {
      for (const version of [0, 2] as const) {
        const { env, ours, theirs } = await cloneBoth(t, version, 'repo.git', ['--reference', ref], 'reference');
        const what = `${t.name} v${version}`;
        assert.equal(fs.readFileSync(path.join(ours, '.git/objects/info/alternates'), 'utf8'), `${ref}/objects\n`, what);
        assert.deepEqual(describeClone(ours, env, false), describeClone(theirs, env, false), what);
        // No more than git fetches (its haves are the reference's tips alone; ours walk on from them).
        assert.ok(Number(own(ours)) > 0 && Number(own(ours)) <= Number(own(theirs)), `${what}: objects fetched (ours ${own(ours)}, git's ${own(theirs)})`);
        gitIn(ours, ['fsck', '--full'], GIT_ENV);
        rmrf(ours);
        rmrf(theirs);
      }
    }
    const t = file();
    const env = clientEnv(scratch, 2);
    const { ours, theirs } = await cloneBoth(t, 2, 'repo.git', ['--reference', ref, '--dissociate'], 'dissociate');
    assert.ok(!fs.existsSync(path.join(ours, '.git/objects/info/alternates')));
    assert.deepEqual(describeClone(ours, env, false), describeClone(theirs, env, false));
    gitIn(ours, ['fsck', '--full'], GIT_ENV);
    // A repository that is not there: fatal for --reference (and nothing left), noted for --reference-if-able.
    const nowhere = path.join(scratch, 'nowhere');
    const why = `reference repository '${nowhere}' is not a local repository.\n`;
    for (const [option, status, message] of [['--reference', 128, `fatal: ${why}`], ['--reference-if-able', 0, `info: Could not add alternate for '${nowhere}': ${why}`]] as const) {
      for (const [cmd, pre] of [['git', []], [process.execPath, [TSGIT]]] as const) {
        const dir = path.join(scratch, `no-reference-${cmd === 'git' ? 'git' : 'tsgit'}`);
        const r = run(cmd, [...pre, 'clone', '-q', option, nowhere, ...t.args, t.url('repo.git'), dir], scratch, env);
        assert.equal(r.status, status, `${cmd} ${option}: ${r.stderr}`);
        assert.equal(r.stderr, message, `${cmd} ${option}`);
        assert.equal(fs.existsSync(dir), status === 0);
        rmrf(dir);
      }
    }
  });

  test('-c with a bad key fails as git fails, and leaves no directory behind', () => {
    const env = clientEnv(scratch, 2);
    for (const [cmd, pre] of [['git', []], [process.execPath, [TSGIT]]] as const) {
      const dir = path.join(scratch, 'bad-config');
      const r = run(cmd, [...pre, 'clone', '-q', '-c', 'nosection', ...file().args, file().url('repo.git'), dir], scratch, env);
      assert.equal(r.status, 128, `${cmd}: ${r.stderr}`);
      assert.match(r.stderr, /key does not contain a section: nosection\n/);
      assert.ok(!fs.existsSync(dir));
    }
  });

  test('the directory is guessed from the URL as git guesses it, and an existing empty one is used', () => {
    const env = clientEnv(scratch, 2);
    const work = tmpDir('tsgit-clone-guess-');
    try {
      const r = run(process.execPath, [TSGIT, 'clone', '-q', '--upload-pack', 'git-upload-pack', `file://${root}/repo.git/`], work, env);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(fs.readdirSync(work), ['repo']);
      const bare = run(process.execPath, [TSGIT, 'clone', '-q', '--bare', '--upload-pack', 'git-upload-pack', `${root}/repo.git`], work, env);
      assert.equal(bare.status, 0, bare.stderr);
      assert.deepEqual(fs.readdirSync(work).sort(), ['repo', 'repo.git']);
      fs.mkdirSync(path.join(work, 'empty-dir'));
      const into = run(process.execPath, [TSGIT, 'clone', '-q', '--upload-pack', 'git-upload-pack', `${root}/repo.git`, 'empty-dir'], work, env);
      assert.equal(into.status, 0, into.stderr);
      assert.ok(fs.existsSync(path.join(work, 'empty-dir', '.git', 'HEAD')));
      const again = run(process.execPath, [TSGIT, 'clone', '-q', `${root}/repo.git`, 'empty-dir'], work, env);
      assert.equal(again.status, 128);
      assert.equal(again.stderr, "fatal: destination path 'empty-dir' already exists and is not an empty directory.\n");
    } finally {
      rmrf(work);
    }
  });

  test('-q prints nothing; progress appears only with --progress when stderr is not a terminal', () => {
    const env = clientEnv(scratch, 2);
    const quiet = run(process.execPath, [TSGIT, 'clone', '-q', ...file().args, file().url('repo.git'), path.join(scratch, 'q')], scratch, env);
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    const plain = run(process.execPath, [TSGIT, 'clone', ...file().args, file().url('repo.git'), path.join(scratch, 'p')], scratch, env);
    assert.equal(plain.stderr, `Cloning into '${path.join(scratch, 'p')}'...\n`);
    const progress = run(process.execPath, [TSGIT, 'clone', '--progress', ...file().args, file().url('repo.git'), path.join(scratch, 'pp')], scratch, env);
    assert.equal(progress.status, 0, progress.stderr);
    assert.match(progress.stderr, /^remote: Enumerating objects: \d+, done\. {8}$/m);
    assert.match(progress.stderr, /Receiving objects: 100% \(\d+\/\d+\), .*done\.\n/);
    assert.match(progress.stderr, /Resolving deltas: 100% \(\d+\/\d+\), done\.\n/);
    for (const d of ['q', 'p', 'pp']) rmrf(path.join(scratch, d));
  });
});

describe('protocol version and local upload-pack', () => {
  test('asking for v2 from a server that only speaks v0 falls back to v0', async () => {
    const env = clientEnv(scratch, 2);
    const v0only = ['--upload-pack', 'env -u GIT_PROTOCOL git-upload-pack'];
    const session = await RemoteSession.open(parseRemoteUrl(path.join(root, 'repo.git')), {
      env, protocolVersion: 2, uploadPack: 'env -u GIT_PROTOCOL git-upload-pack', onStderr: () => {},
    });
    assert.equal(session.version, 0);
    await session.close();
    const ours = path.join(scratch, 'fallback-tsgit'), theirs = path.join(scratch, 'fallback-git');
    const r = await runAsync(process.execPath, [TSGIT, 'clone', ...v0only, `file://${root}/repo.git`, ours], scratch, env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((await runAsync('git', ['clone', '-q', ...v0only, `file://${root}/repo.git`, theirs], scratch, env)).status, 0);
    assert.deepEqual(describeClone(ours, env, false), describeClone(theirs, env, false));
    rmrf(ours);
    rmrf(theirs);
  });

  test('a local path and a file:// URL are served by tsgit\'s own upload-pack by default', async () => {
    for (const version of [0, 2] as const) {
      const env = clientEnv(scratch, version);
      for (const url of [path.join(root, 'repo.git'), `file://${root}/repo.git`]) {
        const ours = path.join(scratch, 'own-tsgit'), theirs = path.join(scratch, 'own-git');
        const r = await runAsync(process.execPath, [TSGIT, 'clone', '-q', url, ours], scratch, env);
        assert.equal(r.status, 0, r.stderr);
        const g = await runAsync('git', ['clone', '-q', '--no-local', url, theirs], scratch, env);
        assert.equal(g.status, 0, g.stderr);
        const mine = describeClone(ours, env, false), gits = describeClone(theirs, env, false);
        assert.deepEqual(mine, gits, `${url} v${version}`);
        await gitUsesIt(ours, env, false, true);
        rmrf(ours);
        rmrf(theirs);
      }
    }
  });
});
