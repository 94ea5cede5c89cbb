// tsgit rev-list [--objects] [--all] [--count] [--not] [-n N] [--no-object-names] <revs>:
// commits in git's date order, then (with --objects) tags, trees and blobs with their paths.
import { UsageError } from '../../core/errors.js';
import { OID_BYTES } from '../../core/oid.js';
import { otherWorktreeRefs } from '../../repository/linked-worktrees.js';
import type { Repository } from '../../repository/repository.js';
import { boundReadsForWalk, COMMIT_WALK_WINDOW_BYTES, ObjectWalk, WALK_WINDOW_BYTES, type CommitWorkerStart } from '../../walk/object-walk.js';
import { TreeReadAhead } from '../../walk/tree-read-ahead.js';
import { CommitReadAhead } from '../../walk/commit-read-ahead.js';
import { availableParallelism, loadavg } from 'node:os';
import { fatal, type CommandContext } from '../context.js';
import { Output, writeAll } from '../output.js';
import { revListWithBitmap, type BitmapTip } from '../rev-list-bitmap.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Lists commit objects in reverse chronological order',
  synopsis: ['[<options>] <commit>... [--not <commit>...]'],
  options: [
    ['--objects', 'also list the trees and blobs the commits reach, with their paths'],
    ['--[no-]object-names', 'show (or not) the paths with --objects'],
    ['--count', 'print only how many objects would be listed'],
    ['--all', 'every ref, and HEAD'],
    ['--branches', 'every ref under refs/heads'],
    ['--tags', 'every ref under refs/tags'],
    ['--not', 'reverse the meaning of ^ for the revisions that follow'],
    ['-n, --max-count <n>', 'list at most <n> commits'],
    ['--use-bitmap-index', 'answer from the reachability bitmap'],
    ['--in-commit-order', 'accepted; the order is the same'],
  ],
};

export default function revList(ctx: CommandContext, args: string[]): number {
  let objects = false, count = false, names = true, maxCount = -1;
  let negate = false, useBitmap = false, allRefs = false;
  const tips: BitmapTip[] = [];
  const repo = ctx.repository();
  const walk = new ObjectWalk(repo.odb);
  walk.setShallow(repo.shallowCommits());
  const revs = repo.revs();
  let anyTip = false;
  const addRev = (spec: string, exclude: boolean) => {
    const id = revs.tryResolve(spec);
    if (!id) throw fatal(`ambiguous argument '${spec}': unknown revision or path not in the working tree.`);
    walk.add(id, spec, exclude);
    tips.push({ id, exclude });
    anyTip = true;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--objects') objects = true;
    else if (a === '--count') count = true;
    else if (a === '--no-object-names') names = false;
    else if (a === '--object-names') names = true;
    else if (a === '--not') negate = !negate;
    else if (a === '--all' || a === '--branches' || a === '--tags') { addRefs(repo, walk, a, negate, tips); anyTip = true; allRefs ||= !negate; }
    else if (a === '-n' || a === '--max-count') maxCount = parseCount(args[++i], a);
    else if (a.startsWith('--max-count=')) maxCount = parseCount(a.slice(12), '--max-count');
    else if (/^-[0-9]+$/.test(a)) maxCount = Number(a.slice(1));
    else if (a === '--use-bitmap-index') useBitmap = true;
    else if (a === '--in-commit-order') { /* same output without it */ }
    else if (a === '--') break;
    else if (a.startsWith('-')) throw new UsageError(`unrecognized argument: ${a}`);
    else if (a.includes('...')) throw fatal(`symmetric differences ('${a}') are not supported`);
    else if (a.includes('..')) {
      const [from, to] = a.split('..') as [string, string];
      addRev(from || 'HEAD', !negate);
      addRev(to || 'HEAD', negate);
    } else if (a.startsWith('^')) addRev(a.slice(1), !negate);
    else addRev(a, negate);
  }
  if (!anyTip) throw new UsageError('');
  const out = new Output();
  if (useBitmap && revListWithBitmap(repo, tips, { objects, count, maxCount }, out)) {
    out.flush();
    return 0;
  }
  let shown = 0;
  const whole = allRefs && maxCount < 0 && !tips.some(t => t.exclude);
  if (whole) walk.wholeRepository(objects);
  boundReadsForWalk(repo.odb, objects ? WALK_WINDOW_BYTES : COMMIT_WALK_WINDOW_BYTES);
  if (!objects) {
    let list = walk.commits();
    if (maxCount >= 0) list = list.subarray(0, maxCount);
    if (count) out.ascii(`${list.length}\n`);
    else for (let i = 0; i < list.length; i++) { out.hex(walk.ids.keys, list[i]! * OID_BYTES); out.byte(0x0a); }
    out.flush();
    return 0;
  }
  // With trees read ahead, or commits walked ahead, objects are visited among commits: they are
  // held until the last commit.
  const ahead = readAhead(repo, tips);
  const commitsAhead = !ahead && whole ? commitWorker(repo) : undefined;
  const held: Buffer[] = [];
  let objectsOut = ahead || commitsAhead ? new Output(1, held) : out;
  walk.enumerate({
    commit(ids, off) {
      shown++;
      if (count) return;
      out.hex(ids, off);
      out.byte(0x0a);
    },
    commitsDone() {
      if (objectsOut === out) return;
      out.flush();
      objectsOut.flush();
      for (const chunk of held) writeAll(1, chunk);
      objectsOut = out;
    },
    object(_type, ids, off, path, pathLength) {
      shown++;
      if (count) return;
      objectsOut.hex(ids, off);
      if (names) {
        objectsOut.byte(0x20);
        objectsOut.lineOf(path, 0, pathLength);
      }
      objectsOut.byte(0x0a);
    },
  }, maxCount, ahead, commitsAhead);
  if (count) out.ascii(`${shown}\n`);
  out.flush();
  return 0;
}

