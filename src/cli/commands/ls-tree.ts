// tsgit ls-tree [-r] [-t] [-d] [-z] [--name-only] [--full-name] [--full-tree] <tree-ish> [<path>...]:
// git's listing, with its path quoting. As git's (and /bin/ls), paths are relative to the current
// directory below the top of the work tree, which with no path is the one listed, and names are
// printed relative to it (`../x` included) unless --full-name; --full-tree makes it the top.
// Paths match literally (no wildcards), as git's ls-tree does: an entry is listed when it is a
// path given, lies below one, or is a directory above one (which ls-tree then goes into).
import path from 'node:path';
import fs from 'node:fs';
import { UsageError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { formatMode, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import { quoteCStyle } from '../quote.js';
import type { CommandHelp } from '../help.js';

interface Options {
  recursive: boolean; showTrees: boolean; onlyTrees: boolean; nameOnly: boolean; nul: boolean; quotePath: boolean;
  fullName: boolean; fullTree: boolean;
  /** The paths, from the top of the work tree, as latin1 strings (one char a byte, as tree names). */
  specs: string[];
  /** The current directory below the top ('' or ending in '/'), which printed names are relative to; '' for none. */
  chomp: string;
}

export const help: CommandHelp = {
  summary: 'List the contents of a tree object',
  synopsis: ['[-r] [-t] [-d] [-z] [--name-only] [--full-name] [--full-tree] <tree-ish> [<path>...]'],
  options: [
    ['-d', 'only show trees'],
    ['-r', 'recurse into subtrees'],
    ['-t', 'show trees when recursing'],
    ['-z', 'terminate entries with NUL byte'],
    ['--name-only', 'list only filenames'],
    ['--name-status', 'list only filenames'],
    ['--full-name', 'use full path names'],
    ['--full-tree', 'list entire tree; not just current directory (implies --full-name)'],
  ],
};

export default function lsTree(ctx: CommandContext, args: string[]): number {
  const opts: Options = {
    recursive: false, showTrees: false, onlyTrees: false, nameOnly: false, nul: false, quotePath: true,
    fullName: false, fullTree: false, specs: [], chomp: '',
  };
  const rest: string[] = [];
  for (const a of args) {
    if (a === '-r') opts.recursive = true;
    else if (a === '-t') opts.showTrees = true;
    else if (a === '-d') opts.onlyTrees = true;
    else if (a === '-z') opts.nul = true;
    else if (a === '--name-only' || a === '--name-status') opts.nameOnly = true;
    else if (a === '--full-name') opts.fullName = true;
    else if (a === '--full-tree') opts.fullTree = true;
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else rest.push(a);
  }
  if (rest.length < 1) throw new UsageError('');
  // -d -r shows the trees it goes into, as git's (-d alone shows only the trees of one level).
  if (opts.onlyTrees && opts.recursive) opts.showTrees = true;
  const repo = ctx.repository();
  const prefix = opts.fullTree ? '' : cwdPrefix(ctx.cwd, repo.workTree);
  opts.chomp = opts.fullName ? '' : prefix;
  const paths = rest.slice(1);
  // git's PATHSPEC_PREFER_CWD: no path is the current directory.
  opts.specs = paths.length === 0 ? (prefix ? [prefix] : []) : paths.map((p) => specFor(p, prefix, repo.workTree ?? repo.gitDir));
  opts.quotePath = repo.config.getBool('core', null, 'quotepath') ?? true;
  const revs = repo.revs();
  const id = revs.tryResolve(rest[0]!);
  if (!id) throw fatal(`Not a valid object name ${rest[0]}`);
  const tree = revs.peel(id, OBJ_TREE, rest[0]!);
  const out = new Output();
  list(repo.odb, tree, '', opts, out);
  out.flush();
  return 0;
}

/** git's prefix: where the command runs below the top of the work tree, '' or ending in '/'. */
function cwdPrefix(cwd: string, workTree: string | null): string {
  if (!workTree) return '';
  const rel = path.relative(realpath(workTree), realpath(cwd));
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return '';
  return Buffer.from(`${rel.split(path.sep).join('/')}/`, 'utf8').toString('latin1');
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * git's prefix_path: `arg` from the top (an absolute one must lie in the work tree), `.` and `..`
 * resolved, repeated slashes made one; a trailing slash stays (it asks for a directory's entries).
 */
function specFor(arg: string, prefix: string, top: string): string {
  let p = Buffer.from(arg, 'utf8').toString('latin1');
  if (path.isAbsolute(arg)) {
    const rel = path.relative(realpath(top), path.resolve(arg));
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw outside(arg, top);
    p = Buffer.from(rel.split(path.sep).join('/') + (rel && arg.endsWith('/') ? '/' : ''), 'utf8').toString('latin1');
  } else {
    p = prefix + p;
  }
  const out: string[] = [];
  const parts = p.split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw outside(arg, top);
      out.pop();
    } else {
      out.push(last ? part : `${part}/`);
    }
  }
  return out.join('');
}

function outside(arg: string, top: string): Error {
  return fatal(`${arg}: '${arg}' is outside repository at '${realpath(top)}'`);
}

/**
 * tree-walk.c tree_entry_interesting for literal pathspecs: `full` (a `dir`-ectory's entry, `dir`
 * '' or ending in '/') is wanted when a path lies at or above it, or names it or something in it.
 */
function interesting(dir: string, full: string, isTree: boolean, isGitlink: boolean, specs: readonly string[]): boolean {
  if (specs.length === 0) return true;
  return specs.some((m) => {
    if (m === '') return true;
    // The entry's directory is at or below the path (`a` and `a/` both take in `a/x`).
    if (dir.length >= m.length) return dir.startsWith(m) && (m.endsWith('/') || dir[m.length] === '/');
    if (!m.startsWith(full)) return false;
    if (m.length === full.length) return true;
    // A longer path names something inside the entry: only a tree has insides (a submodule
    // may be named with one trailing slash).
    return m[full.length] === '/' && (isTree || (isGitlink && m.length === full.length + 1));
  });
}

/** ls-tree.c show_recursive: -r, or a path inside tree `full` (`full/` too: its entries). */
function goesInto(full: string, opts: Options): boolean {
  if (opts.recursive) return true;
  return opts.specs.some((m) => m.length > full.length && m.startsWith(full) && m[full.length] === '/');
}

/** git's relative_path(full, chomp): `x` inside it, `./` for itself, `../x` or `../` above it. */
function relativeName(full: string, chomp: string): string {
  if (!chomp) return full;
  // `full` never ends in '/' and `chomp` does, so this is a path strictly inside it.
  if (full.startsWith(chomp)) return full.slice(chomp.length);
  let common = 0;
  let rest: string;
  if (chomp.startsWith(`${full}/`)) {
    // A directory at or above chomp: nothing of its name is left to print.
    common = full.length + 1;
    rest = '';
  } else {
    for (let i = 0; i < chomp.length && chomp[i] === full[i]; i++) if (chomp[i] === '/') common = i + 1;
    rest = full.slice(common);
  }
  const ups = chomp.slice(common).split('/').length - 1;
  return ups === 0 && rest === '' ? './' : '../'.repeat(ups) + rest;
}

function list(odb: ObjectStore, tree: Uint8Array, dir: string, opts: Options, out: Output): void {
  const data = odb.mustRead(tree, 0, OBJ_TREE).data;
  const cur = new TreeCursor(data, 0, data.length, `tree ${toHex(tree)}`);
  while (cur.next()) {
    const isTree = cur.isTree();
    const isGitlink = cur.isGitlink();
    const full = dir + Buffer.from(data.buffer, data.byteOffset + cur.nameStart, cur.nameEnd - cur.nameStart).toString('latin1');
    if (!interesting(dir, full, isTree, isGitlink, opts.specs)) continue;
    // ls-tree.c show_tree_common: a blob is left out by -d, a tree gone into is shown only with
    // -t, and a submodule is always shown (-d too) and never gone into.
    const recurse = isTree && goesInto(full, opts);
    const show = isTree ? !recurse || opts.showTrees : isGitlink || !opts.onlyTrees;
    if (show) {
      if (!opts.nameOnly) {
        const type = isTree ? 'tree' : isGitlink ? 'commit' : 'blob';
        out.ascii(`${formatMode(cur.mode)} ${type} ${toHex(data, cur.oidOffset)}\t`);
      }
      const name = Buffer.from(relativeName(full, opts.chomp), 'latin1');
      out.bytes(opts.nul ? name : quoteCStyle(name, opts.quotePath));
      out.byte(opts.nul ? 0 : 0x0a);
    }
    if (recurse) {
      const child = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      list(odb, child, `${full}/`, opts, out);
    }
  }
}
