// Sparse checkouts against git's, shared by the sparse tests: two clones of the same repository,
// the same preparation in each (patterns, local changes), then one command run by tsgit in one and
// by git in the other. Exit status, stderr, the work trees (byte for byte), the indexes (raw bytes
// less stat data, so skip-worktree bits, versions and extensions count) and what git says of
// each (`ls-files -t`, `status --porcelain`) must be the same.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git, tmpDir } from './helpers.js';
import { indexWithoutStat, scratch, snapshot, statDirty } from './checkout-oracle.js';

/** Writes `files` (path -> content) under `dir`, making directories. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [p, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), data);
  }
}

/**
 * A repository with branches A and B: files kept, changed, removed and added between them in
 * directories `in`, `out` (with attributes), `d/x/y` (for cone parents) and at the top. The
 * caller removes it.
 */
export function branchesRepo(): string {
  const dir = tmpDir('tsgit-sparse-src-');
  git(dir, ['init', '-q', '-b', 'A', '.']);
  const a: Record<string, string> = {};
  for (const d of ['in', 'out', 'd', 'd/x', 'd/x/y', 'd/z']) {
    for (const f of ['keep', 'chg', 'gone']) a[`${d}/${f}.txt`] = `${d}/${f} A\n`;
  }
  a['top.txt'] = 'top A\n';
  // Read only when `out` is inside the patterns (and fetched only then in a partial clone).
  a['out/.gitattributes'] = 'chg.txt eol=crlf\n';
  a['top.md'] = 'top md A\n';
  writeFiles(dir, a);
  git(dir, ['add', '.']);
  git(dir, ['commit', '-q', '-m', 'A']);
  git(dir, ['checkout', '-q', '-b', 'B']);
  const b: Record<string, string> = { 'top.txt': 'top B\n' };
  for (const d of ['in', 'out', 'd', 'd/x', 'd/x/y', 'd/z']) {
    b[`${d}/chg.txt`] = `${d}/chg B\n`;
    b[`${d}/new.txt`] = `${d}/new B\n`;
    fs.rmSync(path.join(dir, d, 'gone.txt'));
  }
  b['fresh/only.txt'] = 'fresh B\n';
  writeFiles(dir, b);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'B']);
  git(dir, ['checkout', '-q', 'A']);
  return dir;
}

export interface Run {
  dir: string;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs git or tsgit in `dir`. */
export function runTool(tool: 'tsgit' | 'git', dir: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV, input?: string): Run {
  const bin = tool === 'git' ? ['git'] : [process.execPath, path.resolve('bin', 'tsgit')];
  const r = spawnSync(bin[0]!, [...bin.slice(1), ...args], { cwd: dir, env, input });
  return { dir, status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

export interface SideOptions {
  /** What `git clone` gets before the source (default: -q). */
  clone?: string[];
  /** Run in each clone before the command. */
  prepare?: (dir: string) => void;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Where the command runs, relative to the clone. */
  cwd?: string;
}

/** Clones `src` twice, prepares both, runs `args` with tsgit in one and git in the other. */
export function sideBySide(src: string, args: string[], options: SideOptions = {}): { ours: Run; theirs: Run } {
  const env = options.env ?? GIT_ENV;
  const run = (tool: 'tsgit' | 'git'): Run => {
    const dir = scratch(`tsgit-sparse-${tool}-`);
    git(dir, ['clone', ...options.clone ?? ['-q'], src, '.'], undefined, env);
    options.prepare?.(dir);
    const r = runTool(tool, path.join(dir, options.cwd ?? '.'), args, env, options.input);
    return { ...r, dir };
  };
  return { ours: run('tsgit'), theirs: run('git') };
}

/** The index bytes less stat data, or null when there is no index. */
function indexOf(dir: string): Buffer | null {
  const file = path.join(dir, '.git', 'index');
  return fs.existsSync(file) ? indexWithoutStat(file) : null;
}

/** The files of the repository a sparse-checkout command writes, as bytes (null: missing). */
function sparseFiles(dir: string): (Buffer | null)[] {
  return ['config', 'config.worktree', 'info/sparse-checkout'].map(f => {
    const file = path.join(dir, '.git', f);
    return fs.existsSync(file) ? fs.readFileSync(file) : null;
  });
}

/** Asserts that tsgit's run left everything as git's did, the config as bytes. */
export function assertSameOutcome(ours: Run, theirs: Run, env: NodeJS.ProcessEnv = GIT_ENV): void {
  assert.equal(ours.stderr, theirs.stderr);
  assert.equal(ours.stdout, theirs.stdout);
  assert.equal(ours.status, theirs.status);
  assert.deepEqual(sparseFiles(ours.dir).map(String), sparseFiles(theirs.dir).map(String));
  assert.deepEqual(snapshot(ours.dir), snapshot(theirs.dir));
  execFileSync('diff', ['-r', '--no-dereference', '-x', '.git', ours.dir, theirs.dir]);
  assert.deepEqual(indexOf(ours.dir), indexOf(theirs.dir));
  // git's view of the stat data the command recorded, before `status` refreshes it. (After a
  // refusal it is the preparation's, where a file made again may get back its old inode.)
  if (ours.status === 0 && indexOf(ours.dir)) assert.equal(statDirty(ours.dir, env), statDirty(theirs.dir, env));
  for (const args of [['ls-files', '-s', '-t'], ['status', '--porcelain']]) {
    assert.equal(git(ours.dir, args, undefined, env), git(theirs.dir, args, undefined, env), args.join(' '));
  }
}
