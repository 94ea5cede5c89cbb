// Addresses as git reads them: URL forms, scp-like and local paths; the directory clone guesses
// (checked against the name git's own clone announces); the git:// request line (checked against
// what git sends); dates for --shallow-since (checked against git rev-parse --since, its clock set
// with GIT_TEST_DATE_NOW); the "remote: " lines of server progress.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseApproxDate } from '../src/core/approxidate.js';
import { guessDirectory } from '../src/client/guess-directory.js';
import { formatRemoteProgress } from '../src/client/remote-progress.js';
import { formatDaemonRequest } from '../src/transport/git-daemon.js';
import { parseRemoteUrl } from '../src/transport/url.js';
import { GIT_ENV, git, rmrf, tmpDir } from './helpers.js';
import { runAsync, startRawServer } from './transport-servers.js';

test('URL forms: kind, user, host, port and path as git splits them', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['https://user:pw@example.com:8443/a/repo.git', { kind: 'http' }],
    ['git://example.com/~alice/repo.git', { kind: 'git', host: 'example.com', port: null, path: '~alice/repo.git' }],
    ['git://example.com:9419/a%20b.git', { kind: 'git', host: 'example.com', port: 9419, path: '/a b.git' }],
    ['ssh://alice@example.com:2222/srv/repo.git', { kind: 'ssh', user: 'alice', host: 'example.com', port: 2222, path: '/srv/repo.git' }],
    ['ssh://example.com/~/repo.git', { kind: 'ssh', user: null, host: 'example.com', port: null, path: '~/repo.git' }],
    ['git+ssh://[::1]:22/repo.git', { kind: 'ssh', host: '::1', port: 22, path: '/repo.git' }],
    ['example.com:repo.git', { kind: 'ssh', user: null, host: 'example.com', port: null, path: 'repo.git' }],
    ['alice@example.com:/srv/repo.git', { kind: 'ssh', user: 'alice', host: 'example.com', path: '/srv/repo.git' }],
    ['[example.com:2222]:repo.git', { kind: 'ssh', host: 'example.com', port: 2222, path: 'repo.git' }],
    ['[::1]:repo.git', { kind: 'ssh', host: '::1', port: null, path: 'repo.git' }],
    ['file:///srv/repo.git', { kind: 'file', path: '/srv/repo.git' }],
    ['file://localhost/srv/a%2Bb', { kind: 'file', path: '/srv/a+b' }],
    // git passes a file URL's host by.
    ['file://otherhost/x', { kind: 'file', path: '/x' }],
    ['file://../x', { kind: 'file', path: '/x' }],
    ['./sub:dir/repo', { kind: 'file', path: path.resolve('/work', 'sub:dir/repo') }],
    ['../repo', { kind: 'file', path: '/repo' }],
  ];
  for (const [url, want] of cases) {
    const got = parseRemoteUrl(url, '/work') as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k], v, `${url}: ${k}`);
  }
  for (const [url, message] of [
    ['ssh://-oProxyCommand=x/repo', /strange hostname '-oProxyCommand=x' blocked/],
    ['host:-repo', /strange pathname '-repo' blocked/],
    ['ssh://host', /: no path specified; see 'git help pull' for valid url syntax$/],
    ['ftp://example.com/repo', /unsupported URL scheme 'ftp'/],
    ['ext::sh -c evil', /remote helpers are not supported/],
    ['ssh://host:99999/x', /invalid port '99999'/],
    ['file://otherhost', /: no path specified; see 'git help pull' for valid url syntax$/],
  ] as const) {
    assert.throws(() => parseRemoteUrl(url, '/work'), message, url);
  }
});

test('the directory clone guesses is the one git announces', () => {
  const work = tmpDir('tsgit-guess-');
  try {
    const urls = [
      'file:///nonexistent/repo.git', 'file:///nonexistent/repo.git/', 'file:///nonexistent/repo/.git', 'file:///nonexistent/repo/.git/',
      'host:foo/bar.git', 'host:bar', 'ssh://host:2222/~alice/project.git', 'ssh://host:2222',
      'http://user:pw@127.0.0.1:1/deep/path/name', 'git://127.0.0.1:1/name.git', 'file:///nonexistent/with%20space',
    ];
    for (const bare of [false, true]) {
      for (const url of urls) {
        const r = spawnSync('git', ['clone', ...(bare ? ['--bare'] : []), url], {
          cwd: work, encoding: 'utf8', env: { ...GIT_ENV, GIT_SSH_COMMAND: 'false', GIT_TERMINAL_PROMPT: '0' },
        });
        const m = /Cloning into (?:bare repository )?'(.*)'\.\.\./.exec(r.stderr);
        assert.ok(m, `git clone ${url}: ${r.stderr}`);
        assert.equal(guessDirectory(url, bare), m[1], url);
      }
    }
  } finally {
    rmrf(work);
  }
});

