// Which program serves a fetch or a push, for the transports that start one: a local path runs the
// program the caller named (--upload-pack, --receive-pack) as git starts it (through /bin/sh when
// it is a command line, directly when it is a plain name), else tsgit's own;
// ssh asks the remote host for the named program, else for git's. Both pick the named program
// for the service at hand, never the other service's, and tsgit's own local programs are the
// services they are named for.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ConnectOptions, Service } from '../src/transport/connection.js';
import { localServiceCommand } from '../src/transport/file.js';
import { sshInvocation } from '../src/transport/ssh.js';
import { GIT_ENV, makeRepo, rmrf, tmpDir } from './helpers.js';

let root: string;
let repo: string;

before(() => {
  root = tmpDir('tsgit-service-program-');
  repo = makeRepo(2, { at: path.join(root, 'repo.git'), bare: true });
});

after(() => rmrf(root));

const named = { uploadPack: 'my-upload-pack --flag', receivePack: 'my-receive-pack' };

test('the named program for the service, else each transport\'s default, local and over ssh', () => {
  const ssh = (o: ConnectOptions) => sshInvocation({ user: null, host: 'example.com', port: null, path: '/srv/r.git', display: 'example.com' },
    { ...o, env: { ...GIT_ENV, GIT_SSH_COMMAND: 'ssh', GIT_SSH_VARIANT: 'ssh' } }).args.at(-1);
  const cases: { service?: Service; options: ConnectOptions; program: string | null; sshProgram: string }[] = [
    { options: {}, program: null, sshProgram: 'git-upload-pack' },
    { service: 'git-receive-pack', options: {}, program: null, sshProgram: 'git-receive-pack' },
    { options: named, program: 'my-upload-pack --flag', sshProgram: 'my-upload-pack --flag' },
    { service: 'git-receive-pack', options: named, program: 'my-receive-pack', sshProgram: 'my-receive-pack' },
    // A push's --receive-pack is no fetch's program, nor a fetch's --upload-pack a push's.
    { options: { receivePack: 'my-receive-pack' }, program: null, sshProgram: 'git-upload-pack' },
    { service: 'git-receive-pack', options: { uploadPack: 'my-upload-pack' }, program: null, sshProgram: 'git-receive-pack' },
  ];
  for (const c of cases) {
    const options = { ...c.options, ...c.service ? { service: c.service } : {} };
    const what = JSON.stringify(options);
    const local = localServiceCommand('/srv/r.git', options);
    if (c.program === null) {
      assert.equal(local.command, process.execPath, what);
      assert.equal(local.own, true, what);
      assert.deepEqual(local.args.slice(-2), [c.service === 'git-receive-pack' ? 'receive-pack' : 'upload-pack', '/srv/r.git'], what);
    } else if (c.program.includes(' ')) {
      // git's prepare_shell_cmd: a command line runs through /bin/sh, a plain name directly.
      assert.deepEqual(local, { command: '/bin/sh', args: ['-c', `${c.program} "$@"`, c.program, '/srv/r.git'], own: false }, what);
    } else {
      assert.deepEqual(local, { command: c.program, args: ['/srv/r.git'], own: false }, what);
    }
    assert.equal(ssh(options), `${c.sshProgram} '/srv/r.git'`, what);
  }
});

test('tsgit\'s own local programs serve the service they are chosen for', () => {
  for (const service of ['git-upload-pack', 'git-receive-pack'] as const) {
    const { command, args } = localServiceCommand(repo, { service });
    // No request follows: each advertises and, at the end of its input, stops.
    const r = spawnSync(command, args, { input: '0000', env: GIT_ENV });
    assert.equal(r.status, 0, r.stderr.toString());
    const first = r.stdout.toString('latin1').split('\n')[0]!;
    if (service === 'git-upload-pack') assert.match(first, /\0.*\bmulti_ack\b.*\bside-band-64k\b/, first);
    else assert.match(first, /\0.*\breport-status\b/, first);
    assert.doesNotMatch(first, service === 'git-upload-pack' ? /report-status/ : /multi_ack/, first);
  }
});
