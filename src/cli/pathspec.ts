// Pathspecs as git's parse_pathspec reads them for a command that takes paths relative to the
// current directory (ls-tree, checkout): the prefix below the top of the work tree, `.`/`..`
// resolved, :(top) (`:/`) and :(literal) taken and any other magic refused with git's messages;
// tree entries matched as tree_entry_interesting matches them (ls-tree, which takes every path
// literally), index entries as match_pathspec does (checkout: a path, a leading directory, or a
// wildcard pattern), and names printed relative to the current directory.
import fs from 'node:fs';
import path from 'node:path';
import { GLOB_SPECIAL, wildmatch } from '../core/wildmatch.js';
import { fatal } from './context.js';

/** pathspec.c's magic: the long form's names and the short form's mnemonics, in git's table order. */
const MAGIC = ['top', 'literal', 'glob', 'icase', 'exclude', 'attr'] as const;
type Magic = typeof MAGIC[number];
/** ctype.c's GIT_PATHSPEC_MAGIC characters (the short form reads these, `^` too). */
const SHORT_MAGIC = '!"#%&\',-/:;<=>@_`~';

/** A parsed pathspec: what it matches from the top (latin1, a byte a char), and whether literally. */
export interface PathspecItem {
  match: string;
  literal: boolean;
}

/**
 * One path as git's parse_pathspec reads it for ls-tree: `:(top)`/`:/` from the top as given,
 * `:(literal)` (paths match literally anyway), any other magic refused as git refuses it.
 */
export function pathspec(elem: string, prefix: string, top: string): string {
  return pathspecItem(elem, prefix, top).match;
}

/** pathspec(), saying too whether `:(literal)` makes its wildcards plain characters. */
export function pathspecItem(elem: string, prefix: string, top: string): PathspecItem {
  const magic = new Set<Magic>();
  let body = elem;
  if (elem.startsWith(':') && elem[1] === '(') {
    let pos = 2;
    while (pos < elem.length && elem[pos] !== ')') {
      let len = 0;
      while (pos + len < elem.length && elem[pos + len] !== ',' && elem[pos + len] !== ')') len++;
      const next = elem[pos + len] === ',' ? pos + len + 1 : pos + len;
      const word = elem.slice(pos, pos + len);
      pos = next;
      if (!len || word.startsWith('prefix:')) continue;
      if (word.startsWith('attr:')) { magic.add('attr'); continue; }
      if (!(MAGIC as readonly string[]).includes(word)) throw fatal(`Invalid pathspec magic '${word}' in '${elem}'`);
      magic.add(word as Magic);
    }
    if (elem[pos] !== ')') throw fatal(`Missing ')' at the end of pathspec magic in '${elem}'`);
    body = elem.slice(pos + 1);
  } else if (elem.startsWith(':')) {
    let pos = 1;
    for (; pos < elem.length && elem[pos] !== ':'; pos++) {
      const ch = elem[pos]!;
      if (ch === '^') { magic.add('exclude'); continue; }
      if (!SHORT_MAGIC.includes(ch)) break;
      if (ch === '/') magic.add('top');
      else if (ch === '!') magic.add('exclude');
      else throw fatal(`Unimplemented pathspec magic '${ch}' in '${elem}'`);
    }
    if (elem[pos] === ':') pos++;
    body = elem.slice(pos);
  }
  if (magic.has('literal') && magic.has('glob')) throw fatal(`${elem}: 'literal' and 'glob' are incompatible`);
  // :(top) takes the path as it is: no prefix, nothing resolved (`..` then matches nothing).
  const spec = magic.has('top') ? Buffer.from(body, 'utf8').toString('latin1') : specFor(body, prefix, top, elem);
  const refused = MAGIC.filter((m) => m !== 'top' && m !== 'literal' && magic.has(m));
  if (refused.length) {
    const names = refused.map((m) => (m === 'exclude' ? `'exclude' (mnemonic: '!')` : `'${m}'`)).join(', ');
    throw fatal(`${elem}: pathspec magic not supported by this command: ${names}`);
  }
  return { match: spec, literal: magic.has('literal') };
}

/**
 * dir.c match_pathspec_item for an index entry's path (`name`, latin1): the path itself, a
 * leading directory of it, or, for a pattern, a match of the whole path by fnmatch rules (`*`
 * crossing `/`), its literal lead compared first as git does.
 */
export function matchesPathspec(item: PathspecItem, name: string): boolean {
  const m = item.match;
  if (m === '') return true;
  if (name.startsWith(m) && (name.length === m.length || m.endsWith('/') || name[m.length] === '/')) return true;
  const plain = item.literal ? -1 : m.search(GLOB_SPECIAL);
  if (plain < 0 || !name.startsWith(m.slice(0, plain))) return false;
  const pat = Buffer.from(m, 'latin1'), text = Buffer.from(name, 'latin1');
  return wildmatch(pat, plain, pat.length, text, plain, text.length, 0);
}

/** parse_pathspec's refusal of an empty path, which would match everything. */
export function refuseEmptyPathspec(paths: readonly string[]): void {
  if (paths.some((p) => p === '')) throw fatal('empty string is not a valid pathspec. please use . instead if you meant to match all paths');
}

/** git's prefix: where the command runs below the top of the work tree, '' or ending in '/'. */
export function cwdPrefix(cwd: string, workTree: string | null): string {
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
function specFor(arg: string, prefix: string, top: string, elem: string): string {
  let p = Buffer.from(arg, 'utf8').toString('latin1');
  if (path.isAbsolute(arg)) {
    const rel = path.relative(realpath(top), path.resolve(arg));
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw outside(elem, arg, top);
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
      if (out.length === 0) throw outside(elem, arg, top);
      out.pop();
    } else {
      out.push(last ? part : `${part}/`);
    }
  }
  return out.join('');
}

function outside(elem: string, arg: string, top: string): Error {
  return fatal(`${elem}: '${arg}' is outside repository at '${realpath(top)}'`);
}

/**
 * tree-walk.c tree_entry_interesting for literal pathspecs: `full` (a `dir`-ectory's entry, `dir`
 * '' or ending in '/') is wanted when a path lies at or above it, or names it or something in it.
 */
export function interesting(dir: string, full: string, isTree: boolean, isGitlink: boolean, specs: readonly string[]): boolean {
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

/** git's relative_path(full, chomp): `x` inside it, `./` for itself, `../x` or `../` above it. */
export function relativeName(full: string, chomp: string): string {
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
