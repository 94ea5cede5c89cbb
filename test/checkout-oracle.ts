// Checkout against git's checkout of the same commit, shared by the checkout tests: the work trees
// must be identical byte for byte (`diff -r --no-dereference`, kinds, permission bits, link
// targets), git must find the work tree clean from the index's stat data alone, and the index must
// equal git's apart from stat data (raw bytes and `git ls-files -s --eol`).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git, rmrf, tmpDir, tsgit } from './helpers.js';

/** Every directory a test makes, removed after it whatever its outcome (`afterEach(removeScratch)`). */
const made: string[] = [];
export function scratch(prefix?: string): string {
  const dir = tmpDir(prefix);
  made.push(dir);
  return dir;
}
export function removeScratch(): void {
  for (const dir of made.splice(0)) rmrf(dir);
}

export type FileSpec = { mode: string; data: string | Buffer; path: string } | { mode: '160000'; oid: string; path: string };

/** A repository on branch main with one commit holding `files` (paths may use C-style quoting). */
export function repoWith(files: FileSpec[]): string {
  const dir = scratch('tsgit-checkout-src-');
  git(dir, ['init', '-q', '-b', 'main', '.']);
  git(dir, ['fast-import', '--quiet'], fastImport('refs/heads/main', files, null));
  return dir;
}

/** A fast-import stream committing `files` on `ref` (after `from`, replacing nothing else). */
export function fastImport(ref: string, files: FileSpec[], from: string | null): Buffer {
  const parts: Buffer[] = [Buffer.from(`commit ${ref}\ncommitter C O Mitter <c@example.com> 1700000000 +0000\ndata 2\nm\n${from ? `from ${from}\n` : ''}`)];
  for (const f of files) {
    if ('oid' in f) {
      parts.push(Buffer.from(`M 160000 ${f.oid} ${f.path}\n`));
      continue;
    }
    const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
    parts.push(Buffer.from(`M ${f.mode} inline ${f.path}\ndata ${data.length}\n`), data, Buffer.from('\n'));
  }
  parts.push(Buffer.from('\n'));
  return Buffer.concat(parts);
}

export function cloneNoCheckout(src: string, config: string[] = [], env: NodeJS.ProcessEnv = GIT_ENV): string {
  const dir = scratch('tsgit-checkout-wt-');
  git(dir, ['clone', '-q', '-n', ...config.flatMap(c => ['-c', c]), src, '.'], undefined, env);
  return dir;
}

/** Every path under `root` except its .git: kind, permission bits, and content or link target. */
export function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: Buffer, rel: string): void => {
    for (const name of fs.readdirSync(dir, { encoding: 'buffer' })) {
      const r = rel + name.toString('latin1');
      if (r === '.git') continue;
      const p = Buffer.concat([dir, Buffer.from('/'), name]);
      const st = fs.lstatSync(p);
      const perm = (st.mode & 0o777).toString(8);
      if (st.isSymbolicLink()) out.push(`${r} link ${fs.readlinkSync(p, { encoding: 'buffer' }).toString('hex')}`);
      else if (st.isDirectory()) { out.push(`${r} dir ${perm}`); walk(p, r + '/'); }
      else out.push(`${r} file ${perm} ${crypto.createHash('sha1').update(fs.readFileSync(p)).digest('hex')}`);
    }
  };
  walk(Buffer.from(root), '');
  return out.sort();
}

/** Index bytes with the per-machine stat fields (times, dev, ino, uid, gid) zeroed. */
export function indexWithoutStat(file: string): Buffer {
  const b = Buffer.from(fs.readFileSync(file));
  const n = b.readUInt32BE(8);
  let pos = 12;
  for (let i = 0; i < n; i++) {
    const flags = b.readUInt16BE(pos + 60);
    const len = flags & 0xfff;
    b.fill(0, pos, pos + 24);
    b.fill(0, pos + 28, pos + 36);
    // Version 3 entries with CE_EXTENDED carry two more bytes of flags.
    pos += (62 + (flags & 0x4000 ? 2 : 0) + len + 8) & ~7;
  }
  return b.subarray(0, b.length - 20);
}

/**
 * `git diff-files --name-only` against a copy of the index whose mtime is set to `when`: in the
 * future no entry is racy, so git judges by stat data alone and reads no file; in the past every
 * entry is racy, so git reads every file back through its conversions. The real index is left.
 */
