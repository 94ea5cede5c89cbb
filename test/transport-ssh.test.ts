// ssh as git runs it: the same program, arguments and GIT_PROTOCOL for GIT_SSH_COMMAND, GIT_SSH,
// every URL form, protocol v0 and v2, ports, and the ssh variants (OpenSSH, plink, simple, and an
// unknown program probed with -G). A stand-in for ssh records what it is given, for git and for
// tsgit alike, and then runs the remote command locally.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { rmrf, tmpDir, TSGIT } from './helpers.js';
import { clientEnv, makeServerRepo, makeSshShim, runAsync } from './transport-servers.js';

let root: string;
let scratch: string;
let shim: { command: string; log: string };

before(() => {
  root = tmpDir('tsgit-ssh-root-');
  scratch = tmpDir('tsgit-ssh-');
  makeServerRepo(path.join(root, 'repo.git'));
  shim = makeSshShim(scratch);
  fs.copyFileSync(shim.command, path.join(scratch, 'myssh'));
  fs.chmodSync(path.join(scratch, 'myssh'), 0o755);
});

after(() => {
  rmrf(root);
  rmrf(scratch);
});

/** Runs the same ls-remote with git and tsgit; returns what the shim saw for each, and their results. */
async function both(url: string, env: NodeJS.ProcessEnv, args: string[] = [url]) {
  const calls = async (cmd: string, args: string[]) => {
    fs.rmSync(shim.log, { force: true });
    const r = await runAsync(cmd, args, scratch, env);
    const log = fs.existsSync(shim.log) ? fs.readFileSync(shim.log, 'utf8') : '';
    return { ...r, log };
  };
  return { git: await calls('git', ['ls-remote', ...args]), tsgit: await calls(process.execPath, [TSGIT, 'ls-remote', ...args]) };
}

const URLS = (repo: string) => [
  `ssh://localhost${repo}`,
  `ssh://alice@localhost:2222${repo}`,
  `git+ssh://localhost${repo}`,
  `localhost:${repo}`,
  `alice@localhost:${repo}`,
  `[localhost:2222]:${repo}`,
];

test('GIT_SSH_COMMAND: the arguments and GIT_PROTOCOL git passes, for every URL form, v0 and v2', async () => {
  for (const version of [0, 2] as const) {
    for (const url of URLS(path.join(root, 'repo.git'))) {
      const { git, tsgit } = await both(url, clientEnv(scratch, version, { GIT_SSH_COMMAND: shim.command }));
      assert.equal(git.status, 0, git.stderr);
      assert.equal(tsgit.status, 0, tsgit.stderr);
      assert.equal(tsgit.log, git.log, `${url} v${version}`);
      assert.equal(tsgit.stdout, git.stdout);
    }
  }
});

test('GIT_SSH without a shell, ssh.variant / GIT_SSH_VARIANT, and an unknown program probed with -G', async () => {
  const repo = path.join(root, 'repo.git');
  const cases: [string, NodeJS.ProcessEnv][] = [
    [`ssh://localhost:2222${repo}`, { GIT_SSH: shim.command }],
    [`ssh://localhost:2222${repo}`, { GIT_SSH_COMMAND: shim.command, GIT_SSH_VARIANT: 'plink' }],
    [`ssh://localhost:2222${repo}`, { GIT_SSH_COMMAND: shim.command, GIT_SSH_VARIANT: 'tortoiseplink' }],
    [`ssh://localhost:2222${repo}`, { GIT_SSH_COMMAND: path.join(scratch, 'myssh') }],
    [`ssh://localhost${repo}`, { GIT_SSH_COMMAND: `${shim.command} -o BatchMode=yes` }],
    [`ssh://localhost${repo}`, { GIT_SSH_COMMAND: shim.command, GIT_SSH_VARIANT: 'simple' }],
  ];
  for (const version of [0, 2] as const) {
    for (const [url, extra] of cases) {
      const { git, tsgit } = await both(url, clientEnv(scratch, version, extra));
      assert.equal(git.status, 0, git.stderr);
      assert.equal(tsgit.status, 0, tsgit.stderr);
      assert.equal(tsgit.log, git.log, `${url} ${JSON.stringify(extra)} v${version}`);
    }
  }
});

test('refusals: a port with the simple variant, and hosts or paths that look like options', async () => {
  const repo = path.join(root, 'repo.git');
  const cases: [string, NodeJS.ProcessEnv][] = [
    [`ssh://localhost:2222${repo}`, { GIT_SSH_COMMAND: shim.command, GIT_SSH_VARIANT: 'simple' }],
    ['ssh://-oProxyCommand=touch%20pwned/repo.git', { GIT_SSH_COMMAND: shim.command }],
    ['-oProxyCommand=x:repo.git', { GIT_SSH_COMMAND: shim.command }],
  ];
  for (const [url, extra] of cases) {
    const { git, tsgit } = await both(url, clientEnv(scratch, 2, extra), ['--', url]);
    assert.notEqual(git.status, 0);
    assert.equal(tsgit.status, 128);
    assert.equal(tsgit.log, '', 'ssh never ran');
    const gitFatal = git.stderr.split('\n').find((l) => l.startsWith('fatal:'));
    assert.equal(tsgit.stderr.split('\n')[0], gitFatal, url);
  }
  assert.ok(!fs.existsSync(path.join(scratch, 'pwned')));
});
