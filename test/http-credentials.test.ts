// Credentials and extra headers for an HTTP remote, against git as the oracle, on a loopback
// `git http-backend` whose /auth/ paths want Basic credentials: credential helpers (what they are
// asked, and that working credentials are stored and refused ones erased), an askpass program
// (its prompts), credential.username, http.<url>.extraHeader matched by URL, and the failures
// when nothing can supply a password. Each case runs git and tsgit with the same configuration
// and compares exit status, stdout, and what the helper or askpass program recorded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { makeServerRepo, runAsync, startHttpBackend, type HttpServer } from './transport-servers.js';

let root = '', http: HttpServer, log = '';
const USER = 'alice', PASS = 's3cret';
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

before(async () => {
  root = tmpDir('tsgit-http-credentials-');
  makeServerRepo(path.join(root, 'srv', 'repo.git'));
  http = await startHttpBackend(path.join(root, 'srv'), { credentials: { username: USER, password: PASS } });
  log = path.join(root, 'calls.log');
  // A helper that records each call and its input, and answers `get` from HELPER_USER/HELPER_PASS.
  fs.writeFileSync(path.join(root, 'helper'), `#!/bin/sh
{ echo "action: $1"; sed '/^$/q'; } >> "${log}"
if [ "$1" = get ]; then
  [ -n "$HELPER_USER" ] && echo "username=$HELPER_USER"
  [ -n "$HELPER_PASS" ] && echo "password=$HELPER_PASS"
fi
exit 0
`, { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'askpass'), `#!/bin/sh
echo "prompt: $1" >> "${log}"
case "$1" in Username*) echo "$ASK_USER";; *) echo "$ASK_PASS";; esac
`, { mode: 0o755 });
});

after(async () => {
  await http.stop();
  rmrf(root);
});

interface Outcome { status: number | null; stdout: string; stderr: string; calls: string }

async function lsRemote(tool: 'git' | 'tsgit', url: string, config: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  fs.rmSync(log, { force: true });
  const args = [...config.flatMap((c) => ['-c', c]), 'ls-remote', url];
  const r = tool === 'git'
    ? await runAsync('git', args, root, env)
    : await runAsync(process.execPath, [TSGIT, ...args], root, env);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, calls: fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '' };
}

/** git and tsgit with the same settings must agree; returns tsgit's outcome. */
async function both(url: string, config: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const env = { ...GIT_ENV, GIT_TERMINAL_PROMPT: '0', ...extraEnv };
  const theirs = await lsRemote('git', url, config, env);
  const ours = await lsRemote('tsgit', url, config, env);
  const what = `ls-remote ${config.join(' ')} ${JSON.stringify(extraEnv)}`;
  assert.equal(ours.status, theirs.status, `${what}: exit status; tsgit: ${ours.stderr} git: ${theirs.stderr}`);
  assert.equal(ours.stdout, theirs.stdout, `${what}: refs`);
  assert.equal(ours.calls, theirs.calls, `${what}: what the helper or askpass program was given`);
  return ours;
}

test('a credential helper answers the 401; the credentials that worked are stored, refused ones erased', async () => {
  const url = http.url('auth/repo.git');
  const helper = `credential.helper=${path.join(root, 'helper')}`;
  const ok = await both(url, [helper], { HELPER_USER: USER, HELPER_PASS: PASS });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.calls, /^action: get\nprotocol=http\nhost=127\.0\.0\.1:\d+\naction: store\n.*password=s3cret\n/s);
  const refused = await both(url, [helper], { HELPER_USER: USER, HELPER_PASS: 'wrong' });
  assert.equal(refused.status, 128);
  assert.match(refused.calls, /action: erase\n/);
  assert.match(refused.stderr, /^fatal: Authentication failed for '/m);
  // An empty value drops the helpers before it; credential.useHttpPath sends the path.
  const reset = await both(url, ['credential.helper=!false', 'credential.helper=', helper, 'credential.useHttpPath=true'],
    { HELPER_USER: USER, HELPER_PASS: PASS });
  assert.equal(reset.status, 0, reset.stderr);
  assert.match(reset.calls, /^path=auth\/repo\.git$/m);
});

test('what no helper gives comes from the askpass program, with git\'s prompts; credential.username is asked for no more', async () => {
  const url = http.url('auth/repo.git');
  const env = { GIT_ASKPASS: path.join(root, 'askpass'), ASK_USER: USER, ASK_PASS: PASS };
  const asked = await both(url, [], env);
  assert.equal(asked.status, 0, asked.stderr);
  assert.match(asked.calls, /^prompt: Username for 'http:\/\/127\.0\.0\.1:\d+': \nprompt: Password for 'http:\/\/alice@127\.0\.0\.1:\d+': \n$/);
  const named = await both(url, [`credential.username=${USER}`], env);
  assert.equal(named.status, 0, named.stderr);
  assert.doesNotMatch(named.calls, /Username/);
  // Nothing to ask: git's error, naming what it could not read.
  const none = await both(url, []);
  assert.equal(none.status, 128);
  assert.match(none.stderr, /^fatal: could not read Username for 'http:\/\/127\.0\.0\.1:\d+': terminal prompts disabled$/m);
});

test('http.<url>.extraHeader goes with the requests to the URLs it matches, and only those', async () => {
  const url = http.url('auth/repo.git');
  const header = `Authorization: ${basic(USER, PASS)}`;
  const base = `http://127.0.0.1:${http.port}`;
  const matched = await both(url, [`http.${base}/auth.extraHeader=${header}`]);
  assert.equal(matched.status, 0, matched.stderr);
  const otherPath = await both(url, [`http.${base}/elsewhere.extraHeader=${header}`]);
  assert.equal(otherPath.status, 128);
  const otherPort = await both(url, [`http.http://127.0.0.1:1/.extraHeader=${header}`]);
  assert.equal(otherPort.status, 128);
  // A more specific section's value is kept; a later, less specific one is passed over.
  const specific = await both(url, [`http.${base}/auth/repo.git.extraHeader=${header}`, `http.extraHeader=Authorization: ${basic(USER, 'no')}`]);
  assert.equal(specific.status, 0, specific.stderr);
});