function diffFilesWithIndexAt(wt: string, when: Date, env: NodeJS.ProcessEnv): string {
  const copy = path.join(wt, '.git', 'index-stat-check');
  fs.copyFileSync(path.join(wt, '.git', 'index'), copy);
  fs.utimesSync(copy, when, when);
  try {
    return git(wt, ['diff-files', '--name-only'], undefined, { ...env, GIT_INDEX_FILE: copy });
  } finally {
    fs.rmSync(copy);
  }
}

/** The paths whose stat data in the index does not match the file, as git judges by stat alone. */
export function statDirty(wt: string, env: NodeJS.ProcessEnv = GIT_ENV): string {
  return diffFilesWithIndexAt(wt, new Date(Date.now() + 60_000), env);
}

/**
 * The paths git finds modified when it reads them back (CRLF committed in a text file, an
 * expanded $Id$, content a working-tree-encoding does not round-trip): for these `git status`
 * depends on timing, for git's own checkout too (only a racy entry is read back).
 */
export function contentDirty(wt: string, env: NodeJS.ProcessEnv = GIT_ENV): string[] {
  return diffFilesWithIndexAt(wt, new Date(1000), env).split('\n').filter(Boolean);
}

/** `git status --porcelain` without the files in `unstable`. */
export function status(wt: string, unstable: string[], env: NodeJS.ProcessEnv = GIT_ENV): string {
  return git(wt, ['status', '--porcelain'], undefined, env).split('\n').filter(l => !unstable.includes(l.slice(3))).join('\n');
}

export interface Compared {
  ours: string;
  theirs: string;
  /** What tsgit and git printed on stderr. */
  ourStderr: string;
  theirStderr: string;
}

export interface CompareOptions {
  env?: NodeJS.ProcessEnv;
  /**
   * Settings for tsgit's checkout only. git 2.39's parallel checkout (checkout.workers > 1) can
   * hand its workers a working-tree-encoding name from memory already reused ("failed to encode
   * ... to windows"), so tsgit's writer threads are compared with git's sequential checkout.
   */
  oursOnly?: string[];
}

/** Checkout settings for two writer threads whatever the number of entries (tsgit's, or git's parallel checkout). */
export const WRITER_THREADS = ['checkout.workers=2', 'checkout.thresholdForParallelism=1'];

/**
 * Clones `src` twice (with `config`), checks out with tsgit and with git, and compares. Files git
 * itself reads back as modified (contentDirty) are left out of the status checks; `unstable` names
 * more. Both checkouts must have succeeded.
 */
export function compareWithGit(src: string, config: string[] = [], unstable: string[] = [],
  { env = GIT_ENV, oursOnly = [] }: CompareOptions = {}): Compared {
  const ours = cloneNoCheckout(src, [...config, ...oursOnly], env);
  const theirs = cloneNoCheckout(src, config, env);
  const r = tsgit(ours, ['checkout', '-q'], undefined, env);
  assert.equal(r.status, 0, r.stderr.toString());
  const g = spawnSync('git', ['checkout', '-q'], { cwd: theirs, env });
  assert.equal(g.status, 0, g.stderr.toString());
  assert.deepEqual(snapshot(ours), snapshot(theirs));
  execFileSync('diff', ['-r', '--no-dereference', '-x', '.git', ours, theirs]);
  assert.deepEqual(indexWithoutStat(path.join(ours, '.git', 'index')), indexWithoutStat(path.join(theirs, '.git', 'index')));
  assert.equal(git(ours, ['ls-files', '-s', '--eol'], undefined, env), git(theirs, ['ls-files', '-s', '--eol'], undefined, env));
  assert.equal(statDirty(ours, env), '');
  const dirty = contentDirty(theirs, env);
  assert.deepEqual(contentDirty(ours, env), dirty);
  const skip = [...unstable, ...dirty];
  assert.equal(status(ours, skip, env), '');
  assert.equal(status(theirs, skip, env), '');
  if (!skip.length) assert.equal(git(ours, ['diff'], undefined, env), '');
  return { ours, theirs, ourStderr: r.stderr.toString(), theirStderr: g.stderr.toString() };
}
