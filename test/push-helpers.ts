// Shared scaffolding of the push tests: pushing with git-core to tsgit's receive-pack and to git's
// side by side (Twins), reading refs, fsck, and work repositories with a few commits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, GIT_ENV, TSGIT } from './helpers.js';

export const RECEIVE_PACK = `${process.execPath} ${TSGIT} receive-pack`;

export interface PushOutcome {
  status: number | null;
  /** --porcelain output with the URL replaced by "<url>". */
  porcelain: string;
  stderr: string;
}

export function push(work: string, url: string, args: string[], tsgit: boolean, env: NodeJS.ProcessEnv = GIT_ENV): PushOutcome {
  const r = spawnSync('git', ['push', '--porcelain', ...(tsgit ? [`--receive-pack=${RECEIVE_PACK}`] : []), ...args.map((a) => (a === '<url>' ? url : a))],
    { cwd: work, env, encoding: 'utf8' });
  return { status: r.status, porcelain: r.stdout.split(url).join('<url>'), stderr: r.stderr };
}

export function refsOf(repo: string): string {
  return git(repo, ['for-each-ref', '--format=%(objectname) %(refname)']);
}

export function assertFsck(repo: string): void {
  const r = spawnSync('git', ['fsck', '--full', '--no-dangling'], { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
  assert.equal(r.status, 0, `git fsck --full failed in ${repo}:\n${r.stdout}${r.stderr}`);
}

/** Two bare repositories with the same history, one served by tsgit, one by git. */
export class Twins {
  readonly ts: string;
  readonly git: string;
  constructor(readonly root: string, source: string) {
    this.ts = path.join(root, 'ts.git');
    this.git = path.join(root, 'git.git');
    for (const dir of [this.ts, this.git]) git(root, ['clone', '-q', '--bare', source, dir]);
  }

  config(...args: string[]): void {
    for (const dir of [this.ts, this.git]) git(dir, ['config', ...args]);
  }

  hook(name: string, script: string): void {
    for (const dir of [this.ts, this.git]) {
      fs.writeFileSync(path.join(dir, 'hooks', name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    }
  }

  /** Pushes to both; asserts they agree; returns tsgit's outcome. */
  push(work: string, args: string[], env?: NodeJS.ProcessEnv): PushOutcome {
    const ts = push(work, this.ts, args, true, env);
    const theirs = push(work, this.git, args, false, env);
    assert.equal(ts.porcelain, theirs.porcelain, `porcelain differs for git push ${args.join(' ')}\ntsgit stderr:\n${ts.stderr}\ngit stderr:\n${theirs.stderr}`);
    assert.equal(ts.status, theirs.status, `exit status differs for git push ${args.join(' ')}: ${ts.stderr}`);
    assert.equal(refsOf(this.ts), refsOf(this.git), 'refs differ after the push');
    assertFsck(this.ts);
    return ts;
  }
}

/** A work repository with `n` commits on main; returns its path. */
export function workRepo(root: string, name: string, n: number): string {
  const dir = path.join(root, name);
  git(root, ['init', '-q', '-b', 'main', dir]);
  commits(dir, n, 'base');
  return dir;
}

/**
 * `n` commits on the current branch of work tree `dir`, each adding d/<tag>/f<i>.txt and editing
 * shared.txt; returns the last one. The first is made by `git add -A` and `git commit` (taking in
 * whatever else the work tree holds); the rest, when there are many, by one `git fast-import` with
 * the same author, committer, dates and messages as `git commit` gives them (the same commits: two
 * processes each cost more than the push tests that make 150 of them), and `git reset` then brings
 * the index to the work tree, which holds the files of the last.
 */
export function commits(dir: string, n: number, tag: string): string {
  const write = (i: number): { file: string; body: string; shared: string } => {
    const file = `d/${tag}/f${i}.txt`, body = `${tag} ${i}\n`.repeat(20 + i);
    const shared = Array.from({ length: 200 }, (_, k) => `line ${k} ${k % 17 === i % 17 ? tag : ''}\n`).join('');
    fs.mkdirSync(path.join(dir, 'd', tag), { recursive: true });
    fs.writeFileSync(path.join(dir, file), body);
    fs.writeFileSync(path.join(dir, 'shared.txt'), shared);
    return { file, body, shared };
  };
  const viaGit = n < 8 ? n : 1;
  for (let i = 0; i < viaGit; i++) {
    write(i);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', `${tag} ${i}`]);
  }
  if (viaGit < n) {
    const branch = git(dir, ['symbolic-ref', 'HEAD']).trim();
    const ident = (who: 'AUTHOR' | 'COMMITTER') => `${GIT_ENV[`GIT_${who}_NAME`]} <${GIT_ENV[`GIT_${who}_EMAIL`]}> ${GIT_ENV[`GIT_${who}_DATE`]}`;
    const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
    const parts: string[] = [];
    for (let i = viaGit; i < n; i++) {
      const { file, body, shared } = write(i);
      parts.push(`commit ${branch}\nauthor ${ident('AUTHOR')}\ncommitter ${ident('COMMITTER')}\n${data(`${tag} ${i}\n`)}`,
        i === viaGit ? `from ${branch}^0\n` : '', `M 100644 inline ${file}\n${data(body)}M 100644 inline shared.txt\n${data(shared)}`);
    }
    git(dir, ['fast-import', '--quiet'], parts.join('') + '\n');
    git(dir, ['reset', '-q']);
  }
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

/** The push quarantines (objects/tmp_objdir-*) in a repository, sorted. */
export function quarantines(gitDir: string): string[] {
  return fs.readdirSync(path.join(gitDir, 'objects')).filter((n) => n.startsWith('tmp_objdir')).sort();
}

/** Two identical non-bare targets (`ts` for tsgit receive-pack, `git` for git's), each configured by `setup`, and a clone to push from. */
export interface NonBareTargets { ts: string; git: string; work: string }

export function nonBareTargets(root: string, name: string, setup: string[][]): NonBareTargets {
  const source = workRepo(root, `${name}-source`, 2);
  git(source, ['branch', 'side']);
  const ts = path.join(root, `${name}-ts`), theirs = path.join(root, `${name}-git`), work = path.join(root, `${name}-work`);
  for (const dir of [ts, theirs]) {
    git(root, ['clone', '-q', source, dir]);
    for (const args of setup) git(dir, args);
  }
  git(root, ['clone', '-q', source, work]);
  return { ts, git: theirs, work };
}

/** The same push to both targets: the same report, exit status, and branches and tags after; tsgit's outcome. */
export function pushBoth(t: NonBareTargets, args: string[]): PushOutcome {
  const ours = push(t.work, t.ts, args, true), theirs = push(t.work, t.git, args, false);
  assert.equal(ours.porcelain, theirs.porcelain, `git push ${args.join(' ')}\ntsgit:\n${ours.stderr}\ngit:\n${theirs.stderr}`);
  assert.equal(ours.status, theirs.status);
  const refs = (dir: string) => git(dir, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags']);
  assert.equal(refs(t.ts), refs(t.git));
  return ours;
}
