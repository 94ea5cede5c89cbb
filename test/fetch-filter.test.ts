// fetch --filter against git's: GitHub's actions/checkout sparse flow (init, remote, a filtered
// fetch of one commit, sparse-checkout set, checkout -B) run by tsgit and by git over git daemon
// and file://, which must leave the same config bytes, sparse settings, work tree, index, status,
// the same objects missing and the same .promisor files, with git fsck clean; then what git does
// with the remote it made a promisor (a later plain fetch keeps the filter, another --filter or a
// --refetch does not replace it), --no-filter, a server that does not allow filters, a fetch from
// an address, two --filter options, and --all with a filter.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { git, GIT_ENV, rmrf, tmpDir } from './helpers.js';
import { removeScratch, scratch } from './checkout-oracle.js';
import { assertSameOutcome, branchesRepo, runTool, writeFiles, type Run } from './sparse-oracle.js';
import { startDaemon, type Server } from './transport-servers.js';

afterEach(removeScratch);

let root: string;
let daemon: Server;
let commitA: string;

before(async () => {
  root = tmpDir('tsgit-fetch-filter-root-');
  const src = branchesRepo();
  git(root, ['clone', '-q', '--bare', src, 'src.git']);
  git(root, ['clone', '-q', '--bare', src, 'nofilter.git']);
  rmrf(src);
  git(path.join(root, 'src.git'), ['config', 'uploadpack.allowFilter', 'true']);
  git(path.join(root, 'nofilter.git'), ['config', 'uploadpack.allowFilter', 'false']);
  commitA = git(path.join(root, 'src.git'), ['rev-parse', 'A']).trim();
  daemon = await startDaemon(root);
});
after(async () => {
  await daemon.stop();
  rmrf(root);
});

type Tool = 'tsgit' | 'git';
const TOOLS: readonly Tool[] = ['tsgit', 'git'];

/** Runs each step with `tool` in `dir`, asserting each succeeds; the last step's run. */
function steps(tool: Tool, dir: string, list: string[][]): Run {
  let last: Run | null = null;
  for (const args of list) {
    last = runTool(tool, dir, args);
    assert.equal(last.status, 0, `${tool} ${args.join(' ')}: ${last.stderr}`);
  }
  return last!;
}

/** An empty repository with remote origin at `url`, as the runner makes it (git has the `remote` command tsgit lacks). */
function emptyRepo(tool: Tool, url: string): string {
  const dir = scratch(`tsgit-fetch-filter-${tool}-`);
  steps(tool, dir, [['init', '-q', '.']]);
  git(dir, ['remote', 'add', 'origin', url]);
  steps(tool, dir, [['config', '--local', 'gc.auto', '0']]);
  return dir;
}

/** The objects the repository lacks, as git lists them without fetching them. */
const missing = (dir: string): string =>
  git(dir, ['rev-list', '--objects', '--all', '--missing=print']).split('\n').filter(l => l.startsWith('?')).sort().join('\n');

/** Every .promisor file's lines, sorted: the packs' names depend on the order objects were asked for. */
function promisorLines(dir: string): string[] {
  const packs = path.join(dir, '.git', 'objects', 'pack');
  return fs.readdirSync(packs).filter(f => f.endsWith('.promisor'))
    .flatMap(f => fs.readFileSync(path.join(packs, f), 'utf8').split('\n').filter(Boolean)).sort();
}

const config = (dir: string): string => fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8');

