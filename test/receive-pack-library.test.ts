// receivePack() as an embedder calls it: hooks as functions (pre-receive, update, post-receive,
// post-update), an authorize callback that sees every ref update (and refuses an atomic push
// whole), output on the side-band, and report-status-v2. The pack comes from git pack-objects,
// the commands from the protocol module. Then concurrent pushes (git push processes racing
// through tsgit receive-pack): to one ref, one wins and the other gets git's "failed to update
// ref"; to different refs, both go through.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { decodePktLines, formatPushRequest, readStatusReport, PacketReader, type PushCommand } from '../src/protocol/index.js';
import { Repository } from '../src/repository/repository.js';
import { Config } from '../src/config/index.js';
import { receivePackService } from '../src/server/receive-pack-service.js';
import { enabledForDaemon, enabledForHttp } from '../src/server/service.js';
import {
  receivePack, type ReceiveHooks, type ReceivePackRequest,
} from '../src/server/receive-pack/index.js';
import { git, gitBuf, GIT_ENV, rmrf, tmpDir } from './helpers.js';
import { assertFsck, commits, RECEIVE_PACK, workRepo } from './push-helpers.js';
import { runAsync } from './transport-servers.js';
import fs from 'node:fs';

interface Pushed {
  report: Awaited<ReturnType<typeof readStatusReport>>;
  progress: string;
}

/** Runs receivePack over `commands` with the pack for `revs`, asking for side-band-64k. */
async function libraryPush(repo: string, work: string, commands: PushCommand[], revs: string[],
  extra: Partial<ReceivePackRequest> = {}, caps = ['report-status-v2', 'side-band-64k']): Promise<Pushed> {
  const request = formatPushRequest(commands, caps.map((name) => ({ name })));
  const pack = revs.length ? gitBuf(work, ['pack-objects', '--stdout', '--revs', '--thin'], revs.join('\n') + '\n') : null;
  const out: Buffer[] = [];
  const r = new Repository(repo, null);
  try {
    await receivePack(r, {
      input: (async function* () { yield request; if (pack) yield pack; })(),
      output: (c) => { out.push(Buffer.from(c)); },
      statelessRpc: true,
      ...extra,
    });
  } finally {
    r.close();
  }
  if (!caps.includes('side-band-64k')) return { report: await readStatusReport(new PacketReader([Buffer.concat(out)])), progress: '' };
  // Band 1 carries the report's pkt-lines, band 2 what the client shows as "remote: ...".
  let band1 = Buffer.alloc(0), progress = '';
  for (const p of decodePktLines(Buffer.concat(out))) {
    if (p.type !== 'data') continue;
    if (p.payload[0] === 1) band1 = Buffer.concat([band1, p.payload.subarray(1)]);
    else if (p.payload[0] === 2) progress += p.payload.subarray(1).toString();
  }
  return { report: await readStatusReport(new PacketReader([band1])), progress };
}