/**
 * Whether a worker thread reads trees beside the walk (see walk/tree-stream.ts): only when
 * TSGIT_TREE_WORKER=on. It reads and plans each tree and sends the entries its plan did not skip,
 * so the walk's CPU is shared between two threads rather than doubled; but since the walk skips
 * what it has seen, reading trees is four fifths of it and this thread's part too small to
 * overlap: on history and large it cost 10-25% more wall time and 15% more CPU even with most of a
 * second CPU idle (BENCHMARKS.md, issue 18). Walks with exclusions cannot use it.
 */
function readAhead(repo: Repository, tips: BitmapTip[]): TreeReadAhead | undefined {
  if (process.env.TSGIT_TREE_WORKER !== 'on' || tips.some(t => t.exclude)) return undefined;
  return new TreeReadAhead(repo.odb);
}

/**
 * Whether the commits of a walk over the whole repository are walked on a worker thread while this
 * thread lists their trees (walk/commit-read-ahead.ts), or undefined. Only when two cores look
 * idle (cores less the load average: the average lags by a minute and counts this process's own
 * threads, so two cores running one walk after another show 1-1.7), and the repository is big
 * enough for the commit walk, a quarter of such a walk, to outlast the worker's start (~40 ms,
 * about the commit walk of 10,000 objects). On the two vCPUs of the benchmark machine the two
 * threads slow each other (the worker's commit walk took 1.8 s where this thread's takes 1.05):
 * on large the wall went from 4.55 s to 4.15 but the CPU from 5.0 s to 5.75, past issue 18's
 * bound of 1.2 times git's, so it stays off there. TSGIT_COMMIT_WORKER=on or off decides instead.
 */
function commitWorker(repo: Repository): CommitWorkerStart | undefined {
  const setting = process.env.TSGIT_COMMIT_WORKER;
  if (setting === 'off') return undefined;
  if (setting !== 'on') {
    if (availableParallelism() - loadavg()[0] < 2) return undefined;
    if (repo.odb.packedObjectCount() < COMMIT_WORKER_MIN_OBJECTS) return undefined;
  }
  return (starts, shallow) => new CommitReadAhead(repo.odb, starts, shallow);
}

const COMMIT_WORKER_MIN_OBJECTS = 64 * 1024;

function parseCount(v: string | undefined, opt: string): number {
  if (v === undefined || !/^-?[0-9]+$/.test(v)) throw new UsageError(`${opt} requires a number`);
  return Number(v);
}

/**
 * --all: every ref, then HEAD, then the other work trees' HEADs (git's order); --branches and
 * --tags: those namespaces.
 */
function addRefs(repo: Repository, walk: ObjectWalk, which: string, exclude: boolean, tips: BitmapTip[]): void {
  const prefix = which === '--branches' ? 'refs/heads/' : which === '--tags' ? 'refs/tags/' : 'refs/';
  const add = (hex: string, name: string) => {
    const id = Buffer.from(hex, 'hex');
    walk.add(id, name, exclude);
    tips.push({ id, exclude });
  };
  for (const ref of repo.refs.list(prefix)) add(ref.oid, ref.name);
  if (which === '--all') {
    for (const refs of [repo.refs, ...otherWorktreeRefs(repo.commonDir, repo.gitDir)]) {
      const head = refs.resolve('HEAD');
      if (head) add(head.oid, 'HEAD');
    }
  }
}