function fsckClean(dir: string): void {
  const r = spawnSync('git', ['fsck', '--full', '--no-dangling'], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(r.status, 0, `git fsck: ${r.stdout}${r.stderr}`);
  assert.equal(r.stdout, '');
}

/** Asserts that the two repositories' objects, .promisor files and config are alike. */
function assertSameRepository(ours: string, theirs: string): void {
  assert.equal(missing(ours), missing(theirs));
  assert.deepEqual(promisorLines(ours), promisorLines(theirs));
  assert.equal(config(ours), config(theirs));
  fsckClean(ours);
}

/** actions/checkout's sparse-checkout step for `dirs`. */
const cone = (...dirs: string[]): string[][] => [['sparse-checkout', 'set', '--cone', ...dirs]];

/** actions/checkout's commands for a sparse checkout at `sha`, fetched with `fetchOptions`, made sparse by `sparse`. */
function actionsCheckout(sha: string, fetchOptions: string[], sparse: string[][]): string[][] {
  return [
    ['-c', 'protocol.version=2', 'fetch', '--no-tags', '--prune', '--no-recurse-submodules', ...fetchOptions, 'origin',
      `+${sha}:refs/remotes/origin/main`],
    ...sparse,
    ['checkout', '--progress', '--force', '-B', 'main', 'refs/remotes/origin/main'],
  ];
}

describe('fetch --filter: the actions/checkout sparse flow', () => {
  const transports: [string, () => string][] = [
    ['git daemon', () => daemon.url('src.git')],
    ['file://', () => `file://${path.join(root, 'src.git')}`],
  ];
  const fetches: string[][] = [['--filter=blob:none', '--depth=1'], ['--filter=blob:none'], ['--filter=tree:0', '--depth=1']];
  for (const [transport, url] of transports) {
    for (const fetchOptions of fetches) {
      it(`${fetchOptions.join(' ')} over ${transport}: the work tree, index, config and objects of git's run`, () => {
        const [ours, theirs] = TOOLS.map(tool => {
          const dir = emptyRepo(tool, url());
          return steps(tool, dir, actionsCheckout(commitA, fetchOptions, cone('in', 'd/x')));
        }) as [Run, Run];
        assertSameRepository(ours.dir, theirs.dir);
        assert.notEqual(missing(ours.dir), '');
        assertSameOutcome(ours, theirs);
      });
    }
  }

  const sparseSteps: [string, string[][]][] = [
    ['sparse-checkout init --cone, then add', [['sparse-checkout', 'init', '--cone'], ['sparse-checkout', 'add', 'd/x']]],
    ['sparse-checkout set --no-cone', [['sparse-checkout', 'set', '--no-cone', '/in/', '/out/chg.txt']]],
  ];
  for (const [name, sparse] of sparseSteps) {
    it(`--filter=blob:none --depth=1 with ${name}: as git's run`, () => {
      const [ours, theirs] = TOOLS.map(tool =>
        steps(tool, emptyRepo(tool, daemon.url('src.git')), actionsCheckout(commitA, ['--filter=blob:none', '--depth=1'], sparse))) as [Run, Run];
      assertSameRepository(ours.dir, theirs.dir);
      assertSameOutcome(ours, theirs);
    });
  }

  it('lists the refs it fetched in .promisor files where git keeps its packs (transfer.unpackLimit 1)', () => {
    const [ours, theirs] = TOOLS.map(tool => {
      const dir = emptyRepo(tool, daemon.url('src.git'));
      git(dir, ['config', 'transfer.unpackLimit', '1']);
      return steps(tool, dir, actionsCheckout(commitA, ['--filter=blob:none'], cone('in')));
    }) as [Run, Run];
    assert.notDeepEqual(promisorLines(ours.dir), []);
    assertSameRepository(ours.dir, theirs.dir);
    assertSameOutcome(ours, theirs);
  });
});

describe('fetch --filter: the promisor remote it makes', () => {
  it('a later plain fetch asks for the same filter, and another --filter leaves the recorded one', () => {
    const src = scratch('tsgit-fetch-filter-moving-');
    git(src, ['clone', '-q', '--bare', path.join(root, 'src.git'), '.']);
    git(src, ['config', 'uploadpack.allowFilter', 'true']);
    const url = `file://${src}`;
    const dirs = TOOLS.map(tool => {
      const dir = emptyRepo(tool, url);
      steps(tool, dir, actionsCheckout(commitA, ['--filter=blob:none', '--depth=1'], cone('in')));
      return dir;
    });
    // A new commit on A, with a new blob in and out of the cone.
    const work = scratch('tsgit-fetch-filter-work-');
    git(work, ['clone', '-q', src, '.']);
    writeFiles(work, { 'in/later.txt': 'later in\n', 'out/later.txt': 'later out\n' });
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', 'later']);
    git(work, ['push', '-q', 'origin', 'A']);
    const runs = TOOLS.map((tool, i) => steps(tool, dirs[i]!, [['fetch', '-q', 'origin'], ['fetch', '-q', '--filter=blob:limit=1k', 'origin', 'B']]));
    assert.equal(runs[0]!.stderr, runs[1]!.stderr);
    assertSameRepository(dirs[0]!, dirs[1]!);
    assert.match(missing(dirs[0]!), new RegExp(git(work, ['rev-parse', 'A:out/later.txt']).trim()));
    assert.match(config(dirs[0]!), /partialclonefilter = blob:none\n/);
  });

  it('--refetch with another filter fetches again what it lets through, and leaves the recorded filter', () => {
    const dirs = TOOLS.map(tool => {
      const dir = emptyRepo(tool, daemon.url('src.git'));
      steps(tool, dir, actionsCheckout(commitA, ['--filter=blob:none', '--depth=1'], cone('in')));
      return dir;
    });
    const before = missing(dirs[0]!);
    const runs = TOOLS.map((tool, i) => steps(tool, dirs[i]!, [['fetch', '-q', '--refetch', '--filter=blob:limit=9', 'origin', 'A']]));
    assert.equal(runs[0]!.stderr, runs[1]!.stderr);
    assertSameRepository(dirs[0]!, dirs[1]!);
    // The blobs under 9 bytes (d/chg.txt's) came, the others are still missing.
    assert.notEqual(missing(dirs[0]!), before);
    assert.notEqual(missing(dirs[0]!), '');
    assert.match(config(dirs[0]!), /partialclonefilter = blob:none\n/);
  });

  it('--no-filter fetches everything and registers nothing', () => {
    const [ours, theirs] = TOOLS.map(tool =>
      steps(tool, emptyRepo(tool, daemon.url('src.git')), [['fetch', '-q', '--filter=blob:none', '--no-filter', 'origin']])) as [Run, Run];
    assert.equal(ours.stderr, theirs.stderr);
    assertSameRepository(ours.dir, theirs.dir);
    assert.equal(missing(ours.dir), '');
    assert.doesNotMatch(config(ours.dir), /promisor/);
  });

  it('from a server that does not allow filters: git\'s warning, everything fetched, the remote a promisor all the same', () => {
    const [ours, theirs] = TOOLS.map(tool => {
      const dir = emptyRepo(tool, daemon.url('nofilter.git'));
      return steps(tool, dir, actionsCheckout(commitA, ['--filter=blob:none', '--depth=1'], cone('in')));
    }) as [Run, Run];
    const fetched = TOOLS.map(tool => runTool(tool, emptyRepo(tool, daemon.url('nofilter.git')), ['fetch', '--filter=blob:none', 'origin']));
    assert.match(fetched[0]!.stderr, /^warning: filtering not recognized by server, ignoring\n/);
    assert.equal(fetched[0]!.stderr, fetched[1]!.stderr);
    assertSameRepository(fetched[0]!.dir, fetched[1]!.dir);
    assert.equal(missing(ours.dir), '');
    assertSameRepository(ours.dir, theirs.dir);
    assertSameOutcome(ours, theirs);
  });

  it('from an address, the address is the promisor remote, as git names it', () => {
    const url = daemon.url('src.git');
    const [ours, theirs] = TOOLS.map(tool => {
      const dir = scratch(`tsgit-fetch-filter-${tool}-`);
      steps(tool, dir, [['init', '-q', '.']]);
      return steps(tool, dir, [['fetch', '-q', '--filter=blob:none', url, 'A']]);
    }) as [Run, Run];
    assertSameRepository(ours.dir, theirs.dir);
    assert.match(config(ours.dir), /\[remote "git:\/\/.*"\]\n\tpromisor = true\n/);
  });

  it('two --filter options are combined, as git combines them', () => {
    const [ours, theirs] = TOOLS.map(tool =>
      steps(tool, emptyRepo(tool, daemon.url('src.git')), [['fetch', '-q', '--filter=blob:none', '--filter=tree:1', 'origin']])) as [Run, Run];
    assertSameRepository(ours.dir, theirs.dir);
    assert.match(config(ours.dir), /partialclonefilter = combine:blob:none\+tree:1\n/);
  });

  it('--all with a filter and two remotes is refused as git refuses it, before anything is written', () => {
    const [ours, theirs] = TOOLS.map(tool => {
      const dir = emptyRepo(tool, daemon.url('src.git'));
      git(dir, ['remote', 'add', 'other', daemon.url('src.git')]);
      return runTool(tool, dir, ['fetch', '--all', '--filter=blob:none']);
    }) as [Run, Run];
    assert.equal(ours.status, 128);
    assert.equal(ours.status, theirs.status);
    assert.equal(ours.stderr, theirs.stderr);
    assert.equal(config(ours.dir), config(theirs.dir));
  });
});
