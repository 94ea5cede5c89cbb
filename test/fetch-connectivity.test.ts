// The connectivity check after a clone or fetch that is shallow or partial, against git's: a
// server whose pack leaves out an object the new refs need is refused, with git's message and exit
// status, and nothing is kept that points at the hole (no clone; refs, .git/shallow and FETCH_HEAD
// as git leaves them). The server is git-upload-pack with a pack-objects hook that excludes the
// objects a test names (what only they reach goes too), run by git and tsgit alike over file://.
// A shallow transfer is tried with received objects checked (tsgit's default) and without (git's):
// with, index-pack finds what the pack names and lacks, for both; without, the walk after it does.
// A partial one is tried with each tool's default, which changes nothing there (a partial pack's
// references are not index-pack's to check).
//   - clone --depth, a blob of the boundary commit's tree left out (and clone --depth 1 whole);
//   - fetch --deepen in a shallow clone: a blob of the new commit left out, the new boundary
//     commit itself left out, and the whole deepening (with --atomic: git's aborted transaction
//     adds an empty error);
//   - a partial clone (--filter=blob:none) fetching from its promisor remote, which leaves out the
//     new tip; the same remote leaving out only a tree of the new commit, which git believes (a
//     promisor pack holds the tip: what it lacks was promised); a fetch from another remote, not a
//     promisor, which leaves out a blob, and a good one, whose new tree names a blob the filter
//     left out (promised, so taken); each time a fetch from a good server afterwards;
//   - clone --filter=blob:none whose tip is left out.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, GIT_ENV, rmrf, tmpDir, TSGIT } from './helpers.js';

type Tool = 'tsgit' | 'git';
const TOOLS: readonly Tool[] = ['tsgit', 'git'];
const VERSIONS = [0, 2] as const;
/** Received objects checked or not, set alike for both tools (tsgit checks them unless told not to, git only when told to). */
const FSCK = [
  { name: 'with fsck', config: ['-c', 'transfer.fsckObjects=true'], checked: true },
  { name: 'without fsck', config: ['-c', 'transfer.fsckObjects=false'], checked: false },
] as const;

let root = '';
let source = '';
let url = '';
/** c1..c6 on main, oldest first. */
let commits: string[] = [];
let made = 0;

before(() => {
  root = tmpDir('tsgit-fetch-connectivity-');
  source = path.join(root, 'source');
  fs.mkdirSync(source);
  git(source, ['init', '-q', '-b', 'main']);
  git(source, ['config', 'uploadpack.allowFilter', 'true']);
  // Every commit changes f; every other one d/g too, so that a commit's tree shares a subtree with
  // its parent's now and then; r never changes.
  fs.writeFileSync(path.join(source, 'r'), 'r\n');
  for (let i = 1; i <= 6; i++) {
    fs.writeFileSync(path.join(source, 'f'), `f ${i}\n`);
    if (i % 2 === 1) {
      fs.mkdirSync(path.join(source, 'd'), { recursive: true });
      fs.writeFileSync(path.join(source, 'd', 'g'), `g ${i}\n`);
    }
    git(source, ['add', '-A']);
    git(source, ['commit', '-q', '-m', `c${i}`]);
    commits.push(rev(`HEAD`));
  }
  url = `file://${source}`;
});
after(() => rmrf(root));

function rev(name: string): string {
  return git(source, ['rev-parse', name]).trim();
}

/**
 * An upload-pack that leaves `omit` out of its packs (and what only they reach: for a commit, its
 * history): git-upload-pack whose pack-objects is told `^<id>` for each before the client's wants.
 * uploadpack.packObjectsHook counts only from protected configuration, hence the -c.
 */
function leavingOut(omit: readonly string[]): string {
  const n = made++;
  const hook = path.join(root, `hook-${n}`);
  fs.writeFileSync(hook, `#!/bin/sh\n{ ${omit.map((id) => `echo '^${id}';`).join(' ')} cat; } | "$@"\n`, { mode: 0o755 });
  const uploadPack = path.join(root, `upload-pack-${n}`);
  fs.writeFileSync(uploadPack, `#!/bin/sh\nexec git -c uploadpack.packObjectsHook=${hook} upload-pack "$@"\n`, { mode: 0o755 });
  return uploadPack;
}

interface Run { status: number | null; stderr: string }

function run(tool: Tool, cwd: string, args: string[]): Run {
  const r = tool === 'git'
    ? spawnSync('git', args, { cwd, env: GIT_ENV })
    : spawnSync(process.execPath, [TSGIT, ...args], { cwd, env: GIT_ENV });
  return { status: r.status, stderr: String(r.stderr) };
}

