// tsgit ls-remote prints what git ls-remote prints, byte for byte, against every git-core server
// with protocol v0 and v2, with and without --heads, --tags, --refs, --symref, --sort and patterns;
// and it finds a configured remote by name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { TsgitSession } from './cli-batch.js';
import { rmrf, tmpDir, TSGIT } from './helpers.js';
import { clientEnv, makeServerRepo, runAsync, startServers, type RunResult } from './transport-servers.js';

let root: string;
let scratch: string;
let servers: Awaited<ReturnType<typeof startServers>>;
// tsgit ls-remote runs through the CLI in one session process (cli-batch.ts): a process for each of
// its ~95 runs was most of this file's time. The first command line against each server and
// version, and the missing repository's failure, are also run by a spawned bin/tsgit.
let session: TsgitSession;

async function lsRemote(args: string[], cwd: string, env: NodeJS.ProcessEnv, spawned = false): Promise<RunResult> {
  const r = await session.run(cwd, ['ls-remote', ...args], env);
  const mine = { status: r.status, signal: null, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
  if (spawned) {
    const cli = await runAsync(process.execPath, [TSGIT, 'ls-remote', ...args], cwd, env);
    assert.deepEqual(cli, mine, `a spawned bin/tsgit ls-remote ${args.join(' ')}`);
  }
  return mine;
}

before(async () => {
  root = tmpDir('tsgit-ls-remote-root-');
  scratch = tmpDir('tsgit-ls-remote-');
  makeServerRepo(path.join(root, 'repo.git'));
  spawnSync('git', ['-C', path.join(root, 'repo.git'), 'update-ref', 'refs/notes/commits', 'main']);
  spawnSync('git', ['init', '-q', '--bare', path.join(root, 'empty.git')]);
  servers = await startServers(root, scratch);
  session = new TsgitSession();
});

after(async () => {
  await session.stop();
  await servers.stop();
  rmrf(root);
  rmrf(scratch);
});

const VARIANTS: string[][] = [[], ['--heads'], ['--tags'], ['--refs'], ['--symref'], ['--tags', '--heads'], ['--symref', '--heads'], ['-q']];

for (const version of [0, 2] as const) {
  for (const name of ['git daemon', 'http-backend', 'file', 'ssh'] as const) {
    test(`${name} v${version}: output matches git ls-remote`, async () => {
      const t = servers.transports.find((x) => x.name === name)!;
      const env = clientEnv(scratch, version, t.env);
      const cases: string[][] = [
        ...VARIANTS.map((v) => [...v, t.url('repo.git')]),
        [t.url('repo.git'), 'main', 'v1*'],
        // A peeled line is a ref of its own to a pattern: "v1" does not match "refs/tags/v1^{}".
        [t.url('repo.git'), 'v1'],
        ['--sort=-v:refname', t.url('repo.git')],
        ['-ht', '--sort=version:refname', t.url('repo.git')],
        ['--refs', t.url('repo.git'), 'refs/tags/*'],
        [t.url('empty.git')],
      ];
      for (const [k, args] of cases.entries()) {
        const mine = await lsRemote([...t.args, ...args], scratch, env, k === 0);
        const gits = await runAsync('git', ['ls-remote', ...t.args, ...args], scratch, env);
        assert.equal(gits.status, 0, gits.stderr);
        assert.equal(mine.stderr, '', `ls-remote ${args.join(' ')}`);
        assert.equal(mine.status, 0);
        assert.equal(mine.stdout, gits.stdout, `ls-remote ${args.join(' ')}`);
      }
    });
  }
}

test('--sort: version order as git\'s versioncmp, refname, objectname (in a repository only), keys combined', async () => {
  const repo = path.join(scratch, 'versions');
  spawnSync('git', ['init', '-q', '-b', 'main', repo]);
  const env = clientEnv(scratch, 2, {});
  spawnSync('git', ['-C', repo, 'commit', '-q', '--allow-empty', '-m', 'c'], { env });
  const names = ['v1.0', 'v1.2', 'v1.10', 'v1.9', 'v2.0-rc1', 'v2.0', 'v10.0', 'v1.0.1', 'v1.01', 'v1.001', 'v1.00', 'v01', 'v1',
    'v1.0a', 'v1.0-beta', 'x9', 'x10', 'x010', '2', '10', '0010', 'v3.0.0.0.1', 'v3.0.0.0.01', 'v99999999999999999999'];
  for (const [k, name] of names.entries()) spawnSync('git', ['-C', repo, 'tag', ...(k % 2 ? ['-a', '-m', name] : []), name], { env });
  for (const args of [['--sort=version:refname'], ['--sort=-v:refname'], ['--sort=refname', '--tags'], ['--sort=-refname', '--sort=v:refname'],
    ['--sort=objectname', '--sort=refname'], ['--sort=v:refname', '--refs', '--tags']]) {
    for (const cwd of [repo, scratch]) {
      const mine = await lsRemote([...args, repo], cwd, env);
      const gits = await runAsync('git', ['ls-remote', ...args, repo], cwd, env);
      assert.deepEqual(mine, gits, `ls-remote ${args.join(' ')} in ${cwd}`);
    }
  }
});

test('a configured remote by name, the default remote, --get-url, --exit-code, and a missing repository', async () => {
  const env = clientEnv(scratch, 2);
  const work = tmpDir('tsgit-ls-remote-work-');
  try {
    spawnSync('git', ['init', '-q', work], { env });
    spawnSync('git', ['-C', work, 'remote', 'add', 'up', path.join(root, 'repo.git')], { env });
    spawnSync('git', ['-C', work, 'config', 'remote.up.uploadpack', 'git-upload-pack'], { env });
    spawnSync('git', ['-C', work, 'config', 'url.' + root + '/.insteadOf', 'mirror:'], { env });
    for (const args of [['up'], ['--get-url', 'up'], ['--get-url', 'mirror:repo.git'], ['--exit-code', 'up', 'no-such-ref'], ['up', 'main']]) {
      const mine = await lsRemote(args, work, env);
      const gits = await runAsync('git', ['ls-remote', ...args], work, env);
      assert.equal(mine.status, gits.status, `ls-remote ${args.join(' ')}: ${mine.stderr}`);
      assert.equal(mine.stdout, gits.stdout, `ls-remote ${args.join(' ')}`);
    }
    spawnSync('git', ['-C', work, 'remote', 'rename', 'up', 'origin'], { env });
    const mine = await lsRemote([], work, env);
    const gits = await runAsync('git', ['ls-remote'], work, env);
    assert.equal(mine.stdout, gits.stdout);
    assert.equal(mine.stderr, gits.stderr);
    // A far end that hangs up before its first packet: its own error, then git's die_initial_contact.
    const missingArgs = ['--upload-pack', 'git-upload-pack', path.join(root, 'nope.git')];
    const missing = await lsRemote(missingArgs, work, env, true);
    const gitMissing = await runAsync('git', ['ls-remote', ...missingArgs], work, env);
    assert.equal(missing.status, 128);
    assert.match(missing.stderr, /does not appear to be a git repository/);
    assert.equal(missing.stderr, gitMissing.stderr);
    // ls-remote's upload-pack is named with --upload-pack or its hidden old name --exec; it has no -u.
    for (const name of ['--exec', '-u']) {
      const args = [name, 'git-upload-pack', path.join(root, 'repo.git')];
      const named = await lsRemote(args, work, env);
      const gitNamed = await runAsync('git', ['ls-remote', ...args], work, env);
      assert.equal(named.status, gitNamed.status, `${name}: ${named.stderr}`);
      assert.equal(named.stdout, gitNamed.stdout, name);
      assert.equal(named.stderr.split('\n')[0], gitNamed.stderr.split('\n')[0], name);
    }
  } finally {
    rmrf(work);
  }
});
