// What a hostile or broken push gets from tsgit receive-pack: a tree git's fsck refuses (a `.git`
// entry, a `.gitmodules` whose url or path starts with `-`), a thin pack whose base nobody has, a
// truncated pack, garbage, a delta bomb, a pack over receive.maxInputSize, objects that reach a
// commit nobody sent, a push certificate. Each is refused, the refs stay as they were, and nothing
// written during the push is left: `find objects -newer <marker>` lists nothing but the objects
// directory itself (whose mtime the quarantine's coming and going changes, as git's does).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { formatPushRequest, type PushCommand } from '../src/protocol/index.js';
import { Repository } from '../src/repository/repository.js';
import { receivePack, type ReceivePackRequest, type ReceivePackResult } from '../src/server/receive-pack/index.js';
import { git, gitBuf, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { makeDelta, objectId, packBytes, type RawEntry } from './pack-builder.js';
import { commits, push, quarantines, refsOf, Twins, workRepo } from './push-helpers.js';

const ZERO = '0'.repeat(40);

/**
 * Marks the time; `leftBehind()` lists what under objects/ changed since. The clock the file
 * system stamps with is coarse (a few milliseconds): the push starts a tick later.
 */
async function marker(repo: string): Promise<{ leftBehind(): string[] }> {
  const file = path.join(path.dirname(repo), `marker-${path.basename(repo)}`);
  fs.writeFileSync(file, '');
  await new Promise((resolve) => setTimeout(resolve, 30));
  return {
    leftBehind: () => spawnSync('find', ['objects', '-newer', file], { cwd: repo, encoding: 'utf8' }).stdout
      .split('\n').filter((l) => l !== '' && l !== 'objects'),
  };
}

/** The pack bytes git writes for `revs` (rev-list arguments) in `repo`. */
function packOf(repo: string, revs: string[], thin = false): Buffer {
  return gitBuf(repo, ['pack-objects', '--stdout', '--revs', ...(thin ? ['--thin'] : [])], revs.join('\n') + '\n');
}

/** A pack made by hand (see pack-builder.ts), as bytes. */
const rawPack = (entries: RawEntry[]): Buffer => packBytes(entries).data;

async function rawPush(repo: string, commands: PushCommand[], pack: Buffer | null, caps = 'report-status', extra: Partial<ReceivePackRequest> = {}):
  Promise<{ result: ReceivePackResult | null; error: Error | null; output: string; stderr: string }> {
  const request = formatPushRequest(commands, caps.split(' ').map((name) => ({ name })));
  const chunks: Buffer[] = [];
  let stderr = '';
  const r = new Repository(repo, null);
  try {
    const result = await receivePack(r, {
      input: (async function* () { yield request; if (pack) yield pack; })(),
      output: (c) => { chunks.push(Buffer.from(c)); },
      stderr: (t) => { stderr += t; },
      statelessRpc: true,
      hookScripts: false,
      ...extra,
    });
    return { result, error: null, output: Buffer.concat(chunks).toString('latin1'), stderr };
  } catch (e) {
    return { result: null, error: e as Error, output: Buffer.concat(chunks).toString('latin1'), stderr };
  } finally {
    r.close();
  }
}

describe('hostile pushes to tsgit receive-pack', () => {
  let root: string, work: string, server: string, base: string;
  before(() => {
    root = tmpDir('tsgit-rp-hostile-');
    work = workRepo(root, 'work', 3);
    base = git(work, ['rev-parse', 'HEAD']).trim();
    server = path.join(root, 'server.git');
    git(root, ['clone', '-q', '--bare', work, server]);
  });
  after(() => rmrf(root));

  /** A commit on top of main in `work` whose root tree is `tree` (made with --literally). */
  function commitWithTree(entries: { mode: string; name: string; oid: string }[]): string {
    const body = Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')])));
    const tree = git(work, ['hash-object', '-w', '--literally', '-t', 'tree', '--stdin'], body).trim();
    return git(work, ['commit-tree', tree, '-p', base, '-m', 'hostile'], undefined, GIT_ENV).trim();
  }

  async function refused(commit: string, reason: RegExp): Promise<void> {
    const before = refsOf(server);
    const m = await marker(server);
    git(work, ['update-ref', 'refs/heads/hostile', commit]);
    const r = push(work, server, ['<url>', 'hostile'], true);
    assert.notEqual(r.status, 0);
    assert.match(r.porcelain, /\(unpacker error\)/);
    assert.match(r.stderr, reason);
    assert.equal(refsOf(server), before);
    assert.deepEqual(m.leftBehind(), []);
  }

  test('a tree with a .git entry', async () => {
    const blob = git(work, ['hash-object', '-w', '--stdin'], '[core]\n\tbare = false\n').trim();
    await refused(commitWithTree([{ mode: '100644', name: '.git', oid: blob }]), /hasDotgit/);
  });

  test('a tree with a .GIT directory (any spelling git folds)', async () => {
    const inner = git(work, ['mktree'], '').trim();
    await refused(commitWithTree([{ mode: '40000', name: '.GIT', oid: inner }]), /hasDotgit/);
  });

  test('a .gitmodules whose url starts with -', async () => {
    const blob = git(work, ['hash-object', '-w', '--stdin'], '[submodule "x"]\n\tpath = x\n\turl = -upload-pack=touch${IFS}pwned\n').trim();
    await refused(commitWithTree([{ mode: '100644', name: '.gitmodules', oid: blob }]), /gitmodulesUrl: disallowed submodule url/);
  });

  test('a .gitmodules whose path starts with -, and one hidden as GITMOD~1', async () => {
    const blob = git(work, ['hash-object', '-w', '--stdin'], '[submodule "x"]\n\tpath = -x\n\turl = ./x\n').trim();
    await refused(commitWithTree([{ mode: '100644', name: '.gitmodules', oid: blob }]), /gitmodulesPath/);
    const url = git(work, ['hash-object', '-w', '--stdin'], '[submodule "../../x"]\n\tpath = x\n\turl = ./x\n').trim();
    await refused(commitWithTree([{ mode: '100644', name: 'GITMOD~1', oid: url }]), /gitmodulesName/);
  });

  test('git receive-pack with receive.fsckObjects refuses the same .gitmodules', () => {
    const copy = path.join(root, 'git-server.git');
    git(root, ['clone', '-q', '--bare', work, copy]);
    git(copy, ['config', 'receive.fsckObjects', 'true']);
    const blob = git(work, ['hash-object', '-w', '--stdin'], '[submodule "x"]\n\tpath = x\n\turl = -x\n').trim();
    git(work, ['update-ref', 'refs/heads/hostile', commitWithTree([{ mode: '100644', name: '.gitmodules', oid: blob }])]);
    assert.match(push(work, copy, ['<url>', 'hostile:refs/heads/fresh'], false).porcelain, /\(unpacker error\)/);
  });

  test('a thin pack whose base nobody has', async () => {
    const baseBlob = Buffer.from('a base nobody has\n'.repeat(10));
    const result = Buffer.from('a base nobody has\n'.repeat(10) + 'and more\n');
    const blobId = objectId(3, result).toString('hex');
    const m = await marker(server);
    const r = await rawPush(server, [{ oldOid: ZERO, newOid: blobId, name: 'refs/tags/blob' }], rawPack([
      { type: 7, baseOid: objectId(3, baseBlob), data: makeDelta(baseBlob.length, result.length, baseBlob.length, Buffer.from('and more\n')) },
    ]));
    assert.equal(r.error, null);
    assert.equal(r.result!.unpackError, 'unpack-objects abnormal exit');
    assert.match(r.output, /unpack unpack-objects abnormal exit/);
    assert.match(r.output, /ng refs\/tags\/blob unpacker error/);
    assert.match(r.stderr, /unresolved delta/);
    assert.deepEqual(m.leftBehind(), []);
  });

  test('a truncated pack, and garbage in its place', async () => {
    commits(work, 120, 'truncated');
    const tip = git(work, ['rev-parse', 'HEAD']).trim();
    const pack = packOf(work, [tip, `^${base}`]);
    for (const [bytes, status] of [
      [pack.subarray(0, pack.length - 100), 'index-pack abnormal exit'],
      [pack.subarray(0, 7), 'eof before pack header was fully read'],
      [Buffer.from('GARBAGE!'.repeat(10)), 'protocol error (pack signature mismatch detected)'],
    ] as const) {
      const m = await marker(server);
      const r = await rawPush(server, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], bytes);
      assert.equal(r.result?.unpackError, status);
      assert.equal(git(server, ['rev-parse', 'main']).trim(), base);
      assert.deepEqual(m.leftBehind(), []);
    }
  });

  test('a delta bomb (a delta that claims a 4 GiB result) is refused without allocating it', async () => {
    const baseBlob = Buffer.from('x');
    const bomb = Buffer.concat([Buffer.from([1]), Buffer.from([0x80, 0x80, 0x80, 0x80, 0x10]), Buffer.from([0x91, 0, 1])]);
    const before = process.memoryUsage().rss;
    const m = await marker(server);
    const r = await rawPush(server, [{ oldOid: ZERO, newOid: objectId(3, baseBlob).toString('hex'), name: 'refs/tags/bomb' }], rawPack([
      { type: 3, data: baseBlob },
      { type: 7, baseOid: objectId(3, baseBlob), data: bomb },
    ]));
    assert.ok(r.result?.unpackError);
    // Refused on reading the delta's header, before any result is allocated (an allocation that
    // is never written would not show in the RSS).
    assert.match(r.stderr + r.output, /delta declares a \d+-byte result/);
    assert.ok(process.memoryUsage().rss - before < 256 << 20, 'memory stayed bounded');
    assert.deepEqual(m.leftBehind(), []);
  });

  test('receive.maxInputSize', async () => {
    git(server, ['config', 'receive.maxInputSize', '2k']);
    try {
      const tip = git(work, ['rev-parse', 'HEAD']).trim();
      const r = await rawPush(server, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], packOf(work, [tip, `^${base}`]));
      assert.equal(r.result?.unpackError, 'index-pack abnormal exit');
      assert.match(r.stderr, /pack exceeds maximum allowed size/);
    } finally {
      git(server, ['config', '--unset', 'receive.maxInputSize']);
    }
  });

  test('the object count and idle-time limits', async () => {
    const tip = git(work, ['rev-parse', 'HEAD']).trim();
    const r = await rawPush(server, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], packOf(work, [tip, `^${base}`]),
      'report-status', { limits: { maxObjects: 10 } });
    assert.equal(r.result?.unpackError, 'index-pack abnormal exit');
    assert.match(r.stderr, /more than the 10 this server accepts/);
    const request = formatPushRequest([{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], [{ name: 'report-status' }]);
    const repo = new Repository(server, null);
    const started = Date.now();
    await assert.rejects(receivePack(repo, {
      input: (async function* () { yield request; await new Promise((resolve) => setTimeout(resolve, 5000)); })(),
      output: () => {}, statelessRpc: true, limits: { timeout: 1 },
    }), /no data from the client for 1 seconds/);
    assert.ok(Date.now() - started < 4000);
    repo.close();
    assert.deepEqual(quarantines(server), []);
  });

  test('without fsck, the connectivity walk still refuses a tip whose history is missing', async () => {
    git(server, ['config', 'receive.fsckObjects', 'false']);
    try {
      const tip = git(work, ['rev-parse', 'HEAD']).trim();
      // Only the last commit's objects: its parent is neither sent nor on the server.
      const pack = packOf(work, [tip, `^${tip}~1`]);
      const r = await rawPush(server, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], pack);
      assert.equal(r.result?.unpackError, null);
      assert.match(r.output, /ng refs\/heads\/main missing necessary objects/);
      assert.equal(git(server, ['rev-parse', 'main']).trim(), base);
    } finally {
      git(server, ['config', '--unset', 'receive.fsckObjects']);
    }
  });

  test('a commit that names an incomplete object the repository happens to hold is refused', async () => {
    // A dangling tree on the server whose blob is gone (what a half-pruned repository may hold).
    const absent = 'd'.repeat(40);
    const holey = git(server, ['hash-object', '-w', '--literally', '-t', 'tree', '--stdin'],
      Buffer.concat([Buffer.from('100644 lost\0'), Buffer.from(absent, 'hex')])).trim();
    const current = git(server, ['rev-parse', 'main']).trim();
    const body = Buffer.from(`tree ${holey}\nparent ${current}\nauthor A <a@example.com> 1700000000 +0000\n`
      + 'committer C <c@example.com> 1700000000 +0000\n\npoints at a hole\n');
    const commit = objectId(1, body).toString('hex');
    const pack = rawPack([{ type: 1, data: body }]);
    const r = await rawPush(server, [{ oldOid: current, newOid: commit, name: 'refs/heads/main' }], pack);
    assert.equal(r.result?.unpackError, null, r.stderr);
    assert.match(r.output, /ng refs\/heads\/main missing necessary objects/);
    assert.match(r.stderr, new RegExp(`missing blob ${absent}`));
    assert.equal(git(server, ['rev-parse', 'main']).trim(), current);
  });

  test('with fsck, the same pack is an unpack error (an object it names is missing)', async () => {
    const tip = git(work, ['rev-parse', 'HEAD']).trim();
    const r = await rawPush(server, [{ oldOid: base, newOid: tip, name: 'refs/heads/main' }], packOf(work, [tip, `^${tip}~1`]));
    assert.match(r.result?.unpackError ?? '', /abnormal exit/);
    assert.match(r.stderr, /did not receive expected object/);
  });

  test('receive.fsck.<msg-id> and receive.fsck.skipList let a refused tree in, as git does', async () => {
    const blob = git(work, ['hash-object', '-w', '--stdin'], 'x\n').trim();
    const bad = commitWithTree([{ mode: '100644', name: '.git', oid: blob }]);
    const tree = git(work, ['rev-parse', `${bad}^{tree}`]).trim();
    const pack = packOf(work, [bad, `^${base}`]);
    git(server, ['config', 'receive.fsck.hasDotgit', 'warn']);
    try {
      const r = await rawPush(server, [{ oldOid: ZERO, newOid: bad, name: 'refs/heads/allowed' }], pack);
      assert.equal(r.result?.unpackError, null, r.stderr);
    } finally {
      git(server, ['config', '--unset', 'receive.fsck.hasDotgit']);
    }
    const skip = path.join(root, 'skip-list');
    fs.writeFileSync(skip, `# trees we know about\n${tree}\n`);
    git(server, ['config', 'receive.fsck.skipList', skip]);
    try {
      const again = commitWithTree([{ mode: '100644', name: '.git', oid: blob }, { mode: '100644', name: 'other', oid: blob }]);
      const refused = await rawPush(server, [{ oldOid: ZERO, newOid: again, name: 'refs/heads/skip' }], packOf(work, [again, `^${base}`]));
      assert.match(refused.result?.unpackError ?? '', /abnormal exit/, 'a tree not on the list is still refused');
      git(server, ['update-ref', '-d', 'refs/heads/allowed']);
      const skipped = await rawPush(server, [{ oldOid: ZERO, newOid: bad, name: 'refs/heads/skipped' }], pack);
      assert.equal(skipped.result?.unpackError, null, skipped.stderr);
    } finally {
      git(server, ['config', '--unset', 'receive.fsck.skipList']);
    }
  });

  test('a client that vanishes or stalls mid-pack leaves no quarantine behind', async () => {
    commits(work, 150, 'vanish');
    const tip = git(work, ['rev-parse', 'HEAD']).trim();
    const current = git(server, ['rev-parse', 'main']).trim();
    const pack = packOf(work, [tip, `^${current}`]);
    const request = formatPushRequest([{ oldOid: current, newOid: tip, name: 'refs/heads/main' }], [{ name: 'report-status' }]);
    for (const ending of ['vanish', 'stall'] as const) {
      const m = await marker(server);
      const child = spawn(process.execPath, [TSGIT, 'receive-pack', '--stateless-rpc', server], { env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdout.resume();
      child.stderr.resume();
      child.stdin.write(Buffer.concat([request, pack.subarray(0, pack.length >> 1)]));
      for (let i = 0; i < 400 && quarantines(server).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(quarantines(server).length, 1, 'quarantined while it arrives');
      if (ending === 'vanish') child.stdin.end();
      else child.kill('SIGTERM');
      const code = await exited;
      assert.equal(code, ending === 'vanish' ? 0 : 143);
      assert.equal(git(server, ['rev-parse', 'main']).trim(), current);
      assert.deepEqual(m.leftBehind(), []);
    }
  });

  test('a receive-pack killed mid-pack (kill -9) leaves its quarantine, and the next push removes it, not git\'s', async () => {
    commits(work, 150, 'killed');
    const tip = git(work, ['rev-parse', 'HEAD']).trim();
    const current = git(server, ['rev-parse', 'main']).trim();
    const pack = packOf(work, [tip, `^${current}`]);
    const request = formatPushRequest([{ oldOid: current, newOid: tip, name: 'refs/heads/main' }], [{ name: 'report-status' }]);
    const objects = path.join(server, 'objects');
    // One that git's receive-pack would have made (no pid in its name): not tsgit's to judge.
    const gits = 'tmp_objdir-incoming-Ab3xYz';
    fs.mkdirSync(path.join(objects, gits));
    const child = spawn(process.execPath, [TSGIT, 'receive-pack', '--stateless-rpc', server], { env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.write(Buffer.concat([request, pack.subarray(0, pack.length >> 1)]));
    for (let i = 0; i < 400 && quarantines(server).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(quarantines(server).length, 2, 'quarantined while it arrives');
    child.kill('SIGKILL');
    await exited;
    assert.equal(quarantines(server).length, 2, 'a killed process cannot clean up');
    const r = push(work, server, ['<url>', 'main'], true);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(git(server, ['rev-parse', 'main']).trim(), tip);
    assert.deepEqual(quarantines(server), [gits]);
    fs.rmdirSync(path.join(objects, gits));
  });

  test('a ref name too long for a file name is rejected alone, as git rejects it', () => {
    // Found by fuzzing revision names: lstat's ENAMETOOLONG was not "no such file" to the ref
    // store, so this push ended receive-pack with a fatal error, the other ref not updated.
    const twins = new Twins(fs.mkdtempSync(path.join(root, 'long-')), server);
    const r = twins.push(work, ['<url>', `HEAD:refs/heads/${'x'.repeat(300)}`, 'HEAD:refs/heads/short']);
    assert.match(r.porcelain, /\*\tHEAD:refs\/heads\/short\t\[new branch\]/);
    assert.match(r.porcelain, /!\tHEAD:refs\/heads\/x{300}\t\[remote rejected\] \(failed to update ref\)/);
  });

  test('a push certificate is refused', async () => {
    const request = Buffer.concat([Buffer.from('000epush-cert\n'), Buffer.from('0000')]);
    const r = new Repository(server, null);
    const out: Buffer[] = [];
    await assert.rejects(receivePack(r, {
      input: (async function* () { yield request; })(), output: (c) => { out.push(Buffer.from(c)); }, statelessRpc: true,
    }), /push-cert\) are not supported/);
    assert.match(Buffer.concat(out).toString(), /ERR .*not supported/);
    r.close();
  });
});
