// Commands that change a repository, against git: each case copies one template directory twice,
// runs the same command lines with git in one copy and tsgit in the other (one batch process),
// and compares exit status, stdout and stderr (of git's usage text the first line, with tsgit for
// git), then every file and directory of the copies but the object stores and hooks, byte for
// byte: config, refs, packed-refs, reflogs, FETCH_HEAD.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tsgitBatch } from './cli-batch.js';
import { GIT_ENV, git, repositorySnapshot, rmrf, TSGIT } from './helpers.js';

export interface CopiesCase {
  name: string;
  /** git command lines run in both copies before the steps (setting the scene). */
  prepare?: string[][];
  /** Files written into both copies first, relative to where the commands run. */
  files?: Record<string, string>;
  /** The command lines compared, without `git` or `tsgit`. */
  steps: string[][];
  env?: NodeJS.ProcessEnv;
}

interface Result { status: number | null; stdout: string; stderr: string }

let counter = 0;

/** Output as compared: the copy's path as @TOP@, tsgit's usage lines as git's, and of a usage error the first line only. */
function shown(top: string, status: number | null, b: Buffer): string {
  const text = b.toString('latin1').replaceAll(top, '@TOP@').replace(/^(usage:|   or:) tsgit /gm, '$1 git ');
  return status === 129 ? text.split('\n')[0]! : text;
}

/**
 * Runs a case with git and with tsgit in two copies of `template` made under `root`, the commands
 * in the copies' folder `cwd` (their top by default), and compares everything; returns the tsgit
 * copy's path (kept until `root` goes).
 */
export function compareInCopies(template: string, root: string, c: CopiesCase, cwd = ''): string {
  const n = counter++;
  const a = path.join(root, `${n}-git`), b = path.join(root, `${n}-tsgit`);
  const env = { ...GIT_ENV, ...c.env };
  for (const top of [a, b]) {
    fs.cpSync(template, top, { recursive: true });
    const at = path.join(top, cwd);
    for (const [file, content] of Object.entries(c.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(at, file)), { recursive: true });
      fs.writeFileSync(path.join(at, file), content);
    }
    for (const args of c.prepare ?? []) git(at, args, undefined, env);
  }
  const theirs: Result[] = c.steps.map((s) => {
    const r = spawnSync('git', s, { cwd: path.join(a, cwd), env });
    return { status: r.status, stdout: shown(a, r.status, r.stdout), stderr: shown(a, r.status, r.stderr) };
  });
  const ours: Result[] = tsgitBatch(c.steps.map((s) => ({ cwd: path.join(b, cwd), args: s })), env)
    .map((r) => ({ status: r.status, stdout: shown(b, r.status, r.stdout), stderr: shown(b, r.status, r.stderr) }));
  c.steps.forEach((s, i) => assert.deepEqual(ours[i], theirs[i], `${c.name}: ${s.join(' ')}`));
  assert.deepEqual(repositorySnapshot(b, '@TOP@', true), repositorySnapshot(a, '@TOP@', true), `${c.name}: the files`);
  rmrf(a);
  return b;
}

/**
 * A template for compareInCopies made under `root`: bare repositories `bares` (up.git by
 * default), each a clone of a source with one commit on main, a branch side and whatever the
 * `source` command lines add; and work, a clone of the first naming it by a relative path.
 */
export function clonedTemplate(root: string, o: { bares?: string[]; source?: string[][] } = {}): { template: string; work: string } {
  const template = path.join(root, 'template');
  const source = path.join(root, 'source');
  git(root, ['init', '-q', '-b', 'main', source]);
  git(source, ['commit', '-q', '--allow-empty', '-m', 'one']);
  git(source, ['branch', 'side']);
  for (const args of o.source ?? []) git(source, args);
  const bares = o.bares ?? ['up.git'];
  for (const name of bares) git(root, ['clone', '-q', '--bare', source, path.join(template, name)]);
  git(template, ['clone', '-q', bares[0]!, 'work']);
  const work = path.join(template, 'work');
  git(work, ['config', 'remote.origin.url', `../${bares[0]!}`]);
  return { template, work };
}

/**
 * Runs one command line with git or tsgit (spawned) at `cwd` in a fresh copy of `template`, for
 * cases whose output the two tools word differently in part; returns the copy's top too.
 */
export function runInCopy(template: string, root: string, tool: 'git' | 'tsgit', cwd: string, args: string[],
  env: NodeJS.ProcessEnv = GIT_ENV): { top: string; status: number | null; stdout: string; stderr: string } {
  const top = fs.mkdtempSync(path.join(root, `${tool}-`));
  fs.cpSync(template, top, { recursive: true });
  const cmd = tool === 'git' ? ['git'] : [process.execPath, TSGIT];
  const r = spawnSync(cmd[0]!, [...cmd.slice(1), ...args], { cwd: path.join(top, cwd), env, encoding: 'utf8' });
  return { top, status: r.status, stdout: r.stdout, stderr: r.stderr.replaceAll(top, '@TOP@') };
}
