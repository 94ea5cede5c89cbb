// What decides where a fetch goes and whether it may: `-c` settings (and $GIT_CONFIG_PARAMETERS
// as git writes it), url.<base>.insteadOf (longest match) for clone, fetch and ls-remote, the
// protocol.<name>.allow policy with $GIT_ALLOW_PROTOCOL and $GIT_PROTOCOL_FROM_USER, and git's
// relative_url for submodule URLs (its own t0060 cases). git is the oracle wherever it can say.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { relativeUrl } from '../src/client/submodule/relative-url.js';
import { addConfigParameter, commandLineEntries } from '../src/config/command-line.js';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir, TSGIT } from './helpers.js';

let dir: string;
let repo: string;

before(() => {
  dir = tmpDir('tsgit-url-policy-');
  repo = makeRepo(3, { bare: true });
});

after(() => {
  rmrf(dir);
  rmrf(repo);
});

function both(args: string[], env: NodeJS.ProcessEnv = GIT_ENV, cwd = dir) {
  const opts = { cwd, env, encoding: 'utf8' as const };
  const mine = spawnSync(process.execPath, [TSGIT, ...args], opts);
  const theirs = spawnSync('git', args, opts);
  return { mine: { status: mine.status, stdout: mine.stdout, stderr: mine.stderr }, theirs: { status: theirs.status, stdout: theirs.stdout, stderr: theirs.stderr } };
}

test('$GIT_CONFIG_PARAMETERS as git writes it reads back as git reads it', () => {
  const settings = ["a.b=it's !x", 'core.bare', 'Sub.Ca.se.Key=v', 'e.f=', 'x.y=a=b'];
  const args = settings.flatMap((s) => ['-c', s]);
  const written = git(dir, ['-c', 'alias.p=!printf %s "$GIT_CONFIG_PARAMETERS"', ...args, 'p']);
  const listed = git(dir, [...args, 'config', '-l', '--show-scope']).split('\n').filter((l) => l.startsWith('command\t')).map((l) => l.slice(8));
  const entries = commandLineEntries({ GIT_CONFIG_PARAMETERS: written }).filter((e) => e.section !== 'alias');
  const shown = entries.map((e) => `${e.section}.${e.subsection === null ? '' : `${e.subsection}.`}${e.key}${e.value === null ? '' : `=${e.value}`}`);
  assert.deepEqual(shown, listed);
  // And tsgit writes what git writes (the variable its -c passes to what it runs), byte for byte.
  const all = ['alias.p=!printf %s "$GIT_CONFIG_PARAMETERS"', ...settings];
  assert.equal(all.reduce<string | undefined>((current, s) => addConfigParameter(current, s), undefined), written);
});

