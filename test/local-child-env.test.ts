// A local push or clone starts tsgit's own receive-pack or upload-pack without $NODE_EXTRA_CA_CERTS
// in its start environment (Node would read that bundle before any script runs), and that tsgit
// puts the variable back at once: its hooks see the user's environment as it was. Observed from a
// hook, which sees both: its own environment, and in /proc/$PPID/environ the one tsgit's
// receive-pack was started with.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, tsgit } from './helpers.js';

let dir: string;
let source: string;

before(() => {
  dir = tmpDir('tsgit-child-env-');
  source = makeRepo(2, { at: path.join(dir, 'src') });
  git(dir, ['init', '-q', '--bare', 'target.git']);
  const hook = path.join(dir, 'target.git', 'hooks', 'pre-receive');
  fs.writeFileSync(hook, [
    '#!/bin/sh',
    'cat >/dev/null',
    `tr '\\0' '\\n' < /proc/$PPID/environ | grep 'NODE_EXTRA_CA_CERTS=' > "${path.join(dir, 'started')}"`,
    `env | grep 'NODE_EXTRA_CA_CERTS=' > "${path.join(dir, 'hook')}"`,
    'exit 0',
    '',
  ].join('\n'), { mode: 0o755 });
});
after(() => rmrf(dir));

test("a local push starts tsgit's receive-pack without NODE_EXTRA_CA_CERTS, which its hooks see again", () => {
  // A path that holds no certificates: Node only warns about it, and nothing here opens https.
  const bundle = path.join(dir, 'no-such-bundle.pem');
  const r = tsgit(source, ['push', '-q', path.join(dir, 'target.git'), 'main'], undefined, { ...GIT_ENV, NODE_EXTRA_CA_CERTS: bundle });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(git(path.join(dir, 'target.git'), ['rev-parse', 'main']), git(source, ['rev-parse', 'main']));
  assert.equal(fs.readFileSync(path.join(dir, 'started'), 'utf8'), `TSGIT_SAVED_NODE_EXTRA_CA_CERTS=${bundle}\n`);
  assert.equal(fs.readFileSync(path.join(dir, 'hook'), 'utf8'), `NODE_EXTRA_CA_CERTS=${bundle}\n`);
});