/** A new directory name under root, for `tool`'s copy of a scenario. */
function target(tool: Tool, what: string): string {
  return path.join(root, `${what}-${made++}-${tool}`);
}

/** What a refused fetch must leave as git leaves it. */
function state(dir: string): { refs: string; shallow: string; fetchHead: string } {
  const read = (name: string) => {
    const file = path.join(dir, '.git', name);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : `(no ${name})`;
  };
  return { refs: git(dir, ['for-each-ref', '--format=%(refname) %(objectname)']), shallow: read('shallow'), fetchHead: read('FETCH_HEAD') };
}

/**
 * git's refusal: the exit status, and a line naming the missing object (in tsgit's words and git's,
 * which differ); with `last`, that as the last line of stderr, after the naming one.
 */
function assertRefused(tool: Tool, r: Run, status: number, last: string | null, missing: string): void {
  const lines = r.stderr.replace(/\n+$/, '').split('\n');
  assert.equal(r.status, status, `${tool}: ${r.stderr}`);
  if (last !== null) assert.equal(lines[lines.length - 1], last, `${tool}: ${r.stderr}`);
  const before = last !== null ? lines.slice(0, -1) : lines;
  assert.ok(before.some((l) => /^(fatal|error): /.test(l) && l.includes(missing)), `${tool} names ${missing}: ${r.stderr}`);
}

function assertConnected(dir: string): void {
  git(dir, ['fsck', '--connectivity-only', '--no-dangling']);
}

describe('clone --depth', () => {
  for (const version of VERSIONS) {
    for (const fsck of FSCK) {
      test(`over protocol v${version}, ${fsck.name}: a blob the boundary commit needs left out is refused, nothing left (said with -q too)`, () => {
        const blob = rev('HEAD~1:d/g');
        const server = leavingOut([blob]);
        for (const tool of TOOLS) {
          const dir = target(tool, 'clone-depth');
          const r = run(tool, root, [...fsck.config, '-c', `protocol.version=${version}`, 'clone', '-q', '--depth', '2', `--upload-pack=${server}`, url, dir]);
          // Checked, it is index-pack that refuses (git's "did not receive expected object").
          assertRefused(tool, r, 128, fsck.checked ? null : 'fatal: remote did not send all necessary objects', blob);
          assert.equal(fs.existsSync(dir), false, `${tool} left ${dir}`);
        }
      });
    }
  }

  for (const fsck of FSCK) {
    test(`clone --depth 1 from a server that sends everything, ${fsck.name}: the same boundary as git, connected`, () => {
      const shallow = TOOLS.map((tool) => {
        const dir = target(tool, 'clone-depth-1');
        const r = run(tool, root, [...fsck.config, 'clone', '-q', '--depth', '1', url, dir]);
        assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
        assertConnected(dir);
        return state(dir).shallow;
      });
      assert.equal(shallow[0], `${commits[5]}\n`);
      assert.equal(shallow[0], shallow[1]);
    });
  }
});

describe('fetch --deepen in a shallow clone', () => {
  /** A depth-2 clone made by git, whose origin is served by `uploadPack`. */
  function shallowClone(tool: Tool, uploadPack: string): string {
    const dir = target(tool, 'deepen');
    git(root, ['clone', '-q', '--depth', '2', url, dir]);
    git(dir, ['config', 'remote.origin.uploadpack', uploadPack]);
    fs.writeFileSync(path.join(dir, '.git', 'FETCH_HEAD'), 'before\n');
    return dir;
  }

  const cases = [
    // c4 comes with its tree; its f does not. Checked, index-pack refuses the pack (exit 128).
    { what: 'a blob of the new commit', omit: () => rev('HEAD~2:f'), inPack: true },
    // The server says c4 is the new boundary and unshallows c5, but sends no c4, c5's parent:
    // nothing in the pack names it, the walk finds it missing.
    { what: 'the new boundary commit', omit: () => rev('HEAD~2'), inPack: false },
  ];
  for (const version of VERSIONS) {
    for (const c of cases) {
      for (const fsck of FSCK) {
        test(`over protocol v${version}, ${fsck.name}: ${c.what} left out is refused; refs and .git/shallow stay, FETCH_HEAD as git leaves it`, () => {
          const missing = c.omit();
          const server = leavingOut([missing]);
          const after = TOOLS.map((tool) => {
            const dir = shallowClone(tool, server);
            const before = state(dir);
            const r = run(tool, dir, [...fsck.config, '-c', `protocol.version=${version}`, 'fetch', '--deepen', '1', 'origin']);
            if (fsck.checked && c.inPack) assertRefused(tool, r, 128, null, missing);
            else assertRefused(tool, r, 1, 'error: remote did not send all necessary objects', missing);
            const now = state(dir);
            assert.equal(now.refs, before.refs, tool);
            assert.equal(now.shallow, before.shallow, tool);
            return now;
          });
          assert.deepEqual(after[0], after[1]);
          assert.equal(after[0]!.fetchHead, '', 'git empties FETCH_HEAD before it fetches');
        });
      }
    }
  }

  test('from a server that sends everything, after a refused fetch: the boundary git has, connected', () => {
    const server = leavingOut([rev('HEAD~2:f')]);
    const after = TOOLS.map((tool) => {
      const dir = shallowClone(tool, server);
      // Unchecked, the refused pack stays: what it holds must not be believed next time. With
      // --atomic, git's aborted transaction adds its empty error.
      const refused = run(tool, dir, ['-c', 'transfer.fsckObjects=false', 'fetch', '--atomic', '--deepen', '1', 'origin']);
      assert.equal(refused.status, 1, tool);
      assert.match(refused.stderr, /\nerror: remote did not send all necessary objects\nerror: \n$/, tool);
      git(dir, ['config', 'remote.origin.uploadpack', 'git-upload-pack']);
      const r = run(tool, dir, ['fetch', '-q', '--deepen', '1', 'origin']);
      assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
      assertConnected(dir);
      return state(dir);
    });
    assert.equal(after[0]!.shallow, `${commits[3]}\n`);
    assert.deepEqual(after[0], after[1]);
  });
});

