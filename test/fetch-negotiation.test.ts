// What a fetch offers as haves, against git 2.39: the have lines git's upload-pack reads
// (GIT_TRACE_PACKET, "upload-pack< have"), in order, with stderr and exit status, for git and
// tsgit fetching in two copies of one clone over protocol v0 and v2:
//   --negotiation-tip as a branch, a ref glob, a tag and a revision together, a glob matching
//   nothing (git's warning); fetch.negotiationAlgorithm noop (no haves) and default (every ref's);
//   git's refusals: a name that is no object, an id not here, an algorithm it does not know (before
//   anything else, even an unknown remote).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-negotiation-'));
after(() => rmrf(root));

let date = 1700000000;
/** A commit a minute after the last, on what is checked out in `dir`. */
function commit(dir: string, message: string): void {
  date += 60;
  git(dir, ['commit', '-q', '--allow-empty', '-m', message], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: `${date} +0000` });
}

// up.git: c1..c3 on main, then c4 after the clone. work, its clone: a (two commits on c3), b (three
// on c2, tagged tb), all younger than c4 in turns, so that the walk interleaves them by date.
const source = path.join(root, 'source');
const work = path.join(root, 'work');
git(root, ['init', '-q', '-b', 'main', source]);
for (const n of [1, 2, 3]) commit(source, `c${n}`);
git(root, ['clone', '-q', '--bare', source, path.join(root, 'up.git')]);
git(root, ['clone', '-q', path.join(root, 'up.git'), work]);
// The server is git's, traced, for either client.
git(work, ['config', 'remote.origin.uploadpack', 'git-upload-pack']);
git(work, ['checkout', '-q', '-b', 'b', 'main~1']);
commit(work, 'b1');
git(work, ['checkout', '-q', '-b', 'a', 'main']);
commit(work, 'a1');
git(work, ['checkout', '-q', 'b']);
commit(work, 'b2');
git(work, ['checkout', '-q', 'a']);
commit(work, 'a2');
git(work, ['checkout', '-q', 'b']);
commit(work, 'b3');
git(work, ['tag', '-a', '-m', 't', 'tb']);
git(work, ['checkout', '-q', 'main']);
commit(source, 'c4');
git(source, ['push', '-q', path.join(root, 'up.git'), 'main']);

let runs = 0;

/** `args` run by `tool` in a fresh copy of work: its status, stderr and the haves git's upload-pack read. */
function fetchIn(tool: 'git' | 'tsgit', args: string[]): { status: number | null; stderr: string; haves: string[] } {
  const copy = path.join(root, `${runs++}-${tool}`);
  fs.cpSync(work, copy, { recursive: true });
  const trace = `${copy}.trace`;
  const cmd = tool === 'git' ? ['git'] : [process.execPath, TSGIT];
  const r = spawnSync(cmd[0]!, [...cmd.slice(1), ...args], { cwd: copy, env: { ...GIT_ENV, GIT_TRACE_PACKET: trace }, encoding: 'utf8' });
  const packets = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '';
  const haves = [...packets.matchAll(/upload-pack< have ([0-9a-f]{40})/g)].map((m) => m[1]!);
  return { status: r.status, stderr: r.stderr, haves };
}

/** The same fetch by git and tsgit, over protocol `version`: the same haves, stderr and exit status. */
function compare(version: 0 | 2, args: string[]): string[] {
  const line = ['-c', `protocol.version=${version}`, ...args];
  const theirs = fetchIn('git', line);
  assert.deepEqual(fetchIn('tsgit', line), theirs, line.join(' '));
  return theirs.haves;
}

const rev = (name: string) => git(work, ['rev-parse', name]).trim();

describe('fetch --negotiation-tip', () => {
  it("offers only the tips' history, as git does", () => {
    assert.deepEqual(compare(0, ['fetch', '-q', '--negotiation-tip=a']), [rev('a'), rev('a~1'), rev('main'), rev('main~1'), rev('main~2')]);
    compare(2, ['fetch', '-q', '--negotiation-tip=refs/heads/b*']);
    compare(2, ['fetch', '-q', '--negotiation-tip=tb', '--negotiation-tip=a~1']);
    compare(0, ['fetch', '-q', '--negotiation-tip=heads/*', '--negotiation-tip=nothing/*']);
  });

  it("refuses a tip that is no object here, with git's messages", () => {
    compare(2, ['fetch', '-q', '--negotiation-tip=nope']);
    compare(2, ['fetch', '-q', `--negotiation-tip=${'12'.repeat(20)}`]);
  });
});

describe('fetch.negotiationAlgorithm', () => {
  it('offers nothing with noop, every ref with default, as git does', () => {
    assert.deepEqual(compare(2, ['-c', 'fetch.negotiationAlgorithm=noop', 'fetch', '-q']), []);
    assert.equal(compare(0, ['-c', 'fetch.negotiationAlgorithm=Default', 'fetch', '-q']).length, 8);
  });

  it("refuses a value git does not know before anything else, with git's message", () => {
    compare(2, ['-c', 'fetch.negotiationAlgorithm=bogus', 'fetch', 'nowhere']);
  });
});