test('the git:// request line is byte for byte what git sends, for v0 and v2', async () => {
  const seen: Buffer[] = [];
  // git writes the length and the payload separately: gather the whole packet before answering.
  const server = await startRawServer((socket, first) => {
    let packet = first;
    const done = () => {
      if (packet.length < 4 || packet.length < parseInt(packet.subarray(0, 4).toString(), 16)) return false;
      seen.push(packet);
      socket.end();
      return true;
    };
    if (!done()) socket.on('data', (more: Buffer) => { packet = Buffer.concat([packet, more]); done(); });
  });
  try {
    for (const version of [0, 2] as const) {
      seen.length = 0;
      await runAsync('git', ['-c', `protocol.version=${version}`, 'ls-remote', `git://127.0.0.1:${server.port}/some/repo.git`], '/', GIT_ENV);
      assert.equal(seen.length, 1);
      const ours = formatDaemonRequest('git-upload-pack', { host: '127.0.0.1', port: server.port, path: '/some/repo.git', display: '' }, version);
      assert.deepEqual(ours.toString('latin1'), seen[0]!.toString('latin1'));
    }
  } finally {
    await server.stop();
  }
});

/** What `git rev-parse --since=<text>` makes of a date, at the time `now` (ms) when given. */
function gitSince(repo: string, text: string, now?: number): number {
  const env: NodeJS.ProcessEnv = { ...GIT_ENV };
  // Both sides read a date without a zone in the same zone: this process's.
  if (process.env.TZ === undefined) delete env.TZ;
  else env.TZ = process.env.TZ;
  if (now !== undefined) env.GIT_TEST_DATE_NOW = String(now / 1000);
  const r = spawnSync('git', ['rev-parse', `--since=${text}`], { cwd: repo, encoding: 'utf8', env });
  const m = /--max-age=(\d+)/.exec(r.stdout);
  assert.ok(m, `git rev-parse --since=${text}: exit ${r.status}, ${r.stderr}`);
  return Number(m[1]);
}

/** A repository for rev-parse to run in (it wants one, even for this), removed after the test. */
function dateRepo(t: TestContext): string {
  const repo = tmpDir('tsgit-dates-');
  t.after(() => rmrf(repo));
  git(repo, ['init', '-q']);
  return repo;
}

// 2024-01-10 01:02:03 UTC: a time of day that is not midnight, so a date alone must take it.
const NOW = Date.UTC(2024, 0, 10, 1, 2, 3);

test('--shallow-since dates: each form gives the time git rev-parse --since gives', (t) => {
  const repo = dateRepo(t);
  for (const text of ['1700000000', '@1700000000', '100000000', '2023-11-14', '2023-11-14 22:13:20', '2023-11-14T22:13:20Z',
    '2023-11-14 22:13:20 +0100', 'Tue, 14 Nov 2023 22:13:20 +0000',
    'now', 'yesterday', '2 weeks ago', '3 days ago', '5 hours ago', '10 minutes ago', '30 seconds ago']) {
    assert.equal(parseApproxDate(text, NOW), gitSince(repo, text, NOW), text);
  }
  // Without a time given, both take the clock's: a date alone keeps its time of day.
  const before = Math.floor(Date.now() / 1000);
  const want = gitSince(repo, 'now');
  assert.ok(want >= before && parseApproxDate('now') >= want && parseApproxDate('now') - want <= 2);
  assert.throws(() => parseApproxDate('not a date'), /invalid date format: not a date/);
  // Fewer than nine digits are no Unix time to git, which guesses at them: refused, never epoch 0.
  for (const text of ['@0', '0', '99999999']) assert.throws(() => parseApproxDate(text), /invalid date format/, text);
});

test('--shallow-since dates: months and years count as git counts them, by the calendar', (t) => {
  const repo = dateRepo(t);
  const now = Date.UTC(2024, 2, 10, 1, 2, 3);
  for (const text of ['1 month ago', '1 year ago', '3 months ago', '14 months ago']) {
    assert.equal(parseApproxDate(text, now), gitSince(repo, text, now), text);
  }
  // A day the earlier month lacks carries over into the next, as mktime does.
  const endOfMonth = Date.UTC(2024, 2, 31, 1, 2, 3);
  assert.equal(parseApproxDate('1 month ago', endOfMonth), gitSince(repo, '1 month ago', endOfMonth));
});

test('server progress is shown as git shows it: "remote: " before each line, clear-to-end on a terminal', () => {
  assert.equal(formatRemoteProgress('Counting objects:  50% (1/2)\rCounting objects: 100% (2/2), done.\n', false),
    'remote: Counting objects:  50% (1/2)        \rremote: Counting objects: 100% (2/2), done.        \n');
  assert.equal(formatRemoteProgress('Total 3 (delta 0)\n\n', true), 'remote: Total 3 (delta 0)\x1b[K\nremote: \n');
});
