// Clients other than git-core against tsgit's server: isomorphic-git (npm) clones over smart HTTP,
// JGit (Debian's jgit-cli, when installed; .ci/run installs it) clones over git://; both push, JGit
// over both transports (its HTTP pushes are gzip bodies). Each result is checked by git itself:
// `fsck --full` clean, and the refs equal the server's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import isogit from 'isomorphic-git';
import isoHttp from 'isomorphic-git/http/node';
import { git, GIT_ENV, makeRepo, rmrf, tmpDir } from './helpers.js';
import { startLibraryServers, type LibraryServers } from './library-servers.js';

const run = promisify(execFile);

let work: string;
let root: string;
let repo: string;
let servers: LibraryServers;
let httpBase: string;
let gitBase: string;

before(async () => {
  work = tmpDir('tsgit-serve-other-clients-');
  root = path.join(work, 'root');
  repo = makeRepo(12, { bare: true, at: path.join(root, 'project.git') });
  git(repo, ['tag', '-a', '-m', 'release', 'v1', 'main~4']);
  git(repo, ['tag', 'light', 'main~8']);
  git(repo, ['branch', 'maint', 'main~2']);
  git(repo, ['repack', '-adq']);
  // Anonymous pushes over HTTP only with http.receivepack set (http-backend's rule).
  git(repo, ['config', 'http.receivepack', 'true']);
  servers = await startLibraryServers({ root, exportAll: true },
    { exportAll: true, services: { 'receive-pack': { enabled: true, overridable: false } } });
  ({ httpBase, gitBase } = servers);
});

after(async () => {
  await servers.stop();
  rmrf(work);
});

function refs(dir: string, patterns: string[]): string {
  return git(dir, ['for-each-ref', '--format=%(objectname) %(refname)', ...patterns]);
}

test('isomorphic-git clones over smart HTTP', async () => {
  const dir = path.join(work, 'iso');
  await isogit.clone({ fs, http: isoHttp, dir, url: `${httpBase}/project.git` });
  assert.equal(git(dir, ['fsck', '--full', '--no-dangling']).trim(), '');
  assert.equal(git(dir, ['rev-parse', 'HEAD']), git(repo, ['rev-parse', 'main']));
  assert.equal(refs(dir, ['refs/remotes/origin/main', 'refs/remotes/origin/maint']),
    refs(repo, ['refs/heads']).replace(/refs\/heads\//g, 'refs/remotes/origin/'));
  assert.equal(refs(dir, ['refs/tags']), refs(repo, ['refs/tags']));
  assert.equal(git(dir, ['status', '--porcelain']), '');
  // And fetches what is new.
  const tree = git(repo, ['rev-parse', 'main^{tree}']).trim();
  const next = git(repo, ['commit-tree', tree, '-p', 'main', '-m', 'next']).trim();
  git(repo, ['update-ref', 'refs/heads/main', next]);
  await isogit.fetch({ fs, http: isoHttp, dir, ref: 'main' });
  assert.equal(git(dir, ['rev-parse', 'refs/remotes/origin/main']).trim(), next);
  assert.equal(git(dir, ['fsck', '--full', '--no-dangling']).trim(), '');
});

// Debian's jgit script leaves jars its Main needs (LFS, the Apache HTTP connection) off the class
// path; JGIT_CLASSPATH is the script's own way to add them.
const JGIT_ENV: NodeJS.ProcessEnv = {
  ...GIT_ENV,
  JGIT_CLASSPATH: ['org.eclipse.jgit.lfs', 'gson', 'org.eclipse.jgit.http.apache', 'httpclient', 'httpcore', 'commons-logging',
    'commons-codec', 'org.eclipse.jgit', 'args4j', 'jsch', 'jzlib', 'javaewah', 'commons-compress', 'org.eclipse.jgit.archive']
    .map(j => `/usr/share/java/${j}.jar`).filter(f => fs.existsSync(f)).join(':'),
};
const jgit = spawnSync('jgit', ['version'], { encoding: 'utf8', env: JGIT_ENV });
test('JGit clones over git://', { skip: jgit.status === 0 ? false : 'jgit is not installed (apt-get install jgit-cli)' }, async () => {
  const dir = path.join(work, 'jgit');
  await run('jgit', ['clone', `${gitBase}/project.git`, dir], { env: JGIT_ENV, timeout: 120_000 });
  assert.equal(git(dir, ['fsck', '--full', '--no-dangling']).trim(), '');
  assert.equal(git(dir, ['rev-parse', 'HEAD']), git(repo, ['rev-parse', 'main']));
  assert.equal(refs(dir, ['refs/remotes/origin/main', 'refs/remotes/origin/maint']),
    refs(repo, ['refs/heads']).replace(/refs\/heads\//g, 'refs/remotes/origin/'));
  assert.equal(refs(dir, ['refs/tags']), refs(repo, ['refs/tags']));
});

/** A work repository cloned from the served one, with one new commit on `branch`. */
function workWithCommit(name: string, branch: string): { dir: string; tip: string } {
  const dir = path.join(work, name);
  git(work, ['clone', '-q', repo, dir]);
  git(dir, ['checkout', '-q', '-b', branch]);
  fs.writeFileSync(path.join(dir, `${name}.txt`), `pushed by ${name}\n`);
  git(dir, ['add', '.']);
  git(dir, ['-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '-q', '-m', `from ${name}`]);
  return { dir, tip: git(dir, ['rev-parse', 'HEAD']).trim() };
}

test('isomorphic-git pushes over smart HTTP', async () => {
  const { dir, tip } = workWithCommit('iso-push', 'iso');
  const r = await isogit.push({ fs, http: isoHttp, dir, url: `${httpBase}/project.git`, ref: 'iso', remoteRef: 'refs/heads/iso' });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(git(repo, ['rev-parse', 'refs/heads/iso']).trim(), tip);
  assert.equal(git(repo, ['fsck', '--full', '--no-dangling']).trim(), '');
});

test('JGit pushes over smart HTTP (a gzip body) and git://, and deletes', { skip: jgit.status === 0 ? false : 'jgit is not installed (apt-get install jgit-cli)' }, async () => {
  const { dir, tip } = workWithCommit('jgit-push', 'jg');
  const jgitIn = (args: string[]) => run('jgit', args, { cwd: dir, env: JGIT_ENV, timeout: 120_000 });
  await jgitIn(['push', `${httpBase}/project.git`, 'jg:refs/heads/jg-http']);
  await jgitIn(['push', `${gitBase}/project.git`, 'jg:refs/heads/jg-git']);
  assert.equal(git(repo, ['rev-parse', 'refs/heads/jg-http']).trim(), tip);
  assert.equal(git(repo, ['rev-parse', 'refs/heads/jg-git']).trim(), tip);
  await jgitIn(['push', `${gitBase}/project.git`, ':refs/heads/jg-git']);
  assert.equal(refs(repo, ['refs/heads/jg-git']), '');
  assert.equal(git(repo, ['fsck', '--full', '--no-dangling']).trim(), '');
});

