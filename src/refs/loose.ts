// Loose refs: one file per ref under the git directory or the common one (FileRefStore.refDir),
// holding "<hex>\n" or "ref: <target>\n" (refs/files-backend.c: files_read_raw_ref,
// parse_loose_ref_contents, loose_fill_ref_dir).
import fs from 'node:fs';
import path from 'node:path';
import { PER_WORKTREE_REF_DIRS } from '../core/common-dir.js';
import { CorruptError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';
import { checkRefFormat } from './check-ref-format.js';
import { compareRefNames } from './sort.js';
import type { RawRef } from './store.js';

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Parses a loose ref file's bytes; `file` names it in the error when they are not a ref. */
export function parseLooseRef(data: Buffer, file: string): RawRef {
  const text = data.toString('utf8').replace(/[ \t\n\r]+$/, '');
  if (text.startsWith('ref:')) {
    let i = 4;
    while (isSpace(text[i])) i++;
    return { type: 'symbolic', target: text.slice(i) };
  }
  // Anything may follow the id after a blank: FETCH_HEAD keeps more on its first line.
  const hex = text.slice(0, 40);
  if (!isHexOid(hex) || (text.length > 40 && !isSpace(text[40]))) {
    const shown = JSON.stringify(text.length > 60 ? text.slice(0, 60) + '...' : text);
    throw new CorruptError('refs', `${file}: not a valid ref file (expected 40 hex digits or 'ref: <name>'), found ${shown}`);
  }
  return { type: 'direct', oid: hex.toLowerCase() };
}

/** Reads the loose ref `name`; null when there is no file for it (missing, or a directory). */
export function readLooseRef(gitDir: string, name: string): RawRef | null {
  const file = path.join(gitDir, name);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  // Old gits made symbolic refs as symlinks; a link into refs/ still means one.
  if (st.isSymbolicLink()) {
    const link = fs.readlinkSync(file);
    if (link.startsWith('refs/') && checkRefFormat(link) === null) return { type: 'symbolic', target: link };
  }
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (e) {
    if (isMissing(e) || (e as NodeJS.ErrnoException).code === 'EISDIR') return null;
    throw e;
  }
  return parseLooseRef(data, file);
}

/**
 * Names of the loose refs under `dir` (e.g. `refs/` or `refs/heads/`), sorted. Like git, skips
 * entries starting with '.' and names ending in `.lock`; a symlink counts when it leads to a file.
 * `rootOf` gives the directory each ref directory is under (FileRefStore.refDir): in a linked
 * work tree the per-work-tree ones are in its git directory, the rest in the common one.
 */
export function listLooseRefNames(rootOf: (dir: string) => string, dir: string): string[] {
  const names: string[] = [];
  const walked = new Set<string>();
  const walk = (rel: string) => {
    if (walked.has(rel)) return;
    walked.add(rel);
    const root = rootOf(rel);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    for (const d of entries) {
      if (d.name.startsWith('.') || d.name.endsWith('.lock')) continue;
      const name = rel + d.name;
      if (d.isDirectory()) walk(name + '/');
      else if (d.isFile() || (d.isSymbolicLink() && isFileBehindLink(path.join(root, name)))) names.push(name);
    }
  };
  walk(dir);
  // The common directory's refs/ does not list a linked work tree's own ref directories (git's
  // add_per_worktree_entries_to_dir): walk those below `dir` that live elsewhere.
  for (const d of PER_WORKTREE_REF_DIRS) {
    if (d.startsWith(dir) && rootOf(d) !== rootOf(dir)) walk(d);
  }
  return names.sort(compareRefNames);
}

function isFileBehindLink(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * After deleting `name` under `root`, removes the directories it leaves empty, keeping the first
 * two levels (refs/heads) as git's try_remove_empty_parents does.
 */
export function removeEmptyParents(root: string, name: string): void {
  const parts = name.split('/');
  for (let i = parts.length - 1; i > 2; i--) {
    try {
      fs.rmdirSync(path.join(root, ...parts.slice(0, i)));
    } catch {
      return;
    }
  }
}

/**
 * Whether a file system error means there is no file at the path. ENAMETOOLONG too: ref names have
 * no length limit, and a revision is tried as refs/<word>, refs/heads/<word>..., so a 300-character
 * word names a ref that cannot exist (git's ref lookup finds none; an update fails at its lock).
 */
export function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG';
}
