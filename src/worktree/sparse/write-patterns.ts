// The sparse-checkout file as `git sparse-checkout` writes it (builtin/sparse-checkout.c): in cone
// mode, "/*" and "!/*\/", then each parent directory of the cone ("/a/" and "!/a/*\/"), then each
// directory taken whole ("/a/b/"), both lists sorted, escaped, and without what a directory
// already taken whole covers; otherwise the patterns one per line, as parsed. Paths here are
// strings of one char per byte.
import { GitError } from '../../core/errors.js';
import { isGlobSpecial, PATTERN_MUSTBEDIR, PATTERN_NEGATIVE, type PathPattern } from '../path-pattern.js';
import { TOP_LEVEL_TEXT } from './settings.js';

const bytesOf = (s: string): Buffer => Buffer.from(s, 'latin1');
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Whether a directory above `dir` ("/a/b") is in `set` (git's hashmap_contains_parent). */
export function hasAncestorIn(set: ReadonlySet<string>, dir: string): boolean {
  for (let s = dir.lastIndexOf('/'); s > 0; s = dir.lastIndexOf('/', s - 1)) if (set.has(dir.slice(0, s))) return true;
  return false;
}

/** The directories of a cone as the command builds them: each taken whole, and all their parents. */
export class ConePatterns {
  readonly recursive = new Set<string>();
  readonly parent = new Set<string>();

  /** git's insert_recursive_pattern: `dir` as "/a/b". */
  add(dir: string): void {
    this.recursive.add(dir);
    for (let s = dir.lastIndexOf('/'); s > 0; s = dir.lastIndexOf('/', s - 1)) this.parent.add(dir.slice(0, s));
  }

  /** git's write_cone_to_file. */
  fileText(): Buffer {
    const parents = [...this.parent].filter(p => !this.recursive.has(p) && !hasAncestorIn(this.recursive, p)).sort(byteOrder);
    const whole = [...this.recursive].filter(p => !hasAncestorIn(this.recursive, p)).sort(byteOrder);
    let text = TOP_LEVEL_TEXT;
    for (const p of parents) {
      const e = escaped(p);
      if (e) text += `${e}/\n!${e}/*/\n`;
    }
    for (const p of whole) text += `${escaped(p)}/\n`;
    return bytesOf(text);
  }
}

/** git's escaped_pattern: a backslash before each wildcard character. */
function escaped(p: string): string {
  let out = '';
  for (const c of p) out += isGlobSpecial(c.charCodeAt(0)) ? `\\${c}` : c;
  return out;
}

/** git's normalize_path_copy_len for a path without a drive: "." and ".." resolved, "//" collapsed; null when ".." climbs out. */
export function normalizePath(src: string): string | null {
  let i = 0;
  let dst = '';
  if (src[0] === '/') {
    dst = '/';
    i = 1;
  }
  const floor = dst.length;
  while (src[i] === '/') i++;
  for (;;) {
    if (src[i] === '.') {
      const next = src[i + 1];
      if (next === undefined) break;
      if (next === '/') {
        i += 2;
        while (src[i] === '/') i++;
        continue;
      }
      if (next === '.' && (src[i + 2] === undefined || src[i + 2] === '/')) {
        i += src[i + 2] === undefined ? 2 : 3;
        while (src[i] === '/') i++;
        // Up one: drop the last component of what is copied (it ends in '/').
        let end = dst.length - 1;
        if (end <= floor) return null;
        while (end > floor && dst[end - 1] !== '/') end--;
        dst = dst.slice(0, end);
        if (src[i - 1] !== '/' && i >= src.length) break;
        continue;
      }
    }
    const slash = src.indexOf('/', i);
    if (slash < 0) {
      dst += src.slice(i);
      break;
    }
    dst += src.slice(i, slash) + '/';
    i = slash;
    while (src[i] === '/') i++;
  }
  return dst;
}

/**
 * git's strbuf_to_cone_pattern: a directory as given ("a/b/", "/a//b") as the cone holds it
 * ("/a/b"); null for an empty one. Throws when it climbs out of the work tree.
 */
export function conePattern(line: string): string | null {
  let dir = line.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '').replace(/\/+$/, '');
  const normal = normalizePath(dir);
  if (normal === null) throw new GitError('cli', 'fatal', `could not normalize path ${Buffer.from(dir, 'latin1').toString('utf8')}`);
  dir = normal;
  if (!dir) return null;
  return dir[0] === '/' ? dir : `/${dir}`;
}

/** git's write_patterns_to_file: each pattern as parsed, '!' and '/' put back. */
export function patternsText(patterns: readonly PathPattern[]): Buffer {
  const parts: Buffer[] = [];
  for (const p of patterns) {
    parts.push(Buffer.from(p.flags & PATTERN_NEGATIVE ? '!' : ''), Buffer.from(p.pattern),
      Buffer.from(p.flags & PATTERN_MUSTBEDIR ? '/\n' : '\n'));
  }
  return Buffer.concat(parts);
}
