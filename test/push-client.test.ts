// `tsgit push` against git-core servers (git daemon --enable=receive-pack, git http-backend behind
// a CGI bridge, git-receive-pack over ssh and as a local process) and against tsgit receive-pack,
// side by side with `git push` doing the same: the same --porcelain report and exit status, the
// same refs on the server afterwards, and `git fsck --full` clean there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { TsgitSession } from './cli-batch.js';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';
import { assertFsck, commits, RECEIVE_PACK, refsOf, workRepo } from './push-helpers.js';
import { makeSshShim, runAsync, startDaemon, startHttpBackend, type Server } from './transport-servers.js';

interface Side { status: number | null; stdout: string; stderr: string }

// both() runs tsgit push through the CLI in one session process (cli-batch.ts), but for its first
// push to each pair of repositories, which a spawned bin/tsgit makes: a process per push was a
// large part of this file's time. The other tests spawn bin/tsgit as before.
let session: TsgitSession;
before(() => { session = new TsgitSession(); });
after(() => session.stop());
const spawnedTo = new WeakSet<object>();

/** Pushes from `work` with git to `gitRepo` and with tsgit to `tsRepo` (URLs from `url`); compares. */
async function both(work: string, url: (repo: string) => string, repos: { git: string; ts: string }, args: string[],
  extra: { env?: NodeJS.ProcessEnv; gitArgs?: string[]; tsArgs?: string[] } = {}): Promise<{ git: Side; ts: Side }> {
  const env = { ...GIT_ENV, ...extra.env };
  const run = (cmd: string, pre: string[], repo: string) =>
    runAsync(cmd, [...pre, 'push', '--porcelain', ...args.map((a) => (a === '<url>' ? url(repo) : a))], work, env);
  const g = await run('git', extra.gitArgs ?? [], repos.git);
  let t: Side;
  if (spawnedTo.has(repos)) {
    const b = await session.run(work, [...(extra.tsArgs ?? []), 'push', '--porcelain', ...args.map((a) => (a === '<url>' ? url(repos.ts) : a))], env);
    t = { status: b.status, stdout: b.stdout.toString('utf8'), stderr: b.stderr.toString('utf8') };
  } else {
    t = await run(process.execPath, [TSGIT, ...(extra.tsArgs ?? [])], repos.ts);
    spawnedTo.add(repos);
  }
  const norm = (s: Side, repo: string) => s.stdout.split(url(repo)).join('<url>');
  assert.equal(norm(t, repos.ts), norm(g, repos.git), `porcelain of push ${args.join(' ')}\ntsgit: ${t.stderr}\ngit: ${g.stderr}`);
  assert.equal(t.status, g.status, `exit status of push ${args.join(' ')}: ${t.stderr}`);
  assert.equal(refsOf(repos.ts), refsOf(repos.git), 'server refs after the push');
  assertFsck(repos.ts);
  return { git: g, ts: t };
}

