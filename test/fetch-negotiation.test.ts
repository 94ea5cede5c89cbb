// What a fetch offers as haves, against git 2.39: the have lines git's upload-pack reads
// (GIT_TRACE_PACKET, "upload-pack< have"), in order, with stderr and exit status, for git and
// tsgit (one batch process) fetching in copies of one clone over protocol v0 and v2:
//   --negotiation-tip as a ref glob, as a tag and revisions together, a glob matching
//   nothing (git's warning); fetch.negotiationAlgorithm noop (no haves), default, and skipping
//   (also feature.experimental's), with and without history git parses before negotiating;
//   git's refusals: a name that is no object, an id not here, an algorithm it does not know (before
//   anything else, even an unknown remote).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sameAsSpawned, tsgitBatch } from './cli-batch.js';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-negotiation-'));
after(() => rmrf(root));

let date = 1700000000;
/** A commit a minute after the last, on what is checked out in `dir`. */
function commit(dir: string, message: string): void {
  date += 60;
  git(dir, ['commit', '-q', '--allow-empty', '-m', message], undefined, { ...GIT_ENV, GIT_COMMITTER_DATE: `${date} +0000` });
}

// up.git: c1..c3 on main (side at c1), then c4 after the clone. work, its clone: a (two commits
// on c3), b (three on c2, tagged tb), younger than c4 in turns, so that the walk interleaves them
// by date, and long (below).
const source = path.join(root, 'source');
const work = path.join(root, 'work');
git(root, ['init', '-q', '-b', 'main', source]);
for (const n of [1, 2, 3]) commit(source, `c${n}`);
// A branch the clone has: git's fetch-pack parses the history newer than it before negotiating.
git(source, ['branch', 'side', 'main~2']);
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
// long: 24 commits on c2, newer still, the run the skipping negotiator skips through.
const stream: string[] = [];
for (let i = 1; i <= 24; i++) {
  date += 60;
  stream.push('commit refs/heads/long', `committer C O Mitter <c@example.com> ${date} +0000`, 'data 2', 'l', ...(i === 1 ? [`from ${git(work, ['rev-parse', 'main~1']).trim()}`] : []), '');
}
git(work, ['fast-import', '--quiet'], stream.join('\n'));
commit(source, 'c4');
git(source, ['push', '-q', path.join(root, 'up.git'), 'main']);

/** The fetches compared, each over a protocol version, in a fresh copy of work for each tool. */
const CASES = {
  glob: [2, ['fetch', '-q', '--negotiation-tip=refs/heads/a*']],
  tagAndRevision: [0, ['fetch', '-q', '--negotiation-tip=tb', '--negotiation-tip=b~1', '--negotiation-tip=a~1']],
  noObject: [2, ['fetch', '-q', '--negotiation-tip=nope']],
  notHere: [2, ['fetch', '-q', `--negotiation-tip=${'12'.repeat(20)}`]],
  noop: [2, ['-c', 'fetch.negotiationAlgorithm=noop', 'fetch', '-q']],
  // Every branch's history is what default offers without tips too.
  defaultUnmatched: [0, ['-c', 'fetch.negotiationAlgorithm=Default', 'fetch', '-q', '--negotiation-tip=heads/*', '--negotiation-tip=nothing/*']],
  unknown: [2, ['-c', 'fetch.negotiationAlgorithm=bogus', 'fetch', 'nowhere']],
  // Over v2 asking for main only side is not listed, and git parses no history ahead.
  skipping: [2, ['-c', 'fetch.negotiationAlgorithm=skipping', 'fetch', '-q', 'origin', 'main']],
  experimental: [0, ['-c', 'feature.experimental=true', 'fetch', '-q']],
} satisfies Record<string, [0 | 2, string[]]>;
type Name = keyof typeof CASES;

interface Seen { status: number | null; stderr: string; haves: string[] }

/** Where `tool` runs case `name`: a fresh copy of work, and its packet trace beside it. */
function copyFor(tool: 'git' | 'tsgit', name: Name): { cwd: string; args: string[]; env: NodeJS.ProcessEnv } {
  const cwd = path.join(root, `${name}-${tool}`);
  fs.cpSync(work, cwd, { recursive: true });
  const [version, args] = CASES[name];
  return { cwd, args: ['-c', `protocol.version=${version}`, ...args], env: { ...GIT_ENV, GIT_TRACE_PACKET: `${cwd}.trace` } };
}

/** The haves git's upload-pack read, in order. */
function haves(trace: string): string[] {
  const packets = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : '';
  return [...packets.matchAll(/upload-pack< have ([0-9a-f]{40})/g)].map((m) => m[1]!);
}

// git's runs spawned, tsgit's in one batch (and one spawned, as the CLI itself prints it).
const names = Object.keys(CASES) as Name[];
const seen = { git: new Map<Name, Seen>(), tsgit: new Map<Name, Seen>() };
for (const name of names) {
  const c = copyFor('git', name);
  const r = spawnSync('git', c.args, { cwd: c.cwd, env: c.env, encoding: 'utf8' });
  seen.git.set(name, { status: r.status, stderr: r.stderr, haves: haves(`${c.cwd}.trace`) });
}
const ours = names.map((name) => copyFor('tsgit', name));
tsgitBatch(ours, GIT_ENV).forEach((r, i) => {
  seen.tsgit.set(names[i]!, { status: r.status, stderr: r.stderr.toString(), haves: haves(`${ours[i]!.cwd}.trace`) });
});
const spawned = names.indexOf('unknown');
sameAsSpawned([ours[spawned]!], [{ status: seen.tsgit.get('unknown')!.status!, stdout: Buffer.alloc(0), stderr: Buffer.from(seen.tsgit.get('unknown')!.stderr) }]);

/** The case run by both: the same haves, stderr and exit status; git's haves. */
function compare(name: Name): string[] {
  assert.deepEqual(seen.tsgit.get(name), seen.git.get(name), name);
  return seen.git.get(name)!.haves;
}

const rev = (name: string) => git(work, ['rev-parse', name]).trim();

describe('fetch --negotiation-tip', () => {
  it("offers only the tips' history, as git does", () => {
    assert.deepEqual(compare('glob'), [rev('a'), rev('a~1'), rev('main'), rev('main~1'), rev('main~2')]);
    assert.equal(compare('tagAndRevision').length, 7);
  });

  it("refuses a tip that is no object here, with git's messages", () => {
    compare('noObject');
    compare('notHere');
  });
});

describe('fetch.negotiationAlgorithm', () => {
  it('offers nothing with noop, every branch with default (a glob of tips matching nothing warned of), as git does', () => {
    assert.deepEqual(compare('noop'), []);
    assert.ok(compare('defaultUnmatched').length > 30);
  });

  it('skips through a long history with skipping (the default under feature.experimental), as git does', () => {
    const all = compare('defaultUnmatched').length;
    assert.ok(compare('skipping').length < all - 10);
    assert.ok(compare('experimental').length < all - 10);
  });

  it("refuses a value git does not know before anything else, with git's message", () => {
    compare('unknown');
  });
});