describe('fetch --depth 1 (a boundary that only grows)', () => {
  /** An empty repository with origin served by `uploadPack`, as actions/checkout starts one. */
  function emptyRepo(tool: Tool, uploadPack: string): string {
    const dir = target(tool, 'checkout');
    git(root, ['init', '-q', dir]);
    git(dir, ['remote', 'add', 'origin', url]);
    git(dir, ['config', 'remote.origin.uploadpack', uploadPack]);
    return dir;
  }
  const refspec = () => `+${commits[5]}:refs/remotes/origin/main`;

  for (const fsck of FSCK) {
    test(`into a new repository, ${fsck.name}: a blob of the commit left out is refused; no ref, no .git/shallow`, () => {
      const blob = rev('HEAD:f');
      const server = leavingOut([blob]);
      const after = TOOLS.map((tool) => {
        const dir = emptyRepo(tool, server);
        const r = run(tool, dir, [...fsck.config, 'fetch', '--depth', '1', 'origin', refspec()]);
        if (fsck.checked) assertRefused(tool, r, 128, null, blob);
        else assertRefused(tool, r, 1, 'error: remote did not send all necessary objects', blob);
        return state(dir);
      });
      assert.deepEqual(after[0], { refs: '', shallow: '(no shallow)', fetchHead: '' });
      assert.deepEqual(after[0], after[1]);
    });
  }

  test('into a new repository, then again in it: the boundary git has, connected', () => {
    const after = TOOLS.map((tool) => {
      const dir = emptyRepo(tool, 'git-upload-pack');
      for (const args of [['fetch', '-q', '--depth', '1', 'origin', refspec()], ['fetch', '-q', '--depth', '1', 'origin']]) {
        const r = run(tool, dir, args);
        assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
        assertConnected(dir);
      }
      return state(dir);
    });
    assert.deepEqual(after[0], after[1]);
  });
});

