// Comparing a work tree and index that tsgit wrote with git's: every file's kind, mode bits and
// content, the index bytes less the per-machine stat fields, and whether git trusts the stat data.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GIT_ENV, git } from './helpers.js';

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
    const len = b.readUInt16BE(pos + 60) & 0xfff;
    b.fill(0, pos, pos + 24);
    b.fill(0, pos + 28, pos + 36);
    pos += (62 + len + 8) & ~7;
  }
  return b.subarray(0, b.length - 20);
}

/**
 * The paths whose stat data in the index does not match the file, as git judges by stat alone.
 * A copy of the index with its mtime in the future makes no entry racy, so diff-files compares
 * stat data only and reads no file; the real index is left as it was.
 */
export function statDirty(wt: string): string {
  const copy = path.join(wt, '.git', 'index-stat-check');
  fs.copyFileSync(path.join(wt, '.git', 'index'), copy);
  const future = new Date(Date.now() + 60_000);
  fs.utimesSync(copy, future, future);
  try {
    return git(wt, ['diff-files', '--name-only'], undefined, { ...GIT_ENV, GIT_INDEX_FILE: copy });
  } finally {
    fs.rmSync(copy);
  }
}
