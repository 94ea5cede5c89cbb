// Servers that misbehave, and clones that are interrupted: each must end with a clear error, no
// partial repository, nothing written outside the target, and (for fetch) no ref changed.
//   - a server that answers with garbage;
//   - a server that stops in the middle of the pack (a proxy in front of git daemon cuts it);
//   - a server that advertises refs/heads/../../config (v0 and v2);
//   - a repository the daemon does not have;
//   - SIGINT while the pack is arriving (a proxy stalls it), into a new and an existing directory;
//   - a shallow clone of a commit whose tree breaks fsck's rules (object checks without connectivity).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pktLine } from '../src/protocol/pkt-line.js';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { addCommits, clientEnv, makeServerRepo, runAsync, startCuttingProxy, startDaemon, startRawServer } from './transport-servers.js';

let root: string;
let scratch: string;
let daemon: Awaited<ReturnType<typeof startDaemon>>;

/** Adds a commit with `bytes` of incompressible data on main, so most of a clone is pack data. */
function addBigBlob(repo: string, bytes: number, name: string): void {
  const data = crypto.randomBytes(bytes).toString('base64');
  const input = ['commit refs/heads/main', `committer C O Mitter <c@example.com> 1800000000 +0000`, 'data 4', 'big', 'from refs/heads/main^0',
    `M 100644 inline ${name}`, `data ${data.length}`, data, ''].join('\n');
  git(repo, ['fast-import', '--quiet'], input);
}

before(async () => {
  root = tmpDir('tsgit-hostile-root-');
  scratch = tmpDir('tsgit-hostile-');
  makeServerRepo(path.join(root, 'repo.git'));
  addBigBlob(path.join(root, 'repo.git'), 600_000, 'big.bin');
  daemon = await startDaemon(root);
});

after(async () => {
  await daemon.stop();
  rmrf(root);
  rmrf(scratch);
});

/**
 * A fresh directory to clone into (under scratch, so a failed test leaves nothing), and a check
 * that nothing but what we expect is in it afterwards.
 */
function workspace(): { dir: string; target: string; untouched(): void } {
  const dir = fs.mkdtempSync(path.join(scratch, 'work-'));
  fs.writeFileSync(path.join(dir, 'marker'), 'x');
  return {
    dir, target: path.join(dir, 'inner', 'clone'),
    untouched: () => {
      const names = fs.readdirSync(dir).sort();
      // The clone's parent may have been created (git does that too); nothing else may appear.
      assert.ok(JSON.stringify(names) === '["marker"]' || JSON.stringify(names) === '["inner","marker"]', `left behind: ${names}`);
      if (names.includes('inner')) assert.deepEqual(fs.readdirSync(path.join(dir, 'inner')), [], 'no partial repository');
      assert.ok(!fs.existsSync(path.join(dir, 'config')) && !fs.existsSync(path.join(dir, 'inner', 'config')));
    },
  };
}

/** A new bare repository under the served root, and a git runner in it that returns stdout. */
function bareRepo(name: string): (args: string[], input?: string) => string {
  const repo = path.join(root, name);
  const git = (args: string[], input?: string): string => {
    const r = spawnSync('git', args, { cwd: repo, env: GIT_ENV, input });
    assert.equal(r.status, 0, String(r.stderr));
    return String(r.stdout).trim();
  };
  fs.mkdirSync(repo);
  git(['init', '-q', '--bare']);
  return git;
}

async function tsgitClone(url: string, target: string, version: 0 | 2, cwd: string, onSpawn?: (c: ChildProcess) => void) {
  return runAsync(process.execPath, [TSGIT, 'clone', url, target], cwd, clientEnv(scratch, version), onSpawn);
}

