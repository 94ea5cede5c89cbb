// A tsgit that starts tsgit (a local push's receive-pack, serve's worker processes) starts it
// without $NODE_EXTRA_CA_CERTS in its start environment (Node would read that bundle before any
// script runs), and the child puts the variable back at once: its hooks see the user's
// environment as it was. Observed from a hook, which sees both: its own environment, and in
// /proc/$PPID/environ the one its tsgit process was started with.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';
import { withServe } from './serve-process.js';

let dir: string;
let source: string;
/** A path that holds no certificates: Node only warns about it, and nothing here opens https. */
let bundle: string;

before(() => {
  dir = tmpDir('tsgit-child-env-');
  bundle = path.join(dir, 'no-such-bundle.pem');
  source = makeRepo(2, { at: path.join(dir, 'src') });
});
after(() => rmrf(dir));

/** A bare repository whose pre-receive hook records both environments in <name>.started and <name>.hook. */
function target(name: string): string {
  const repo = path.join(dir, 'served', `${name}.git`);
  git(dir, ['init', '-q', '--bare', repo]);
  git(repo, ['config', 'http.receivepack', 'true']);
  fs.writeFileSync(path.join(repo, 'hooks', 'pre-receive'), [
    '#!/bin/sh',
    'cat >/dev/null',
    `tr '\\0' '\\n' < /proc/$PPID/environ | grep 'NODE_EXTRA_CA_CERTS=' > "${path.join(dir, `${name}.started`)}"`,
    `env | grep 'NODE_EXTRA_CA_CERTS=' > "${path.join(dir, `${name}.hook`)}"`,
    'exit 0',
    '',
  ].join('\n'), { mode: 0o755 });
  return repo;
}

function assertSeen(name: string, repo: string): void {
  assert.equal(git(repo, ['rev-parse', 'main']), git(source, ['rev-parse', 'main']));
  assert.equal(fs.readFileSync(path.join(dir, `${name}.started`), 'utf8'), `TSGIT_SAVED_NODE_EXTRA_CA_CERTS=${bundle}\n`);
  assert.equal(fs.readFileSync(path.join(dir, `${name}.hook`), 'utf8'), `NODE_EXTRA_CA_CERTS=${bundle}\n`);
}

test("a local push starts tsgit's receive-pack without NODE_EXTRA_CA_CERTS, which its hooks see again", () => {
  const repo = target('local');
  const r = tsgit(source, ['push', '-q', repo, 'main'], undefined, { ...GIT_ENV, NODE_EXTRA_CA_CERTS: bundle });
  assert.equal(r.status, 0, r.stderr.toString());
  assertSeen('local', repo);
});

test("tsgit serve starts its workers without NODE_EXTRA_CA_CERTS, which a push's hooks see again", async () => {
  const repo = target('served');
  await withServe(path.dirname(repo), dir, [], async (s) => {
    git(source, ['push', '-q', `${s.httpUrl}/served.git`, 'main']);
  }, { ...GIT_ENV, NODE_EXTRA_CA_CERTS: bundle });
  assertSeen('served', repo);
});
