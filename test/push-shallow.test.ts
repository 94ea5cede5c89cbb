// Pushing from a shallow clone, as CI jobs do from their depth-1 checkouts. git's send-pack sends
// the clone's boundary as shallow lines before the commands (gitprotocol-pack's update-requests);
// the server takes the push when it has the history behind them. Checked with git as the client
// against tsgit receive-pack, and with tsgit push against git's and tsgit's receive-pack.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, makeRepo, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

const TSGIT_RECEIVE_PACK = `${process.execPath} ${TSGIT} receive-pack`;

describe('a push from a shallow clone', () => {
  let root = '';
  before(() => { root = tmpDir('tsgit-push-shallow-'); });
  after(() => rmrf(root));

  /** A server with the whole history and a depth-1 clone of it with one new commit on main. */
  function setup(name: string): { server: string; clone: string; tip: string } {
    const full = makeRepo(6, { at: path.join(root, `${name}-full`) });
    const server = path.join(root, `${name}.git`);
    git(root, ['clone', '-q', '--bare', full, server]);
    const clone = path.join(root, `${name}-clone`);
    git(root, ['clone', '-q', '--depth', '1', `file://${server}`, clone]);
    assert.ok(fs.existsSync(path.join(clone, '.git', 'shallow')));
    fs.writeFileSync(path.join(clone, 'new.txt'), `${name}\n`);
    git(clone, ['add', 'new.txt']);
    git(clone, ['commit', '-q', '-m', `new on ${name}`]);
    return { server, clone, tip: git(clone, ['rev-parse', 'HEAD']).trim() };
  }

  test('git push to tsgit receive-pack lands', () => {
    const { server, clone, tip } = setup('git-to-tsgit');
    git(clone, ['push', '-q', `--receive-pack=${TSGIT_RECEIVE_PACK}`, 'origin', 'main']);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), tip);
    git(server, ['fsck', '--full']);
  });

  for (const [name, receivePack] of [['git', 'git-receive-pack'], ['tsgit', TSGIT_RECEIVE_PACK]] as const) {
    test(`tsgit push to ${name} receive-pack lands`, () => {
      const { server, clone, tip } = setup(`tsgit-to-${name}`);
      const r = tsgit(clone, ['push', '-q', `--receive-pack=${receivePack}`, 'origin', 'main']);
      assert.equal(r.status, 0, r.stderr.toString());
      assert.equal(git(server, ['rev-parse', 'main']).trim(), tip);
      git(server, ['fsck', '--full']);
    });
  }

  test('a push that needs history the server lacks: "shallow update not allowed" from both, nothing left behind', () => {
    const { clone } = setup('lacking');
    for (const [name, receivePack] of [['git', 'git-receive-pack'], ['tsgit', TSGIT_RECEIVE_PACK]] as const) {
      const empty = path.join(root, `lacking-${name}.git`);
      git(root, ['init', '-q', '--bare', empty]);
      const before = fs.readdirSync(path.join(empty, 'objects', 'pack'));
      const r = tsgit(clone, ['push', '-q', `--receive-pack=${receivePack}`, `file://${empty}`, 'main']);
      assert.notEqual(r.status, 0, `${name}: the push should be refused`);
      assert.match(r.stderr.toString(), /\[remote rejected\] main -> main \(shallow update not allowed\)/, name);
      assert.equal(git(empty, ['for-each-ref']), '', name);
      assert.deepEqual(fs.readdirSync(path.join(empty, 'objects', 'pack')), before, name);
      assert.deepEqual(fs.readdirSync(path.join(empty, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)), [], name);
    }
  });
});