describe('tsgit push to git-core and tsgit servers, against git push', () => {
  let root: string, work: string, daemon: Server, httpd: Server, ssh: { command: string };
  const pairs = new Map<string, { git: string; ts: string }>();
  before(async () => {
    root = tmpDir('tsgit-push-');
    work = workRepo(root, 'work', 3);
    git(work, ['tag', '-a', '-m', 'annotated', 'v1']);
    fs.mkdirSync(path.join(root, 'srv'));
    for (const name of ['daemon', 'http', 'ssh', 'file', 'tsgit']) {
      const pair = { git: path.join(root, 'srv', `${name}-git.git`), ts: path.join(root, 'srv', `${name}-ts.git`) };
      for (const dir of [pair.git, pair.ts]) {
        git(root, ['init', '-q', '--bare', '-b', 'main', dir]);
        git(dir, ['config', 'http.receivepack', 'true']);
      }
      pairs.set(name, pair);
    }
    daemon = await startDaemon(path.join(root, 'srv'), ['--enable=receive-pack']);
    httpd = await startHttpBackend(path.join(root, 'srv'));
    ssh = makeSshShim(root);
  });
  after(async () => {
    await daemon.stop();
    await httpd.stop();
    rmrf(root);
  });

  const transports: { name: string; url: (repo: string) => string; env?: NodeJS.ProcessEnv; gitArgs?: string[]; tsArgs?: string[] }[] = [
    { name: 'daemon', url: (r) => daemon.url(path.basename(r)) },
    { name: 'http', url: (r) => httpd.url(path.basename(r)) },
    { name: 'ssh', url: (r) => `ssh://localhost${r}`, env: {} },
    { name: 'file', url: (r) => `file://${r}` },
  ];

  for (const t of transports) {
    test(`over ${t.name}: create, update, refuse non-fast-forward, force, delete`, async () => {
      const repos = pairs.get(t.name)!;
      const env = t.name === 'ssh' ? { GIT_SSH_COMMAND: ssh.command } : {};
      const o = { env };
      // Over file://, both use git-receive-pack (tsgit's own is tested below).
      const rp = t.name === 'file' ? ['--receive-pack=git-receive-pack'] : [];
      await both(work, t.url, repos, [...rp, '<url>', 'main', 'v1', 'main:refs/heads/side'], o);
      commits(work, 2, `update-${t.name}`);
      await both(work, t.url, repos, [...rp, '<url>', 'main'], o);
      const tip = git(work, ['rev-parse', 'HEAD']).trim();
      git(work, ['reset', '-q', '--hard', 'HEAD~1']);
      commits(work, 1, `diverge-${t.name}`);
      const refused = await both(work, t.url, repos, [...rp, '<url>', 'main'], o);
      assert.match(refused.ts.stdout, /\[rejected\] \(non-fast-forward\)/);
      assert.match(refused.ts.stderr, /hint: Updates were rejected because the tip of your current branch is behind/);
      await both(work, t.url, repos, [...rp, '--force', '<url>', 'main'], o);
      await both(work, t.url, repos, [...rp, '<url>', ':side'], o);
      await both(work, t.url, repos, [...rp, '<url>', 'main'], o);
      assert.notEqual(git(repos.ts, ['rev-parse', 'main']).trim(), tip);
    });
  }

  test('over ssh with a user in the URL: the To line names the remote without it, as git', async () => {
    const repos = pairs.get('ssh')!;
    const env = { ...GIT_ENV, GIT_SSH_COMMAND: ssh.command };
    const said = async (cmd: string, pre: string[], repo: string): Promise<string> => {
      const r = await runAsync(cmd, [...pre, 'push', '--porcelain', `ssh://someone@localhost${repo}`, 'main'], work, env);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.split(repo).join('<repo>');
    };
    const theirs = await said('git', [], repos.git);
    assert.match(theirs, /^To ssh:\/\/localhost<repo>\n/);
    assert.equal(await said(process.execPath, [TSGIT], repos.ts), theirs);
  });

  test('to tsgit receive-pack: --atomic with one failing ref, --force-with-lease stale, tags, --delete, dry run', async () => {
    const repos = pairs.get('tsgit')!;
    const url = (r: string) => r;
    const rp = {};
    for (const dir of [repos.git, repos.ts]) {
      fs.writeFileSync(path.join(dir, 'hooks', 'update'), '#!/bin/sh\n[ "$1" != refs/heads/blocked ]\n', { mode: 0o755 });
    }
    const args = (a: string[]) => [`--receive-pack=${RECEIVE_PACK}`, ...a];
    await both(work, url, repos, args(['<url>', 'main']), rp);
    commits(work, 1, 'atomic');
    const atomic = await both(work, url, repos, args(['--atomic', '<url>', 'main', 'main:refs/heads/blocked']), rp);
    assert.match(atomic.ts.stdout, /\(atomic push failure\)/);
    const old = git(repos.ts, ['rev-parse', 'main']).trim();
    // git 2.39 has no push.atomic: with it set, main goes and only blocked is refused, as in git.
    commits(work, 1, 'atomic-config');
    const byConfig = await both(work, url, repos, args(['<url>', 'main', 'main:refs/heads/blocked']),
      { gitArgs: ['-c', 'push.atomic=true'], tsArgs: ['-c', 'push.atomic=true'] });
    assert.equal(byConfig.ts.status, 1);
    assert.doesNotMatch(byConfig.ts.stdout, /atomic push failure/);
    await both(work, url, repos, args(['<url>', 'main']), rp);
    commits(work, 1, 'lease');
    const stale = await both(work, url, repos, args([`--force-with-lease=main:${old}`, '<url>', 'main']), rp);
    assert.match(stale.ts.stdout, /\(stale info\)/);
    await both(work, url, repos, args(['--tags', '<url>']), rp);
    git(work, ['tag', '-a', '-m', 'followed', 'v2']);
    commits(work, 1, 'follow');
    await both(work, url, repos, args(['--follow-tags', '<url>', 'main']), rp);
    assert.match(git(repos.ts, ['for-each-ref', 'refs/tags']), /refs\/tags\/v2/);
    git(work, ['tag', '-a', '-m', 'followed by config', 'v3']);
    commits(work, 1, 'follow-config');
    await both(work, url, repos, args(['<url>', 'main']), { gitArgs: ['-c', 'push.followTags=true'], tsArgs: ['-c', 'push.followTags=true'] });
    assert.match(git(repos.ts, ['for-each-ref', 'refs/tags']), /refs\/tags\/v3/);
    await both(work, url, repos, args(['--dry-run', '<url>', 'main:refs/heads/dry']), rp);
    await both(work, url, repos, args(['--delete', '<url>', 'v2']), rp);
    const missing = await both(work, url, repos, args(['<url>', 'no-such-branch']), rp);
    assert.equal(missing.ts.status, 1);
    assert.match(missing.ts.stderr, /error: src refspec no-such-branch does not match any/);
    // A pattern leaves out refs one level below refs/ (a symref there, refs/stash), as git's does.
    git(work, ['update-ref', 'refs/onelevel', 'main']);
    git(work, ['symbolic-ref', 'refs/linked', 'refs/heads/main']);
    await both(work, url, repos, args(['<url>', 'refs/*:refs/*']), rp);
    git(work, ['update-ref', '-d', 'refs/onelevel']);
    git(work, ['symbolic-ref', '-d', 'refs/linked']);
  });

  test('push options reach the hooks of git receive-pack', async () => {
    const repos = pairs.get('file')!;
    for (const dir of [repos.git, repos.ts]) {
      git(dir, ['config', 'receive.advertisePushOptions', 'true']);
      fs.writeFileSync(path.join(dir, 'hooks', 'pre-receive'), '#!/bin/sh\necho "got $GIT_PUSH_OPTION_COUNT: $GIT_PUSH_OPTION_0"\n', { mode: 0o755 });
    }
    commits(work, 1, 'options');
    const r = await both(work, (d) => d, repos, ['--receive-pack=git-receive-pack', '-o', 'ci.skip', '<url>', 'main']);
    assert.match(r.ts.stderr, /remote: got 1: ci\.skip/);
    // push.pushOption stands in for -o, even after --no-push-option; an empty value drops the earlier ones.
    const got = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('remote: got')).join('\n');
    try {
      for (const [values, args] of [
        [['from.config'], []], [['from.config'], ['--no-push-option']], [['from.config'], ['-o', 'given']],
        [['dropped', '', 'kept'], []],
      ] as const) {
        git(work, ['config', '--replace-all', 'push.pushOption', values[0]]);
        for (const v of values.slice(1)) git(work, ['config', '--add', 'push.pushOption', v]);
        commits(work, 1, `options-${values.join('-')}-${args.join('')}`);
        const c = await both(work, (d) => d, repos, ['--receive-pack=git-receive-pack', ...args, '<url>', 'main']);
        assert.equal(got(c.ts.stderr), got(c.git.stderr), `${values} ${args}`);
        assert.match(got(c.ts.stderr), /^remote: got 1: /, `${values} ${args}`);
      }
    } finally {
      git(work, ['config', '--unset-all', 'push.pushOption']);
    }
  });
});