describe('receivePack() with hooks as functions and an authorize callback', () => {
  let root: string, work: string, server: string, base: string;
  before(() => {
    root = tmpDir('tsgit-rp-lib-');
    work = workRepo(root, 'work', 2);
    base = git(work, ['rev-parse', 'HEAD']).trim();
    server = path.join(root, 'server.git');
    git(root, ['clone', '-q', '--bare', work, server]);
  });
  after(() => rmrf(root));

  test('every hook is called with what git would give the script, and can print', async () => {
    const calls: string[] = [];
    const hooks: ReceiveHooks = {
      preReceive: (cmds, ctx) => {
        calls.push(`pre ${cmds.map((c) => c.name).join(',')} ${ctx.pushOptions.join(',')}`);
        // The pushed objects are readable from the quarantine.
        assert.ok(ctx.odb.has(Buffer.from(cmds[0]!.newOid, 'hex')));
        ctx.print('checked by a function\n');
      },
      update: (c) => { calls.push(`update ${c.name}`); return true; },
      postReceive: (cmds) => { calls.push(`post-receive ${cmds.map((c) => c.name).join(',')}`); },
      postUpdate: (refs) => { calls.push(`post-update ${refs.join(',')}`); },
    };
    const tip = commits(work, 1, 'lib');
    const r = await libraryPush(server, work, [
      { oldOid: base, newOid: tip, name: 'refs/heads/main' },
      { oldOid: '0'.repeat(40), newOid: tip, name: 'refs/heads/copy' },
    ], [tip, `^${base}`], { hooks });
    assert.deepEqual(r.report, { unpackError: null, refs: [
      { name: 'refs/heads/main', error: null, options: [] }, { name: 'refs/heads/copy', error: null, options: [] },
    ] });
    assert.deepEqual(calls, ['pre refs/heads/main,refs/heads/copy ', 'update refs/heads/main', 'update refs/heads/copy',
      'post-receive refs/heads/main,refs/heads/copy', 'post-update refs/heads/main,refs/heads/copy']);
    assert.match(r.progress, /checked by a function/);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), tip);
    base = tip;
    assertFsck(server);
  });

  test('pre-receive returning false refuses the push; update returning false refuses one ref', async () => {
    const tip = commits(work, 1, 'refuse');
    const refused = await libraryPush(server, work, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], [tip, `^${base}`],
      { hooks: { preReceive: () => false } });
    assert.equal(refused.report.refs[0]!.error, 'pre-receive hook declined');
    const one = await libraryPush(server, work, [
      { oldOid: base, newOid: tip, name: 'refs/heads/main' },
      { oldOid: base, newOid: tip, name: 'refs/heads/copy' },
    ], [tip, `^${base}`], { hooks: { update: (c) => c.name !== 'refs/heads/copy' } });
    assert.deepEqual(one.report.refs.map((x) => x.error), [null, 'hook declined']);
    assert.match(one.progress, /error: hook declined to update refs\/heads\/copy/);
    base = tip;
  });

  test('authorize sees every update and can protect a branch', async () => {
    const tip = commits(work, 1, 'authorize');
    const seen: string[] = [];
    const r = await libraryPush(server, work, [
      { oldOid: base, newOid: tip, name: 'refs/heads/main' },
      { oldOid: '0'.repeat(40), newOid: tip, name: 'refs/heads/release' },
    ], [tip, `^${base}`], {
      authorize: (u) => {
        seen.push(`${u.name} ${u.oldOid.slice(0, 7)}..${u.newOid.slice(0, 7)}`);
        return u.name === 'refs/heads/release' ? 'release branches are protected' : true;
      },
    });
    assert.deepEqual(seen, [`refs/heads/main ${base.slice(0, 7)}..${tip.slice(0, 7)}`, `refs/heads/release 0000000..${tip.slice(0, 7)}`]);
    assert.deepEqual(r.report.refs.map((x) => x.error), [null, 'release branches are protected']);
    assert.throws(() => git(server, ['rev-parse', '--verify', '-q', 'refs/heads/release']));
    base = tip;
  });

  test('atomic: one refusal, nothing moves', async () => {
    const tip = commits(work, 1, 'atomic');
    const r = await libraryPush(server, work, [
      { oldOid: base, newOid: tip, name: 'refs/heads/main' },
      { oldOid: '0'.repeat(40), newOid: tip, name: 'refs/heads/other' },
    ], [tip, `^${base}`], { hooks: { update: (c) => c.name === 'refs/heads/main' } }, ['report-status', 'atomic']);
    assert.deepEqual(r.report.refs.map((x) => x.error), ['atomic push failure', 'hook declined']);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), base);
  });

  test('atomic: one refusal by authorize, nothing moves; an empty reason still refuses', async () => {
    const tip = commits(work, 1, 'atomic-authorize');
    const r = await libraryPush(server, work, [
      { oldOid: base, newOid: tip, name: 'refs/heads/main' },
      { oldOid: '0'.repeat(40), newOid: tip, name: 'refs/heads/guarded' },
    ], [tip, `^${base}`], { authorize: (u) => u.name !== 'refs/heads/guarded' || '' }, ['report-status', 'atomic']);
    assert.deepEqual(r.report.refs.map((x) => x.error), ['atomic push failure', 'refused by the server']);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), base);
    assert.throws(() => git(server, ['rev-parse', '--verify', '-q', 'refs/heads/guarded']));
  });

  test('a deletion whose expected old value is stale fails, the ref stays', async () => {
    const tip = git(server, ['rev-parse', 'copy']).trim();
    const stale = git(server, ['rev-parse', 'copy~1']).trim();
    const r = await libraryPush(server, work, [{ oldOid: stale, newOid: '0'.repeat(40), name: 'refs/heads/copy' }], []);
    assert.equal(r.report.refs[0]!.error, 'failed to delete');
    assert.match(r.progress, /error: cannot lock ref 'refs\/heads\/copy': is at [0-9a-f]{40} but expected/);
    assert.equal(git(server, ['rev-parse', 'copy']).trim(), tip);
    const main = await libraryPush(server, work, [{ oldOid: git(server, ['rev-parse', 'main']).trim(), newOid: '0'.repeat(40), name: 'refs/heads/main' }], []);
    assert.equal(main.report.refs[0]!.error, 'deletion of the current branch prohibited');
  });
});

