// After a push: `tsgit serve`'s warm upload-pack workers answer the next clone with what was just
// pushed (loose objects and a kept pack alike), and gc --auto's rule repacks in the background once
// too many packs have piled up, while clones keep succeeding.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { assertFsck, commits, push, workRepo } from './push-helpers.js';
import { withServe } from './serve-process.js';
import { runAsync } from './transport-servers.js';

describe('what a push leaves for fetches', () => {
  let root: string, work: string, server: string;
  before(() => {
    root = tmpDir('tsgit-rp-serve-');
    work = workRepo(root, 'work', 2);
    fs.mkdirSync(path.join(root, 'srv'));
    server = path.join(root, 'srv', 'repo.git');
    git(root, ['clone', '-q', '--bare', work, server]);
  });
  after(() => rmrf(root));

  test('a clone from tsgit serve sees the pushed commit at once, loose or packed', async () => {
    await withServe(path.join(root, 'srv'), root, ['--workers', '1'], async (serve) => {
      const clone = async (name: string) => {
        const r = await runAsync('git', ['clone', '-q', '--bare', `${serve.httpUrl}/repo.git`, path.join(root, name)], root, GIT_ENV);
        assert.equal(r.status, 0, r.stderr);
        return git(path.join(root, name), ['rev-parse', 'main']).trim();
      };
      assert.equal(await clone('c0'), git(work, ['rev-parse', 'HEAD']).trim(), 'the worker has the repository open');
      commits(work, 1, 'loose');
      assert.equal(push(work, server, ['<url>', 'main'], true).status, 0);
      assert.equal(await clone('c1'), git(work, ['rev-parse', 'HEAD']).trim());
      commits(work, 60, 'packed');
      assert.equal(push(work, server, ['<url>', 'main'], true).status, 0);
      assert.equal(await clone('c2'), git(work, ['rev-parse', 'HEAD']).trim());
      assertFsck(path.join(root, 'c2'));
    });
  });

  test('gc --auto: past gc.autoPackLimit the packs are repacked into one, and clones keep working', async () => {
    git(server, ['config', 'receive.unpackLimit', '1']);
    git(server, ['config', 'gc.autoPackLimit', '3']);
    const packs = () => fs.readdirSync(path.join(server, 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length;
    git(server, ['config', 'receive.autogc', 'false']);
    for (let i = 0; i < 3; i++) {
      commits(work, 1, `gc-${i}`);
      assert.equal(push(work, server, ['<url>', 'main'], true).status, 0);
    }
    assert.ok(packs() > 3);
    git(server, ['config', '--unset', 'receive.autogc']);
    commits(work, 1, 'gc-now');
    assert.equal(push(work, server, ['<url>', 'main'], true).status, 0);
    // Clones while the repack runs.
    const clones = [0, 1, 2].map((i) => runAsync('git', ['clone', '-q', '--bare', `--upload-pack=${process.execPath} ${TSGIT} upload-pack`,
      server, path.join(root, `gc-clone-${i}`)], root, GIT_ENV));
    const pid = path.join(server, 'gc.pid');
    for (let i = 0; i < 600 && fs.existsSync(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!fs.existsSync(pid), 'the background repack finished');
    for (const r of await Promise.all(clones)) assert.equal(r.status, 0, r.stderr);
    assert.equal(packs(), 1);
    assert.ok(fs.readdirSync(path.join(server, 'objects', 'pack')).some((n) => n.endsWith('.bitmap')), 'a bare repository gets a bitmap');
    assertFsck(server);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), git(work, ['rev-parse', 'HEAD']).trim());
    // With a limit the next push passes (two packs against one), only receive.autogc holds gc back.
    git(server, ['config', 'receive.autogc', 'false']);
    git(server, ['config', 'gc.autoPackLimit', '1']);
    commits(work, 1, 'no-gc');
    assert.equal(push(work, server, ['<url>', 'main'], true).status, 0);
    assert.equal(push(work, server, ['<url>', 'main:refs/heads/x'], true).status, 0);
    assert.ok(!fs.existsSync(pid), 'receive.autogc=false starts nothing');
    assert.equal(packs(), 2, 'and nothing repacked');
  });
});
