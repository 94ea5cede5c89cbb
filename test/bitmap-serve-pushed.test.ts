// A fetch answered from a reachability bitmap in a repository as a server keeps it between two
// gcs: repacked with a bitmap, then small pushes, each of which stays loose. The client (a CI
// checkout with every branch) is one commit behind on main and has a branch inside the bitmapped
// pack, so one of its haves is there and the bitmap answers; it also fetches a branch it lacks
// from the pack, which makes the answer say "pack-reused N" (only the bitmap's answer reuses the
// pack verbatim). The file the push changed is loose, outside the bitmapped pack: tsgit sends it
// as a delta against the client's version of its path, as git does when it walks (preferred
// bases); git's own bitmap answer sends it whole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { git, gitBuf, GIT_ENV, pkt, rmrf, tmpDir, tsgit, TSGIT } from './helpers.js';

let work: string;
let server: string;
let client: string;
const UPLOAD_PACK = `${process.execPath} ${TSGIT} upload-pack`;

/** A source file of 4,000 lines, of which version `v` edits a few. */
function source(v: number): string {
  const out: string[] = [];
  for (let i = 0; i < 4000; i++) out.push(i % 997 === v ? `int line${i} = ${v}; /* edited in version ${v} */` : `int line${i} = ${i * 7 % 1000}; /* the same in every version */`);
  return out.join('\n') + '\n';
}

