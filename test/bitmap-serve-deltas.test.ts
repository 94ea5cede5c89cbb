// A thin fetch answered from a bitmap, where the newest version of a directory is stored as a delta
// against a tree the client neither has nor is sent (a side branch's bigger version of it): tsgit's
// upload-pack sends it as a fresh delta against a version the client has, instead of compressing it
// whole. git fetch takes the pack (index-pack --fix-thin), fsck is clean, and the received pack
// stores that tree as a delta.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

let work: string;
let server: string;

const UPLOAD_PACK = `${process.execPath} ${TSGIT} upload-pack`;

/** fast-import lines for one commit on `branch` writing the files given. */
function commit(branch: string, n: number, files: Record<string, string>, from?: string): string[] {
  const lines = [`commit refs/heads/${branch}`, `committer C <c@example.com> ${1700000000 + n * 100} +0000`, 'data 4', `c${String(n).padStart(3, '0')}`];
  if (from) lines.push(`from ${from}`);
  for (const [name, body] of Object.entries(files)) lines.push(`M 100644 inline ${name}`, `data ${Buffer.byteLength(body)}`, body);
  return lines;
}

before(() => {
  work = tmpDir('tsgit-bitmap-deltas-');
  server = path.join(work, 'server.git');
  fs.mkdirSync(server);
  git(server, ['init', '-q', '--bare', '-b', 'main', '.']);
  const script: string[] = [];
  const wide: Record<string, string> = {};
  for (let f = 0; f < 60; f++) wide[`wide/f${f}.txt`] = `file ${f}\n`;
  script.push(...commit('main', 0, wide));
  for (let c = 1; c <= 30; c++) script.push(...commit('main', c, { [`wide/f${c % 60}.txt`]: `file ${c % 60} edit ${c}\n` }));
  // The side branch's directory has every file of main's and 40 more: git's delta search, which
  // takes bigger objects as bases, stores main's newest version against it.
  const extra: Record<string, string> = {};
  for (let f = 0; f < 40; f++) extra[`wide/x${f}.txt`] = `extra ${f}\n`;
  script.push(...commit('side', 31, extra, 'refs/heads/main'), '');
  git(server, ['fast-import', '--quiet'], script.join('\n'));
  git(server, ['repack', '-adbfq', '--window=250', '--depth=50']);
});

after(() => rmrf(work));

test('a tree stored against a base the client lacks goes as a delta against one it has', () => {
  const tree = git(server, ['rev-parse', 'main:wide']).trim();
  const storedBase = git(server, ['cat-file', '--batch-check=%(deltabase)'], `${tree}\n`).trim();
  const onMain = git(server, ['rev-list', '--objects', 'main']);
  assert.ok(/^[0-9a-f]{40}$/.test(storedBase) && !/^0+$/.test(storedBase), `main:wide ${tree} is stored whole`);
  assert.ok(!onMain.includes(storedBase), 'main:wide is stored against a tree main reaches: the fixture tests nothing');

  const client = path.join(work, 'client.git');
  git(work, ['clone', '-q', '--bare', `file://${server}`, client]);
  git(client, ['update-ref', 'refs/heads/main', 'main~3']);
  git(client, ['update-ref', '-d', 'refs/heads/side']);
  git(client, ['repack', '-adq']);
  git(client, ['prune', '--expire=now']);
  const before = new Set(fs.readdirSync(path.join(client, 'objects', 'pack')));
  git(client, ['-c', 'fetch.unpackLimit=1', 'fetch', '-q', `--upload-pack=${UPLOAD_PACK}`, 'origin', 'refs/heads/main:refs/heads/main'], undefined, GIT_ENV);
  git(client, ['fsck', '--full', '--no-dangling']);
  assert.equal(git(client, ['rev-parse', 'main']), git(server, ['rev-parse', 'main']));

  const received = fs.readdirSync(path.join(client, 'objects', 'pack')).filter(f => f.endsWith('.idx') && !before.has(f));
  assert.equal(received.length, 1, `one pack received: ${received.join(', ')}`);
  const listing = git(client, ['verify-pack', '-v', path.join(client, 'objects', 'pack', received[0]!)]);
  const line = listing.split('\n').find(l => l.startsWith(tree));
  assert.ok(line, `main:wide ${tree} is in the received pack`);
  const fields = line.trim().split(/\s+/);
  assert.equal(fields.length, 7, `main:wide was sent whole: ${line}`);
  assert.ok(onMain.includes(fields[6]!), `main:wide's base ${fields[6]} is a version the client has`);
});