/** Answers like git daemon's upload-pack, but with the refs we choose (v0 or v2). */
async function evilServer(version: 0 | 2, refs: { oid: string; name: string }[]) {
  return startRawServer((socket) => {
    if (version === 0) {
      const [first, ...rest] = refs;
      socket.write(Buffer.concat([
        pktLine(`${first!.oid} ${first!.name}\0multi_ack_detailed side-band-64k ofs-delta shallow symref=HEAD:refs/heads/main agent=evil\n`),
        ...rest.map((r) => pktLine(`${r.oid} ${r.name}\n`)), Buffer.from('0000'),
      ]));
      return;
    }
    socket.write(Buffer.concat([pktLine('version 2\n'), pktLine('agent=evil\n'), pktLine('ls-refs=unborn\n'), pktLine('fetch=shallow filter\n'), Buffer.from('0000')]));
    socket.once('data', () => {
      socket.write(Buffer.concat([...refs.map((r) => pktLine(`${r.oid} ${r.name}${r.name === 'HEAD' ? ' symref-target:refs/heads/main' : ''}\n`)), Buffer.from('0000')]));
    });
  });
}

describe('hostile servers', () => {
  test('garbage instead of pkt-lines: a clear error, no repository', async () => {
    const server = await startRawServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    try {
      for (const version of [0, 2] as const) {
        const ws = workspace();
        const r = await tsgitClone(server.url('repo.git'), ws.target, version, ws.dir);
        assert.equal(r.status, 128);
        assert.match(r.stderr, /fatal: .*invalid pkt-line length "HTTP" at offset 0/);
        ws.untouched();
        rmrf(ws.dir);
      }
    } finally {
      await server.stop();
    }
  });

  test('a server that stops mid-pack: a clear error, no repository', async () => {
    for (const version of [0, 2] as const) {
      const measure = await startCuttingProxy(daemon.port, Number.MAX_SAFE_INTEGER, 'cut');
      const full = workspace();
      const ok = await tsgitClone(measure.url('repo.git'), full.target, version, full.dir);
      assert.equal(ok.status, 0, ok.stderr);
      const total = measure.forwarded();
      await measure.stop();
      rmrf(full.dir);
      assert.ok(total > 400_000, `the whole answer is ${total} bytes`);

      const proxy = await startCuttingProxy(daemon.port, Math.floor(total * 0.6), 'cut');
      const ws = workspace();
      const r = await tsgitClone(proxy.url('repo.git'), ws.target, version, ws.dir);
      await proxy.stop();
      assert.equal(r.status, 128, r.stderr);
      assert.match(r.stderr, /^fatal: .*(ended|truncated|hung up)/m);
      ws.untouched();
      rmrf(ws.dir);
    }
  });

  test('a ref named refs/heads/../../config is refused before it becomes a path', async () => {
    const oid = spawnSync('git', ['rev-parse', 'main'], { cwd: path.join(root, 'repo.git'), encoding: 'utf8' }).stdout.trim();
    for (const version of [0, 2] as const) {
      const server = await evilServer(version, [{ oid, name: 'HEAD' }, { oid, name: 'refs/heads/../../config' }, { oid, name: 'refs/heads/main' }]);
      try {
        const ws = workspace();
        const r = await tsgitClone(server.url('repo.git'), ws.target, version, ws.dir);
        assert.equal(r.status, 128);
        assert.match(r.stderr, /advertised the invalid ref name "refs\/heads\/\.\.\/\.\.\/config": it contains '\.\.'/);
        ws.untouched();
        rmrf(ws.dir);

        // A fetch from it changes nothing either.
        const repo = path.join(scratch, `victim-v${version}`);
        const env = clientEnv(scratch, version);
        spawnSync('git', ['clone', '-q', `file://${root}/repo.git`, repo], { env });
        spawnSync('git', ['remote', 'set-url', 'origin', server.url('repo.git')], { cwd: repo, env });
        const before = fs.readdirSync(path.join(repo, '.git')).sort();
        const refsBefore = spawnSync('git', ['for-each-ref'], { cwd: repo, env, encoding: 'utf8' }).stdout;
        const f = await runAsync(process.execPath, [TSGIT, 'fetch'], repo, env);
        assert.equal(f.status, 128);
        assert.match(f.stderr, /invalid ref name/);
        // Nothing but FETCH_HEAD, which git empties before it connects.
        assert.deepEqual(fs.readdirSync(path.join(repo, '.git')).filter((n) => n !== 'FETCH_HEAD').sort(), before);
        assert.equal(fs.readFileSync(path.join(repo, '.git', 'FETCH_HEAD'), 'utf8'), '');
        assert.equal(spawnSync('git', ['for-each-ref'], { cwd: repo, env, encoding: 'utf8' }).stdout, refsBefore);
        rmrf(repo);
      } finally {
        await server.stop();
      }
    }
  });

  test('a repository the server does not have: its error, no repository', async () => {
    for (const version of [0, 2] as const) {
      const ws = workspace();
      const r = await tsgitClone(daemon.url('missing.git'), ws.target, version, ws.dir);
      assert.equal(r.status, 128);
      assert.match(r.stderr, /fatal: remote error: .*missing\.git/);
      ws.untouched();
      rmrf(ws.dir);
    }
  });

  test('a shallow clone still checks every object, though not what lies beyond the boundary', async () => {
    const git = bareRepo('dotgit.git');
    const blob = git(['hash-object', '-w', '--stdin'], 'x\n');
    const first = git(['commit-tree', git(['mktree'], `100644 blob ${blob}\tfile\n`), '-m', 'first']);
    const bad = git(['mktree'], `100644 blob ${blob}\t.git\n`);
    git(['update-ref', 'refs/heads/main', git(['commit-tree', bad, '-p', first, '-m', 'second'])]);
    git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
    const ws = workspace();
    const r = await runAsync(process.execPath, [TSGIT, 'clone', '--depth', '1', daemon.url('dotgit.git'), ws.target], ws.dir, clientEnv(scratch, 2));
    assert.equal(r.status, 128, r.stderr);
    assert.match(r.stderr, new RegExp(`fsck error in packed object tree ${bad}: hasDotgit`));
    ws.untouched();
    rmrf(ws.dir);
  });

  test('fetch.fsckObjects, transfer.fsckObjects and fetch.fsck.<msg-id> as git reads them; checks on when neither switch is set', async () => {
    const git = bareRepo('baddate.git');
    const tree = git(['mktree'], `100644 blob ${git(['hash-object', '-w', '--stdin'], 'x\n')}\tfile\n`);
    const commit = git(['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'],
      `tree ${tree}\nauthor A U Thor <a@example.com> not-a-date +0000\ncommitter C O Mitter <c@example.com> 1800000000 +0000\n\nbad date\n`);
    git(['update-ref', 'refs/heads/main', commit]);
    git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
    const env = clientEnv(scratch, 2);
    const url = daemon.url('baddate.git');
    // tsgit's settings, and git's with the same effect (git checks nothing when neither switch is set).
    const cases: { tsgit: string[]; git: string[]; accepted: boolean }[] = [
      { tsgit: [], git: ['-c', 'fetch.fsckObjects=true'], accepted: false },
      { tsgit: ['-c', 'transfer.fsckObjects=false'], git: ['-c', 'transfer.fsckObjects=false'], accepted: true },
      { tsgit: ['-c', 'fetch.fsckObjects=false', '-c', 'transfer.fsckObjects=true'], git: ['-c', 'fetch.fsckObjects=false', '-c', 'transfer.fsckObjects=true'], accepted: true },
      { tsgit: ['-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=false'], git: ['-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=false'], accepted: false },
      { tsgit: ['-c', 'fetch.fsck.badDate=ignore'], git: ['-c', 'fetch.fsckObjects=true', '-c', 'fetch.fsck.badDate=ignore'], accepted: true },
    ];
    for (const c of cases) {
      const oracle = spawnSync('git', [...c.git, 'clone', '-q', url, path.join(scratch, 'baddate-git')], { cwd: scratch, env, encoding: 'utf8' });
      rmrf(path.join(scratch, 'baddate-git'));
      assert.equal(oracle.status === 0, c.accepted, `git ${c.git.join(' ')}: ${oracle.stderr}`);
      const ws = workspace();
      const r = await runAsync(process.execPath, [TSGIT, ...c.tsgit, 'clone', url, ws.target], ws.dir, env);
      if (c.accepted) {
        assert.equal(r.status, 0, `${c.tsgit.join(' ')}: ${r.stderr}`);
        assert.equal(spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ws.target, env, encoding: 'utf8' }).stdout.trim(), commit);
      } else {
        assert.equal(r.status, 128, `${c.tsgit.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`fsck error in packed object commit ${commit}: badDate`));
        ws.untouched();
      }
      rmrf(ws.dir);
    }
    // fetch reads the same settings
    const into = path.join(scratch, 'baddate-fetch');
    spawnSync('git', ['init', '-q', into], { env });
    const refused = await runAsync(process.execPath, [TSGIT, 'fetch', url, 'main'], into, env);
    assert.equal(refused.status, 128, refused.stderr);
    assert.match(refused.stderr, /badDate/);
    const fetched = await runAsync(process.execPath, [TSGIT, '-c', 'fetch.fsckObjects=false', 'fetch', url, 'main'], into, env);
    assert.equal(fetched.status, 0, fetched.stderr);
    assert.equal(fs.readFileSync(path.join(into, '.git', 'FETCH_HEAD'), 'utf8').slice(0, 40), commit);
    rmrf(into);
  });

  test('a fetch cut off mid-pack changes no ref and leaves no temporary pack', async () => {
    const repo = path.join(root, 'fetched.git');
    makeServerRepo(repo);
    const clone = path.join(scratch, 'fetch-victim');
    const env = clientEnv(scratch, 2);
    spawnSync('git', ['clone', '-q', `file://${repo}`, clone], { env });
    addBigBlob(repo, 600_000, 'later.bin');
    addCommits(repo, 'main', 1);
    const proxy = await startCuttingProxy(daemon.port, 200_000, 'cut');
    try {
      spawnSync('git', ['remote', 'set-url', 'origin', proxy.url('fetched.git')], { cwd: clone, env });
      const refsBefore = spawnSync('git', ['for-each-ref'], { cwd: clone, env, encoding: 'utf8' }).stdout;
      const packsBefore = fs.readdirSync(path.join(clone, '.git', 'objects', 'pack')).sort();
      const r = await runAsync(process.execPath, [TSGIT, 'fetch'], clone, env);
      assert.equal(r.status, 128, r.stderr);
      assert.equal(spawnSync('git', ['for-each-ref'], { cwd: clone, env, encoding: 'utf8' }).stdout, refsBefore);
      assert.deepEqual(fs.readdirSync(path.join(clone, '.git', 'objects', 'pack')).sort(), packsBefore);
      // git empties FETCH_HEAD once it has the refs, before the pack comes.
      assert.equal(fs.readFileSync(path.join(clone, '.git', 'FETCH_HEAD'), 'utf8'), '', 'FETCH_HEAD is left empty');
      assert.equal(spawnSync('git', ['fsck', '--full', '--no-dangling'], { cwd: clone, env }).status, 0);
    } finally {
      await proxy.stop();
      rmrf(clone);
    }
  });
});

describe('interrupted clones', () => {
  for (const existing of [false, true]) {
    test(`SIGINT while the pack arrives removes ${existing ? "the clone's files from the existing directory" : 'the new directory'}`, async () => {
      const measure = await startCuttingProxy(daemon.port, Number.MAX_SAFE_INTEGER, 'cut');
      const full = workspace();
      assert.equal((await tsgitClone(measure.url('repo.git'), full.target, 2, full.dir)).status, 0);
      const total = measure.forwarded();
      await measure.stop();
      rmrf(full.dir);

      const limit = Math.floor(total * 0.5);
      const proxy = await startCuttingProxy(daemon.port, limit, 'stall');
      const ws = workspace();
      if (existing) fs.mkdirSync(ws.target, { recursive: true });
      let child: ChildProcess | null = null;
      const done = tsgitClone(proxy.url('repo.git'), ws.target, 2, ws.dir, (c) => { child = c; });
      const deadline = Date.now() + 20_000;
      while (proxy.forwarded() < limit && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(fs.existsSync(path.join(ws.target, '.git')), 'the clone had started writing');
      child!.kill('SIGINT');
      const r = await done;
      await proxy.stop();
      assert.equal(r.status, 130, r.stderr);
      if (existing) {
        assert.deepEqual(fs.readdirSync(ws.target), [], 'the directory stays, emptied');
      } else {
        assert.ok(!fs.existsSync(ws.target));
        ws.untouched();
      }
      rmrf(ws.dir);
    });
  }
});