/** git with commit dates that advance with `n`, so negotiation orders the commits as pushed. */
function gitAt(cwd: string, n: number, args: string[]): string {
  const date = `${1700000000 + n * 60} +0000`;
  return git(cwd, args, undefined, { ...GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
}

function commitAndPush(wt: string, n: number, ref: string): void {
  gitAt(wt, n, ['add', '-A']);
  gitAt(wt, n, ['commit', '-q', '-m', `commit ${n}`]);
  gitAt(wt, n, ['push', '-q', server, `HEAD:${ref}`]);
}

before(() => {
  work = tmpDir('tsgit-bitmap-pushed-');
  server = path.join(work, 'server.git');
  git(work, ['init', '-q', '--bare', '-b', 'main', server]);
  const wt = path.join(work, 'wt');
  git(work, ['init', '-q', '-b', 'main', wt]);
  fs.mkdirSync(path.join(wt, 'src'));
  fs.writeFileSync(path.join(wt, 'src', 'main.c'), source(0));
  fs.writeFileSync(path.join(wt, 'README'), 'a project\n');
  commitAndPush(wt, 0, 'refs/heads/main');
  // Two branches off main: one the client has, one it has not fetched yet.
  for (const [n, branch] of [[1, 'side'], [2, 'topic']] as const) {
    git(wt, ['checkout', '-q', '-b', branch, 'main']);
    fs.writeFileSync(path.join(wt, `${branch}.txt`), `${branch}\n`);
    commitAndPush(wt, n, `refs/heads/${branch}`);
  }
  git(wt, ['checkout', '-q', 'main']);
  git(server, ['repack', '-adbq']);
  for (let v = 1; v <= 4; v++) {
    fs.writeFileSync(path.join(wt, 'src', 'main.c'), source(v));
    commitAndPush(wt, 2 + v, 'refs/heads/main');
  }
  // The client: everything but topic and main's newest commit (gc'd away with its objects).
  client = path.join(work, 'client');
  git(work, ['clone', '-q', '--no-local', server, client]);
  git(client, ['reset', '-q', '--hard', 'HEAD~1']);
  git(client, ['update-ref', 'refs/remotes/origin/main', 'HEAD']);
  git(client, ['update-ref', '-d', 'refs/remotes/origin/topic']);
  git(client, ['reflog', 'expire', '--expire=now', '--all']);
  git(client, ['gc', '-q', '--prune=now']);
});

after(() => rmrf(work));

/** The N of "pack-reused N" in a response's (or a fetch's stderr's) Total line, or -1. */
function packReused(text: string): number {
  const m = /Total \d+ \(delta \d+\), reused \d+ \(delta \d+\), pack-reused (\d+)/.exec(text);
  return m ? Number(m[1]) : -1;
}

describe('a fetch answered from a bitmap after small pushes', () => {
  it('starts from a bitmapped pack and loose pushes, and a client that lacks the newest version', () => {
    const counted = git(server, ['count-objects', '-v']);
    assert.ok(Number(/^count: (\d+)$/m.exec(counted)![1]) >= 16, counted);
    assert.equal(/^packs: (\d+)$/m.exec(counted)![1], '1', counted);
    assert.ok(fs.readdirSync(path.join(server, 'objects', 'pack')).some((f) => f.endsWith('.bitmap')));
    const newest = git(server, ['rev-parse', 'main:src/main.c']).trim();
    assert.notEqual(spawnSync('git', ['cat-file', '-e', newest], { cwd: client, env: GIT_ENV }).status, 0);
  });

  it('sends the loose new version as a delta against the client\'s, as git does when it walks', () => {
    const id = (rev: string) => git(server, ['rev-parse', rev]).trim();
    const request = pkt(`want ${id('main')} multi_ack_detailed side-band-64k thin-pack ofs-delta agent=git/2.39.5\n`) +
      pkt(`want ${id('topic')}\n`) + '0000' + pkt(`have ${id('main~1')}\n`) + pkt(`have ${id('side')}\n`) + pkt('done\n');
    const ours = tsgit(server, ['upload-pack', '--stateless-rpc', '.'], request);
    assert.equal(ours.status, 0, ours.stderr.toString());
    assert.ok(packReused(ours.stdout.toString('latin1')) > 0, 'the bitmap did not answer (nothing pack-reused)');
    const gitWalked = gitBuf(server, ['-c', 'pack.useBitmaps=false', 'upload-pack', '--stateless-rpc', '.'], request).length;
    const gitBitmap = gitBuf(server, ['upload-pack', '--stateless-rpc', '.'], request).length;
    const whole = zlib.deflateSync(gitBuf(server, ['cat-file', 'blob', 'main:src/main.c'])).length;
    const sizes = `tsgit sent ${ours.stdout.length} bytes, git ${gitWalked} walking and ${gitBitmap} from its bitmap; the file alone is ${whole} compressed`;
    assert.ok(ours.stdout.length <= gitWalked + 512, sizes);
    assert.ok(ours.stdout.length < whole / 2, sizes);
  });

  it('git fetch takes it: fsck is clean and the new version is stored as a delta', () => {
    const before = new Set(fs.readdirSync(path.join(client, '.git', 'objects', 'pack')));
    const r = spawnSync('git', ['-c', 'fetch.unpackLimit=1', 'fetch', '--progress', `--upload-pack=${UPLOAD_PACK}`, 'origin'],
      { cwd: client, env: GIT_ENV });
    const stderr = r.stderr.toString();
    assert.equal(r.status, 0, stderr);
    assert.ok(packReused(stderr) > 0, `the bitmap did not answer: ${stderr}`);
    assert.equal(git(client, ['rev-parse', 'origin/main']), git(server, ['rev-parse', 'main']));
    assert.equal(git(client, ['rev-parse', 'origin/topic']), git(server, ['rev-parse', 'topic']));
    assert.equal(git(client, ['fsck', '--full', '--no-dangling']), '');
    const received = fs.readdirSync(path.join(client, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.idx') && !before.has(f));
    assert.equal(received.length, 1, received.join(', '));
    const blob = git(server, ['rev-parse', 'main:src/main.c']).trim();
    const listing = git(client, ['verify-pack', '-v', path.join(client, '.git', 'objects', 'pack', received[0]!)]);
    const line = listing.split('\n').find((l) => l.startsWith(blob));
    assert.ok(line && line.trim().split(/\s+/).length === 7, `src/main.c was sent whole: ${line}`);
  });
});