describe('the pack tsgit push sends', () => {
  let root: string;
  before(() => { root = tmpDir('tsgit-push-pack-'); });
  after(() => rmrf(root));

  test('thin and deltified: the objects git push sends, in a pack of about its size', async () => {
    const work = workRepo(root, 'w', 5);
    const servers = { git: path.join(root, 'g.git'), ts: path.join(root, 't.git') };
    for (const dir of Object.values(servers)) {
      git(root, ['clone', '-q', '--bare', work, dir]);
      git(dir, ['config', 'receive.unpackLimit', '1']);
      git(dir, ['repack', '-adq']);
    }
    // Twenty commits, each editing a few lines of one large file and adding a small one.
    const big = path.join(work, 'big.txt');
    for (let i = 0; i < 20; i++) {
      fs.writeFileSync(big, Array.from({ length: 3000 }, (_, k) => `line ${k} ${k % 97 === i ? `edit ${i}` : ''}\n`).join(''));
      fs.writeFileSync(path.join(work, `small-${i}.txt`), `small ${i}\n`);
      git(work, ['add', '-A']);
      git(work, ['commit', '-q', '-m', `edit ${i}`]);
    }
    const g = await runAsync('git', ['push', '-q', servers.git, 'main'], work, GIT_ENV);
    const t = await runAsync(process.execPath, [TSGIT, 'push', '-q', `--receive-pack=git-receive-pack`, servers.ts, 'main'], work, GIT_ENV);
    assert.equal(g.status, 0, g.stderr);
    assert.equal(t.status, 0, t.stderr);
    const received = (dir: string) => {
      const packs = fs.readdirSync(path.join(dir, 'objects', 'pack')).filter((n) => n.endsWith('.idx'));
      const newest = packs.map((n) => path.join(dir, 'objects', 'pack', n)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
      const lines = git(dir, ['verify-pack', '-v', newest]).split('\n');
      return {
        objects: lines.filter((l) => /^[0-9a-f]{40} (commit|tree|blob|tag) /.test(l)).length,
        deltas: lines.filter((l) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).length,
        bytes: fs.statSync(newest.replace(/\.idx$/, '.pack')).size,
      };
    };
    const theirs = received(servers.git), ours = received(servers.ts);
    assert.equal(ours.objects, theirs.objects, 'the same objects: nothing the remote has (beyond thin-pack bases)');
    assert.ok(ours.deltas >= 19, `versions of big.txt go as deltas (${ours.deltas})`);
    assert.ok(ours.bytes <= theirs.bytes * 2, `pack of ${ours.bytes} bytes, git's ${theirs.bytes}`);
    assert.equal(refsOf(servers.ts), refsOf(servers.git));
    assertFsck(servers.ts);
  });
});

describe('tsgit push to a configured remote', () => {
  let root: string;
  before(() => { root = tmpDir('tsgit-push-remote-'); });
  after(() => rmrf(root));

  test('push.default simple, -u, remote-tracking refs, pushInsteadOf, and git\'s refusals', async () => {
    const server = path.join(root, 'server.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', server]);
    const work = workRepo(root, 'w', 2);
    git(work, ['remote', 'add', 'origin', 'elsewhere:repo']);
    git(work, ['config', `url.${server}.pushInsteadOf`, 'elsewhere:repo']);
    const tsgit = (args: string[]) => runAsync(process.execPath, [TSGIT, 'push', ...args], work, GIT_ENV);
    const noUpstream = await tsgit([]);
    assert.equal(noUpstream.status, 128);
    assert.match(noUpstream.stderr, /fatal: The current branch main has no upstream branch\.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin main/);
    const first = await tsgit(['-u', 'origin', 'main']);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /branch 'main' set up to track 'origin\/main'\./);
    assert.equal(git(work, ['config', 'branch.main.merge']).trim(), 'refs/heads/main');
    git(work, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
    commits(work, 1, 'tracked');
    const second = await tsgit([]);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stderr, /^To \S+server\.git\n {3}[0-9a-f]{7}\.\.[0-9a-f]{7} {2}main -> main\n$/);
    assert.equal(git(work, ['rev-parse', 'refs/remotes/origin/main']).trim(), git(work, ['rev-parse', 'HEAD']).trim());
    // A lease on the remote-tracking ref: someone else pushed meanwhile.
    const other = path.join(root, 'other');
    git(root, ['clone', '-q', server, other]);
    commits(other, 1, 'theirs');
    git(other, ['push', '-q', 'origin', 'main']);
    git(work, ['commit', '-q', '--amend', '-m', 'rewritten']);
    const lease = await tsgit(['--force-with-lease', 'origin', 'main']);
    assert.equal(lease.status, 1);
    assert.match(lease.stderr, /! \[rejected\] +main -> main \(stale info\)/);
    const fetchFirst = await tsgit(['origin', 'main']);
    assert.match(fetchFirst.stderr, /\(fetch first\)/);
    assert.match(fetchFirst.stderr, /hint: Updates were rejected because the remote contains work that you do/);
    assert.equal(git(work, ['rev-parse', 'refs/remotes/origin/main']).trim(), git(work, ['rev-parse', 'HEAD@{1}']).trim());
    git(work, ['checkout', '-q', '--detach']);
    const noBranch = await tsgit([]);
    assert.match(noBranch.stderr, /fatal: You are not currently on a branch\./);
  });

  test('remote-tracking refs and the --force-with-lease default by git\'s remote_find_tracking: names as written, git\'s negative refspecs', async () => {
    // The same work repository and server twice, one pushed from by git, one by tsgit.
    const sides = ['git', 'ts'].map((side) => {
      const server = path.join(root, `track-${side}.git`);
      git(root, ['init', '-q', '--bare', '-b', 'main', server]);
      const work = workRepo(root, `track-${side}`, 1);
      git(work, ['remote', 'add', 'origin', server]);
      git(work, ['push', '-q', 'origin', 'main']);
      return { side, server, work };
    });
    const step = async (fetch: string[], edits: string[][], args: string[]) => {
      const seen = [];
      for (const { side, server, work } of sides) {
        git(work, ['config', '--unset-all', 'remote.origin.fetch']);
        for (const spec of fetch) git(work, ['config', '--add', 'remote.origin.fetch', spec]);
        for (const edit of edits) git(work, edit);
        const r = side === 'git' ? await runAsync('git', ['push', '--porcelain', ...args], work, GIT_ENV)
          : await runAsync(process.execPath, [TSGIT, 'push', '--porcelain', ...args], work, GIT_ENV);
        seen.push({ status: r.status, out: r.stdout.split(server).join('<url>'), refs: refsOf(work) });
      }
      assert.deepEqual(seen[1], seen[0], `push ${args.join(' ')} with fetch ${fetch.join(' ')}`);
    };
    // An abbreviated source names no remote ref here, so nothing is updated, and a lease expects none.
    await step(['+main:refs/remotes/origin/main'], [['commit', '-q', '--allow-empty', '-m', 'a']], ['origin', 'main']);
    await step(['main:refs/x/main'], [['commit', '-q', '--allow-empty', '-m', 'b']], ['origin', 'main']);
    await step(['+main:refs/remotes/origin/main'], [['update-ref', 'refs/remotes/origin/main', 'main'], ['commit', '-q', '--amend', '--allow-empty', '-m', 'b2']],
      ['--force-with-lease', 'origin', 'main']);
    // git hides a ref from a pattern only where the pattern maps it onto its own name.
    await step(['+refs/heads/*:refs/remotes/origin/*', '^refs/heads/main'], [], ['--force-with-lease', 'origin', 'main']);
    // A destination outside refs/ (git writes it as .git/remotes/origin/main): no ref updated.
    await step(['refs/heads/main:remotes/origin/main'], [['commit', '-q', '--allow-empty', '-m', 'c']], ['origin', 'main']);
  });

  test('usage errors exit 129; a remote that is not there, 128', async () => {
    const work = workRepo(root, 'u', 1);
    const bad = await runAsync(process.execPath, [TSGIT, 'push', '--no-such-option'], work, GIT_ENV);
    assert.equal(bad.status, 129);
    const none = await runAsync(process.execPath, [TSGIT, 'push'], work, GIT_ENV);
    assert.equal(none.status, 128);
    assert.match(none.stderr, /fatal: No configured push destination\./);
    const gone = await runAsync(process.execPath, [TSGIT, 'push', path.join(root, 'nothing-here'), 'main'], work, GIT_ENV);
    assert.equal(gone.status, 128);
    assert.doesNotMatch(gone.stderr, /\n\s+at /, 'no stack trace');
  });
});