describe('who may push over HTTP and git://, as git http-backend and git daemon decide', () => {
  test('http.receivepack: on for authenticated requests unless false, off for anonymous ones unless true', () => {
    const dir = tmpDir('tsgit-rp-enable-');
    try {
      git(dir, ['init', '-q', '--bare', '.']);
      const config = () => Config.loadSync(dir);
      // The rules the HTTP handler and the git:// daemon apply (service.ts), for the receive-pack service.
      const http = (c: Config, authenticated: boolean) => enabledForHttp(receivePackService, c, authenticated ? 'alice' : null);
      const daemon = (c: Config, enabledByServer: boolean) => enabledForDaemon(receivePackService, c, { enabled: enabledByServer });
      assert.deepEqual([http(config(), true), http(config(), false)], [true, false]);
      git(dir, ['config', 'http.receivepack', 'true']);
      assert.deepEqual([http(config(), true), http(config(), false)], [true, true]);
      git(dir, ['config', 'http.receivepack', 'false']);
      assert.deepEqual([http(config(), true), http(config(), false)], [false, false]);
      assert.deepEqual([daemon(config(), false), daemon(config(), true)], [false, true]);
      git(dir, ['config', 'daemon.receivepack', 'true']);
      assert.equal(daemon(config(), false), true);
      git(dir, ['config', 'daemon.receivepack', 'false']);
      assert.equal(daemon(config(), true), false);
    } finally {
      rmrf(dir);
    }
  });
});

describe('concurrent pushes through tsgit receive-pack', () => {
  let root: string, server: string;
  before(() => {
    root = tmpDir('tsgit-rp-race-');
    const seed = workRepo(root, 'seed', 1);
    server = path.join(root, 'server.git');
    git(root, ['clone', '-q', '--bare', seed, server]);
    // Both pushes get past their checks before either updates the ref.
    fs.writeFileSync(path.join(server, 'hooks', 'pre-receive'), '#!/bin/sh\ncat >/dev/null\nsleep 1\n', { mode: 0o755 });
  });
  after(() => rmrf(root));

  function clone(name: string, tag: string): string {
    const dir = path.join(root, name);
    git(root, ['clone', '-q', server, dir]);
    commits(dir, 2, tag);
    return dir;
  }

  test('to the same ref: exactly one wins, the other is told "failed to update ref"', async () => {
    const a = clone('a', 'a'), b = clone('b', 'b');
    const run = (dir: string) => runAsync('git', ['push', '--porcelain', `--receive-pack=${RECEIVE_PACK}`, server, 'main'], dir, GIT_ENV);
    const [ra, rb] = await Promise.all([run(a), run(b)]);
    const ok = [ra, rb].filter((r) => r.status === 0);
    const failed = [ra, rb].filter((r) => r.status !== 0);
    assert.equal(ok.length, 1, `one push wins: ${ra.stderr} / ${rb.stderr}`);
    assert.match(failed[0]!.stdout, /\[remote rejected\] \(failed to update ref\)/);
    assert.match(failed[0]!.stderr, /remote: error: cannot lock ref 'refs\/heads\/main'/);
    const winner = ok[0] === ra ? a : b;
    assert.equal(git(server, ['rev-parse', 'main']).trim(), git(winner, ['rev-parse', 'HEAD']).trim());
    assertFsck(server);
  });

  test('to different refs: both go through', async () => {
    const c = clone('c', 'c'), d = clone('d', 'd');
    const run = (dir: string, ref: string) => runAsync('git', ['push', `--receive-pack=${RECEIVE_PACK}`, server, `HEAD:refs/heads/${ref}`], dir, GIT_ENV);
    const [rc, rd] = await Promise.all([run(c, 'from-c'), run(d, 'from-d')]);
    assert.equal(rc.status, 0, rc.stderr);
    assert.equal(rd.status, 0, rd.stderr);
    assert.equal(git(server, ['rev-parse', 'from-c']).trim(), git(c, ['rev-parse', 'HEAD']).trim());
    assert.equal(git(server, ['rev-parse', 'from-d']).trim(), git(d, ['rev-parse', 'HEAD']).trim());
    assertFsck(server);
  });
});