describe('a partial clone', () => {
  /** A blob:none clone made by git of the history up to `branch`, whose origin is served by `uploadPack`. */
  function partialClone(tool: Tool, uploadPack: string, branch = 'c4'): string {
    const dir = target(tool, 'partial');
    git(root, ['clone', '-q', '--no-checkout', '--filter=blob:none', '--single-branch', '--branch', branch, url, dir]);
    git(dir, ['config', 'remote.origin.uploadpack', uploadPack]);
    fs.writeFileSync(path.join(dir, '.git', 'FETCH_HEAD'), 'before\n');
    return dir;
  }

  before(() => {
    git(source, ['branch', 'c4', commits[3]!]);
    git(source, ['branch', 'c5', commits[4]!]);
    git(source, ['branch', 'c6', commits[5]!]);
  });

  for (const version of VERSIONS) {
    test(`over protocol v${version}: its promisor remote leaving out the new tip is refused`, () => {
      const tip = rev('c6');
      const server = leavingOut([tip]);
      const after = TOOLS.map((tool) => {
        const dir = partialClone(tool, server);
        const before = state(dir);
        const r = run(tool, dir, ['-c', `protocol.version=${version}`, 'fetch', 'origin', 'c6:refs/remotes/origin/c6']);
        assertRefused(tool, r, 1, `error: ${url} did not send all necessary objects`, tip);
        // git's message ends in a newline of its own.
        assert.ok(r.stderr.endsWith('objects\n\n'), `${tool}: ${r.stderr}`);
        const now = state(dir);
        assert.equal(now.refs, before.refs, tool);
        return now;
      });
      assert.deepEqual(after[0], after[1]);
      assert.equal(after[0]!.fetchHead, '');
    });
  }

  /**
   * Each tool fetches `args` in the partial clone `prepare` makes and succeeds; `ref` then reaches
   * `hole` as a missing object (promised, not sent), and both are left with the same refs.
   */
  const takenWithHole = (prepare: (tool: Tool) => string, args: string[], ref: string, hole: string): void => {
    const refs = TOOLS.map((tool) => {
      const dir = prepare(tool);
      const r = run(tool, dir, args);
      assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
      assert.match(git(dir, ['rev-list', '--objects', '--missing=print', '--no-object-names', ref]), new RegExp(`^\\?${hole}$`, 'm'));
      return state(dir).refs;
    });
    assert.match(refs[0]!, new RegExp(`refs/remotes/${ref} ${rev('c6')}`));
    assert.equal(refs[0], refs[1]);
  };

  test('its promisor remote leaving out only a tree of the new commit is believed, as git believes it', () => {
    const server = leavingOut([rev('c6:d')]);
    // The promisor pack holds the tip; the tree is missing, to be fetched when needed.
    takenWithHole((tool) => partialClone(tool, server), ['fetch', '-q', 'origin', 'c6:refs/remotes/origin/c6'], 'origin/c6', rev('c6:d'));
  });

  for (const version of VERSIONS) {
    test(`over protocol v${version}: another remote, not a promisor, leaving out a blob is refused; a good one then fetched`, () => {
      const blob = rev('c6:f');
      const server = leavingOut([blob]);
      const after = TOOLS.map((tool) => {
        const dir = partialClone(tool, server);
        git(dir, ['remote', 'add', 'other', url]);
        git(dir, ['config', 'remote.other.uploadpack', server]);
        const before = state(dir);
        const r = run(tool, dir, ['-c', `protocol.version=${version}`, 'fetch', 'other', 'c6']);
        assertRefused(tool, r, 1, `error: ${url} did not send all necessary objects`, blob);
        assert.equal(state(dir).refs, before.refs, tool);
        // What the refused fetch left is not believed next time: the blob comes now.
        git(dir, ['config', 'remote.other.uploadpack', 'git-upload-pack']);
        const again = run(tool, dir, ['fetch', '-q', 'other', 'c6']);
        assert.equal(again.status, 0, `${tool}: ${again.stderr}`);
        git(dir, ['cat-file', '-e', blob]);
        return state(dir);
      });
      assert.match(after[0]!.refs, new RegExp(`refs/remotes/other/c6 ${rev('c6')}`));
      assert.deepEqual(after[0], after[1]);
    });
  }

  test('another remote, not a promisor, whose new tree names a blob the filter left out: promised, so taken, as git takes it', () => {
    // c6's root tree is new; the server does not send r, which c5's tree (ours, a promisor's) names.
    takenWithHole((tool) => {
      const dir = partialClone(tool, 'git-upload-pack', 'c5');
      git(dir, ['remote', 'add', 'other', url]);
      return dir;
    }, ['fetch', '-q', 'other', 'c6'], 'other/c6', rev('c6:r'));
  });

  test('clone --filter=blob:none, then a fetch of new history: both as git does them', () => {
    const refs = TOOLS.map((tool) => {
      const dir = target(tool, 'partial-clone');
      const r = run(tool, root, ['clone', '-q', '--filter=blob:none', '--single-branch', '--branch', 'c4', url, dir]);
      assert.equal(r.status, 0, `${tool}: ${r.stderr}`);
      const f = run(tool, dir, ['fetch', '-q', 'origin', 'c6:refs/remotes/origin/c6']);
      assert.equal(f.status, 0, `${tool}: ${f.stderr}`);
      return state(dir).refs;
    });
    assert.match(refs[0]!, new RegExp(`refs/remotes/origin/c6 ${rev('c6')}`));
    assert.equal(refs[0], refs[1]);
  });

  test('clone --filter=blob:none whose tip is left out is refused, and nothing is left', () => {
    const tip = rev('main');
    const server = leavingOut([tip]);
    for (const tool of TOOLS) {
      const dir = target(tool, 'partial-clone-refused');
      const r = run(tool, root, ['clone', '--filter=blob:none', '--single-branch', `--upload-pack=${server}`, url, dir]);
      assertRefused(tool, r, 128, 'fatal: remote did not send all necessary objects', tip);
      assert.equal(fs.existsSync(dir), false, `${tool} left ${dir}`);
    }
  });
});
