// git-core pushing to `tsgit serve` over smart HTTP and git://: refused as git's servers refuse it
// until enabled (http.receivepack for anonymous HTTP, --enable=receive-pack for git://), then taken,
// with the refs git expects and a repository that passes `git fsck --full`; more concurrent pushes
// than workers all land; a push whose body is gzip (as JGit sends it) lands, one in an encoding
// http-backend does not take is refused; and a clone from the same server sees the pushed commits
// at once.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { git, GIT_ENV, pktBytes, postService, rmrf, tmpDir } from './helpers.js';
import { assertFsck, commits, push, refsOf, workRepo } from './push-helpers.js';
import { withServe } from './serve-process.js';
import { runAsync } from './transport-servers.js';

describe('pushing to tsgit serve', () => {
  let root: string, work: string, served: string;
  before(() => {
    root = tmpDir('tsgit-rp-transports-');
    work = workRepo(root, 'work', 3);
    served = path.join(root, 'served');
    git(root, ['init', '-q', '--bare', '-b', 'main', path.join(served, 'r.git')]);
  });
  after(() => rmrf(root));

  test('refused until enabled, as git http-backend and git daemon refuse it', async () => {
    await withServe(served, root, [], async (server) => {
      const http = push(work, `${server.httpUrl}/r.git`, ['<url>', 'main'], false);
      assert.notEqual(http.status, 0);
      assert.match(http.stderr, /403/);
      const daemon = push(work, `${server.gitUrl}/r.git`, ['<url>', 'main'], false);
      assert.notEqual(daemon.status, 0);
      assert.match(daemon.stderr, /remote error: service not enabled: git-receive-pack/);
      assert.equal(refsOf(path.join(served, 'r.git')), '');
    });
  });

  test('enabled, pushes over both transports land as git would land them; a clone sees them', async () => {
    const repo = path.join(served, 'r.git');
    git(repo, ['config', 'http.receivepack', 'true']);
    await withServe(served, root, ['--enable=receive-pack'], async (server) => {
      const first = push(work, `${server.httpUrl}/r.git`, ['<url>', 'main'], false);
      assert.equal(first.status, 0, first.stderr);
      assert.match(first.porcelain, /^\*\trefs\/heads\/main:refs\/heads\/main\t\[new branch\]$/m);
      assert.equal(git(repo, ['rev-parse', 'main']), git(work, ['rev-parse', 'main']));
      assertFsck(repo);

      commits(work, 2, 'over-git');
      const second = push(work, `${server.gitUrl}/r.git`, ['<url>', 'main'], false);
      assert.equal(second.status, 0, second.stderr);
      assert.equal(git(repo, ['rev-parse', 'main']), git(work, ['rev-parse', 'main']));
      assertFsck(repo);

      // Five pushes at once to different branches, over both transports, against two workers.
      const branches = ['b1', 'b2', 'b3', 'b4', 'b5'];
      for (const b of branches) git(work, ['branch', '-f', b, 'main~1']);
      const outcomes = await Promise.all(branches.map((b, i) =>
        runAsync('git', ['push', `${i % 2 ? server.gitUrl : server.httpUrl}/r.git`, b], work, GIT_ENV)));
      for (const o of outcomes) assert.equal(o.status, 0, o.stderr);
      for (const b of branches) assert.equal(git(repo, ['rev-parse', b]), git(work, ['rev-parse', b]));

      const clone = path.join(root, 'clone');
      git(root, ['clone', '-q', `${server.httpUrl}/r.git`, clone]);
      assert.equal(git(clone, ['rev-parse', 'HEAD']), git(work, ['rev-parse', 'main']));
      assertFsck(clone);
      const log = server.access().filter(l => l.service === 'git-receive-pack');
      assert.ok(log.length >= 7, `access log has the pushes: ${log.map(l => l.raw).join('\n')}`);
    });
  });

  test('a push body in gzip (JGit sends them so) lands; an encoding http-backend does not take is refused', async () => {
    const repo = path.join(served, 'r.git');
    git(repo, ['config', 'http.receivepack', 'true']);
    await withServe(served, root, [], async (server) => {
      const old = git(repo, ['rev-parse', 'main']).trim();
      commits(work, 1, 'gzip-body');
      const tip = git(work, ['rev-parse', 'main']).trim();
      const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${tip}\n^${old}\n`, env: GIT_ENV });
      const request = (name: string) => Buffer.concat([pktBytes(`${'0'.repeat(40)} ${tip} refs/heads/${name}\0report-status agent=test\n`), Buffer.from('0000'), pack]);
      const post = async (body: Buffer, encoding: string) => {
        const reply = await postService(server.httpUrl, '/r.git', 'receive-pack', body, { 'Content-Encoding': encoding });
        return { status: reply.status, body: reply.body.toString('latin1') };
      };
      const zipped = await post(zlib.gzipSync(request('zipped')), 'gzip');
      assert.equal(zipped.status, 200);
      assert.match(zipped.body, /unpack ok\n/);
      assert.match(zipped.body, /ok refs\/heads\/zipped\n/);
      assert.equal(git(repo, ['rev-parse', 'zipped']).trim(), tip);
      assertFsck(repo);
      const refused = await post(zlib.brotliCompressSync(request('brotli')), 'br');
      assert.equal(refused.status, 415);
      assert.match(refused.body, /unsupported Content-Encoding: br/);
      assert.equal(git(repo, ['for-each-ref', 'refs/heads/brotli']), '');
    });
  });
});