test('url.<base>.insteadOf: the longest prefix wins, for clone, ls-remote and fetch', () => {
  const rewrite = ['-c', 'url.nowhere:.insteadOf=ex:', '-c', `url.${path.dirname(repo)}/.insteadOf=ex:repos/`];
  const url = `ex:repos/${path.basename(repo)}`;
  const getUrl = both([...rewrite, 'ls-remote', '--get-url', url]);
  assert.deepEqual(getUrl.mine, getUrl.theirs);
  assert.equal(getUrl.mine.stdout, `${repo}\n`);
  const listed = both([...rewrite, 'ls-remote', url]);
  assert.equal(listed.mine.status, 0, listed.mine.stderr);
  assert.equal(listed.mine.stdout, listed.theirs.stdout);
  const target = path.join(dir, 'cloned');
  const cloned = spawnSync(process.execPath, [TSGIT, ...rewrite, 'clone', '-q', url, target], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(cloned.status, 0, cloned.stderr);
  // The URL is kept as given; the rewrite applies whenever it is used.
  assert.equal(git(target, ['config', 'remote.origin.url']).trim(), url);
  const fetched = spawnSync(process.execPath, [TSGIT, ...rewrite, 'fetch'], { cwd: target, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(fetched.status, 0, fetched.stderr);
  const unrewritten = spawnSync(process.execPath, [TSGIT, 'fetch'], { cwd: target, env: GIT_ENV, encoding: 'utf8' });
  assert.notEqual(unrewritten.status, 0);
});

test('protocol.<name>.allow, protocol.allow, GIT_ALLOW_PROTOCOL and GIT_PROTOCOL_FROM_USER, as git decides', () => {
  const cases: { config: string[]; env?: NodeJS.ProcessEnv; allowed: boolean }[] = [
    { config: [], allowed: true },
    { config: ['-c', 'protocol.file.allow=never'], allowed: false },
    { config: [], env: { GIT_PROTOCOL_FROM_USER: '0' }, allowed: false },
    { config: ['-c', 'protocol.file.allow=always'], env: { GIT_PROTOCOL_FROM_USER: '0' }, allowed: true },
    { config: ['-c', 'protocol.allow=never'], allowed: false },
    { config: ['-c', 'protocol.allow=never', '-c', 'protocol.file.allow=user'], allowed: true },
    { config: ['-c', 'protocol.file.allow=always'], env: { GIT_ALLOW_PROTOCOL: 'ssh:git' }, allowed: false },
    { config: ['-c', 'protocol.file.allow=never'], env: { GIT_ALLOW_PROTOCOL: 'file' }, allowed: true },
  ];
  for (const c of cases) {
    for (const url of [repo, `file://${repo}`]) {
      const r = both([...c.config, 'ls-remote', url], { ...GIT_ENV, ...c.env });
      const label = `${c.config.join(' ')} ${JSON.stringify(c.env ?? {})} ${url}`;
      assert.equal(r.mine.status, r.theirs.status, `${label}: ${r.mine.stderr}`);
      assert.equal(r.mine.status === 0, c.allowed, label);
      if (!c.allowed) assert.equal(r.mine.stderr, "fatal: transport 'file' not allowed\n");
    }
  }
  // push goes through the same policy (git's transport_check_allowed for every transport).
  const work = path.join(dir, 'push-work');
  git(dir, ['clone', '-q', repo, work]);
  for (const c of [{ env: { GIT_ALLOW_PROTOCOL: 'ssh:git' }, allowed: false }, { env: { GIT_ALLOW_PROTOCOL: 'file' }, allowed: true }]) {
    const r = both(['push', '--dry-run', `file://${repo}`, 'HEAD:refs/heads/pushed'], { ...GIT_ENV, ...c.env }, work);
    assert.equal(r.mine.status, r.theirs.status, `push ${JSON.stringify(c.env)}: ${r.mine.stderr}`);
    assert.equal(r.mine.status === 0, c.allowed, `push ${JSON.stringify(c.env)}`);
    if (!c.allowed) assert.equal(r.mine.stderr, "fatal: transport 'file' not allowed\n");
  }
  const bogus = both(['-c', 'protocol.file.allow=sometimes', 'ls-remote', repo]);
  assert.equal(bogus.mine.status, 128);
  assert.equal(bogus.mine.stderr, bogus.theirs.stderr);
});

test("relative submodule URLs resolve as git's relative_url (t0060's cases)", () => {
  const cases: [string | null, string, string, string][] = [
    ['../', 'foo/bar', '../submodule', '../foo/submodule'],
    ['../', 'foo', '../submodule', '../submodule'],
    ['../../../', '../foo/bar', '../sub/a/b/c', '../../../../foo/sub/a/b/c'],
    [null, '../foo/bar', '../sub/a/b/c', '../foo/sub/a/b/c'],
    [null, '../foo/bar', '../sub/a/b/c/', '../foo/sub/a/b/c'],
    [null, '../foo/bar/', '../sub/a/b/c', '../foo/sub/a/b/c'],
    [null, '../foo/bar', '../submodule', '../foo/submodule'],
    [null, '../foo', '../submodule', '../submodule'],
    [null, './foo/bar', '../submodule', 'foo/submodule'],
    [null, './foo', '../submodule', 'submodule'],
    [null, '//somewhere else/repo', '../subrepo', '//somewhere else/subrepo'],
    [null, '//somewhere else/repo', '../../subrepo', '//subrepo'],
    [null, '//somewhere else/repo', '../../../subrepo', '/subrepo'],
    [null, '//somewhere else/repo', '../../../../subrepo', 'subrepo'],
    [null, '/u/sub/.', '../.', '/u'],
    [null, '/u/sub/.////././/./.', '../.', '/u'],
    [null, '/u', './.', '/u'],
    [null, '/u/addtest', '../repo', '/u/repo'],
    [null, '/u', './å äö', '/u/å äö'],
    [null, '/u/home2/../remote', '../bundle1', '/u/home2/../bundle1'],
    [null, 'file:///tmp/repo', '../subrepo', 'file:///tmp/subrepo'],
    [null, 'foo/bar', '../submodule', 'foo/submodule'],
    [null, 'foo', '../submodule', 'submodule'],
    [null, 'helper:://hostname/repo', '../subrepo', 'helper:://hostname/subrepo'],
    [null, 'helper:://hostname/repo', '../../subrepo', 'helper:://subrepo'],
    [null, 'helper:://hostname/repo', '../../../subrepo', 'helper::/subrepo'],
    [null, 'helper:://hostname/repo', '../../../../subrepo', 'helper::subrepo'],
    [null, 'helper:://hostname/repo', '../../../../../subrepo', 'helper:subrepo'],
    [null, 'helper:://hostname/repo', '../../../../../../subrepo', '.:subrepo'],
    [null, 'ssh://hostname/repo', '../subrepo', 'ssh://hostname/subrepo'],
    [null, 'ssh://hostname/repo', '../../subrepo', 'ssh://subrepo'],
    [null, 'ssh://hostname/repo', '../../../subrepo', 'ssh:/subrepo'],
    [null, 'ssh://hostname/repo', '../../../../subrepo', 'ssh:subrepo'],
    [null, 'ssh://hostname/repo', '../../../../../subrepo', '.:subrepo'],
    [null, 'ssh://hostname:22/repo', '../subrepo', 'ssh://hostname:22/subrepo'],
    [null, 'user@host:path/to/repo', '../subrepo', 'user@host:path/to/subrepo'],
    [null, 'user@host:repo', '../subrepo', 'user@host:subrepo'],
    [null, 'user@host:repo', '../../subrepo', '.:subrepo'],
  ];
  for (const [up, remote, url, expected] of cases) {
    assert.equal(relativeUrl(remote, url, up), expected, `relative_url(${remote}, ${url}, ${up})`);
  }
  assert.throws(() => relativeUrl('foo', '../../submodule', null), /cannot strip one component off url/);
});
