// The package's library entry: what `import ... from 'tsgit'` gives works as the CLI does, each
// piece checked against git: the walk lists what rev-list lists, indexPack writes git's .idx, the
// HTTP handler serves git's clone, clone and checkoutTree make what git's clone and checkout make.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as tsgit from '../src/index.js';
import { git, gitBuf, GIT_ENV, makeRepo, rmrf, tmpDir } from './helpers.js';
import { runAsync } from './transport-servers.js';

let work: string;
let source: string;

before(() => {
  work = tmpDir('tsgit-library-');
  source = makeRepo(6, { bare: true, at: path.join(work, 'root', 'project.git') });
  git(source, ['tag', '-a', '-m', 'release', 'v1', 'main~2']);
  git(source, ['branch', 'maint', 'main~3']);
});

after(() => rmrf(work));

const refs = (dir: string) => git(dir, ['for-each-ref', '--format=%(objectname) %(refname)']);

test('Repository, RevResolver and ObjectWalk from the entry point list what git lists', () => {
  const repo = tsgit.Repository.discover(source);
  try {
    const walk = new tsgit.ObjectWalk(repo.odb);
    walk.add(repo.revs().resolve('HEAD'), 'HEAD');
    const lines: string[] = [];
    walk.enumerate({
      commit: (ids, off) => lines.push(tsgit.toHex(ids, off)),
      object: (_t, ids, off, path, len) => lines.push(`${tsgit.toHex(ids, off)} ${Buffer.from(path.subarray(0, len)).toString()}`),
    });
    assert.deepEqual(lines, git(source, ['rev-list', '--objects', 'HEAD']).trimEnd().split('\n'));
  } finally {
    repo.close();
  }
});

test('indexPack writes the .idx git index-pack writes, and names the pack as git does', async () => {
  const dir = path.join(work, 'index-pack');
  fs.mkdirSync(dir);
  const packFile = path.join(dir, 'p.pack');
  fs.writeFileSync(packFile, gitBuf(source, ['pack-objects', '-q', '--all', '--stdout', '--delta-base-offset'], ''));
  const result = await tsgit.indexPack(null, packFile, { indexPath: path.join(dir, 'ours.idx') });
  const hash = git(dir, ['index-pack', '-o', 'git.idx', 'p.pack']).trim();
  assert.equal(result.packHash, hash);
  assert.equal(result.objects, git(dir, ['show-index'], fs.readFileSync(path.join(dir, 'git.idx'))).trim().split('\n').length);
  assert.ok(fs.readFileSync(path.join(dir, 'ours.idx')).equals(fs.readFileSync(path.join(dir, 'git.idx'))), '.idx differs from git\'s');
});

test('createUploadPackHandler serves git clone, and clone from it makes the repository git clone makes', async () => {
  const handler = tsgit.createUploadPackHandler({ root: path.dirname(source), exportAll: true });
  const server = http.createServer((req, res) => handler(req, res));
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/project.git`;
    // git is the client here: run it without blocking this process, which is the server.
    const byGit = await runAsync('git', ['clone', '-q', url, 'by-git'], work, GIT_ENV);
    assert.equal(byGit.status, 0, byGit.stderr);
    const gitClone = path.join(work, 'by-git');

    const result = await tsgit.clone(url, { directory: 'by-tsgit', cwd: work, env: GIT_ENV });
    const ours = path.join(work, 'by-tsgit');
    assert.equal(result.gitDir, path.join(ours, '.git'));
    assert.deepEqual(result.head, { symref: 'refs/heads/main', oid: git(source, ['rev-parse', 'main']).trim() });
    assert.equal(refs(ours), refs(gitClone));
    assert.equal(git(ours, ['symbolic-ref', 'HEAD']), git(gitClone, ['symbolic-ref', 'HEAD']));
    assert.equal(git(ours, ['ls-files', '-s']), git(gitClone, ['ls-files', '-s']));
    assert.equal(git(ours, ['status', '--porcelain']), '');
    assert.equal(git(ours, ['fsck', '--full', '--no-dangling', '--strict']).trim(), '');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await handler.close();
  }
});

// A program that serves with the handler and then closes it, with nothing else keeping it alive.
// Node ends a module whose top-level await never settles with exit code 13.
const SERVE_THEN_CLOSE = `
import http from 'node:http';
import { clone, createUploadPackHandler } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
const [root, into, rounds] = [process.argv[1], process.argv[2], Number(process.argv[3])];
for (let i = 0; i < rounds; i++) {
  const handler = createUploadPackHandler({ root, exportAll: true });
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The client is done once it has the pack, which may be before the worker has said so.
  await clone(\`http://127.0.0.1:\${server.address().port}/project.git\`, { directory: 'c' + i, cwd: into, bare: true });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await handler.close();
  process.stdout.write('closed ' + i + '\\n');
}
`;

test('the handler\'s close() settles when nothing else keeps the process alive', async () => {
  // The race was lost about one time in ten: fifteen rounds see it four times in five, at half
  // the suite time thirty took.
  const rounds = 15;
  const into = path.join(work, 'serve-then-close');
  fs.mkdirSync(into);
  const r = await runAsync(process.execPath, ['--input-type=module', '-e', SERVE_THEN_CLOSE, path.dirname(source), into, String(rounds)], work, GIT_ENV);
  assert.equal(r.status, 0, `exit ${r.status} after ${r.stdout.split('\n').length - 1} of ${rounds} rounds: ${r.stderr}`);
  assert.equal(r.stdout, Array.from({ length: rounds }, (_, i) => `closed ${i}\n`).join(''));
});

test('checkoutTree writes the files and the index git checkout writes', async () => {
  const theirs = path.join(work, 'checkout-git'), ours = path.join(work, 'checkout-tsgit');
  git(work, ['clone', '-q', '--no-checkout', source, theirs]);
  git(work, ['clone', '-q', '--no-checkout', source, ours]);
  git(theirs, ['checkout', '-q', 'maint']);
  const repo = tsgit.Repository.discover(ours);
  let entries: number;
  try {
    entries = (await tsgit.checkoutTree(repo, repo.revs().resolve('refs/remotes/origin/maint'), { env: GIT_ENV })).entries;
  } finally {
    repo.close();
  }
  const names = git(theirs, ['ls-files']).trim().split('\n');
  assert.ok(names.length > 2);
  assert.equal(entries, names.length);
  assert.equal(git(ours, ['ls-files', '-s']), git(theirs, ['ls-files', '-s']));
  // The files on disk are the ones the index names: nothing modified, nothing missing or extra.
  assert.equal(git(ours, ['diff', '--stat', 'origin/maint']), '');
  assert.equal(git(ours, ['ls-files', '--others', '--modified', '--deleted']), '');
  for (const name of names) {
    assert.ok(fs.readFileSync(path.join(ours, name)).equals(fs.readFileSync(path.join(theirs, name))), name);
    assert.equal(fs.statSync(path.join(ours, name)).mode, fs.statSync(path.join(theirs, name)).mode, `${name}: mode`);
  }
});
