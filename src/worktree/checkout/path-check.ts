// The checkout-time verdict on tree entries, before anything is written: every name through the
// shared validators (object/path-names.ts: `.git` in all its spellings, `.`, `..`, empty names,
// '/', NUL, and `.gitmodules`-like symlinks), modes, tree order and duplicates. A refusal names
// the full path and the rule (git's fsck message id).
import { GitError } from '../../core/errors.js';
import { componentProblem, type PathProblem } from '../../object/path-names.js';
import { MODE_BLOB, MODE_EXEC, MODE_GITLINK, MODE_SYMLINK, MODE_TREE } from '../../object/tree.js';

const DESCRIPTIONS: Record<PathProblem, string> = {
  emptyName: 'empty file name',
  nulInName: 'NUL byte in a file name',
  fullPathname: "'/' inside a file name",
  hasDot: "'.' as a file name",
  hasDotdot: "'..' as a file name",
  hasDotgit: "'.git' (or a name some filesystem reads as '.git')",
  gitmodulesSymlink: '.gitmodules as a symbolic link',
  gitattributesSymlink: '.gitattributes as a symbolic link',
  gitignoreSymlink: '.gitignore as a symbolic link',
  mailmapSymlink: '.mailmap as a symbolic link',
};

/**
 * Bytes of a path for an error message: printable ASCII as is, anything else as \xNN. Planning a
 * checkout names every path it converts (for the errors it may raise), so a path with nothing to
 * escape is decoded in one call rather than a character at a time.
 */
export function displayPath(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  if (PLAIN.test(text)) return text;
  let s = '';
  for (const b of bytes) s += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return s;
}

/** Printable ASCII without a backslash. */
const PLAIN = /^[\x20-\x5b\x5d-\x7e]*$/;

export function unsafePath(path: Uint8Array, rule: string, why: string): GitError {
  return new GitError('worktree', 'unsafe-path', `refusing to check out '${displayPath(path)}': ${why} (${rule})`);
}

/** Throws when a tree entry's name may not reach the disk; `dirPath` (its directory) is for the message. */
export function checkComponent(buf: Uint8Array, start: number, end: number, mode: number, dirPath: Uint8Array): void {
  const problem = componentProblem(buf, mode, start, end);
  if (!problem) return;
  const name = buf.subarray(start, end);
  throw unsafePath(dirPath.length ? Buffer.concat([dirPath, Buffer.from('/'), name]) : Buffer.from(name), problem, DESCRIPTIONS[problem]);
}

/**
 * The mode the index records for a tree entry's mode, or -1 for a mode no filesystem object has.
 * 100664 (written by very old gits) reads as 100644, as in git.
 */
export function canonicalMode(mode: number): number {
  switch (mode) {
    case MODE_BLOB: case MODE_EXEC: case MODE_SYMLINK: case MODE_GITLINK: case MODE_TREE:
      return mode;
    case 0o100664:
      return MODE_BLOB;
    default:
      return -1;
  }
}

/**
 * git's tree order: bytes, with a tree's name compared as if it ended in '/'. Returns <0, 0 or >0
 * for entry a (name buf[as..ae), tree if aTree) against entry b.
 */
export function compareTreeOrder(buf: Uint8Array, as: number, ae: number, aTree: boolean,
  bs: number, be: number, bTree: boolean): number {
  const al = ae - as, bl = be - bs;
  const n = Math.min(al, bl);
  for (let i = 0; i < n; i++) {
    const d = buf[as + i]! - buf[bs + i]!;
    if (d) return d;
  }
  const ac = al > n ? buf[as + n]! : aTree ? 0x2f : 0;
  const bc = bl > n ? buf[bs + n]! : bTree ? 0x2f : 0;
  return ac - bc;
}
