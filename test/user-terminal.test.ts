// Nothing of Node reaches a user's terminal: no warning (a clone over file:// of a repository with
// a multi-megabyte blob once printed MaxListenersExceededWarning for 'drain', 'error' and 'abort'
// listeners, one of each per 64 KiB chunk the local upload-pack wrote while the pipe was full),
// and an error nobody translated is one `fatal:` line with status 128, not a stack trace.
// TSGIT_DEBUG=1 lets Node's warnings through, which is how the first test sees a leak at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, tsgit } from './helpers.js';

let dir: string;
let remote: string;

before(() => {
  dir = tmpDir('tsgit-terminal-');
  remote = path.join(dir, 'big.git');
  git(dir, ['init', '-q', '--bare', '-b', 'main', remote]);
  // Incompressible, so the pack carries it whole: 48 chunks of 64 KiB for the writer to hand over.
  const blob = crypto.randomBytes(3 << 20);
  const small = 'small file\n';
  const stream = Buffer.concat([
    Buffer.from('commit refs/heads/main\ncommitter C <c@example.com> 1700000000 +0000\ndata 4\nbig\n'),
    Buffer.from(`M 100644 inline big.bin\ndata ${blob.length}\n`), blob, Buffer.from('\n'),
    Buffer.from(`M 100644 inline small.txt\ndata ${small.length}\n${small}\n`),
  ]);
  git(remote, ['fast-import', '--quiet'], stream);
});

after(() => rmrf(dir));

for (const debug of [true, false]) {
  test(`a clone over file:// with a 3 MiB blob prints only git's lines${debug ? ' (TSGIT_DEBUG=1)' : ''}`, () => {
    const target = path.join(dir, debug ? 'debug' : 'plain');
    const env = debug ? { ...GIT_ENV, TSGIT_DEBUG: '1' } : GIT_ENV;
    const r = tsgit(dir, ['clone', `file://${remote}`, target], undefined, env);
    const stderr = r.stderr.toString();
    assert.equal(r.status, 0, stderr);
    assert.doesNotMatch(stderr, /Warning|\(node:|at .*\.js:\d+/);
    assert.equal(stderr, `Cloning into '${target}'...\n`);
    assert.equal(git(target, ['status', '--porcelain']), '');
    assert.equal(git(target, ['hash-object', 'big.bin']), git(remote, ['rev-parse', 'main:big.bin']));
    git(target, ['fsck', '--full']);
  });
}

test('an error nobody translated is one fatal line, status 128, no stack', () => {
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, '');
  const r = tsgit(dir, ['clone', remote, path.join(file, 'sub')]);
  const stderr = r.stderr.toString();
  assert.equal(r.status, 128);
  assert.match(stderr, /^fatal: [^\n]*a-file[^\n]*\n$/);
  assert.doesNotMatch(stderr, /\n\s+at /);
});
