// Pathspecs as git's pathspec.c and dir.c match_pathspec read them, for the paths a submodule
// command is given and for submodule.active: a path matches an item equal to it or naming a
// directory above it; an item with wildcards matches by wildmatch without WM_PATHNAME (so `*`
// crosses `/`), after its literal prefix; `:(exclude)` / `:!` / `:^` items take matches away (and
// alone, exclude from everything); `:/` and `:(top)` are from the top of the work tree; `:(glob)`,
// `:(literal)` and `:(icase)` change the matching. Other magic is refused.
import { GitError } from '../../core/errors.js';
import { WM_CASEFOLD, WM_PATHNAME, wildmatch } from '../../core/wildmatch.js';

interface Item {
  readonly match: Uint8Array;
  /** Bytes of `match` before its first wildcard (all of it for a literal item). */
  readonly literalLength: number;
  readonly exclude: boolean;
  readonly glob: boolean;
  readonly icase: boolean;
  /** The item as given, for "did not match" errors. */
  readonly original: string;
}

export interface Pathspec {
  readonly items: readonly Item[];
  /** Whether `path` (from the top of the work tree) is selected; `matched[i]` is set for each positive item it matches. */
  matches(path: string, matched?: boolean[]): boolean;
}

const isWildcard = (c: number) => c === 0x2a || c === 0x3f || c === 0x5b || c === 0x5c;

/** Items given relative to `prefix` (the current directory under the top, '' or ending in '/'). */
export function parsePathspec(args: readonly string[], prefix = ''): Pathspec {
  const items = args.map((a) => parseItem(a, prefix));
  return {
    items,
    matches(path, matched) {
      if (items.length === 0) return true;
      const name = Buffer.from(path, 'utf8');
      let positive = false, anyPositive = false;
      items.forEach((item, i) => {
        if (item.exclude) return;
        anyPositive = true;
        if (!matchItem(item, name)) return;
        positive = true;
        if (matched) matched[i] = true;
      });
      // Only exclusions: they take away from everything.
      if (!anyPositive) positive = true;
      if (!positive) return false;
      return !items.some((item) => item.exclude && matchItem(item, name));
    },
  };
}

function parseItem(arg: string, prefix: string): Item {
  let rest = arg;
  let exclude = false, glob = false, literal = false, icase = false, top = false;
  if (rest.startsWith(':(')) {
    const close = rest.indexOf(')');
    if (close < 0) throw new GitError('client', 'bad-pathspec', `Missing ')' at the end of pathspec magic in '${arg}'`);
    for (const word of rest.slice(2, close).split(',')) {
      if (word === 'exclude') exclude = true;
      else if (word === 'glob') glob = true;
      else if (word === 'literal') literal = true;
      else if (word === 'icase') icase = true;
      else if (word === 'top') top = true;
      else if (word !== '') throw new GitError('client', 'bad-pathspec', `Invalid pathspec magic '${word}' in '${arg}'`);
    }
    rest = rest.slice(close + 1);
  } else if (rest.startsWith(':')) {
    let i = 1;
    for (; i < rest.length; i++) {
      const c = rest[i]!;
      if (c === '!' || c === '^') exclude = true;
      else if (c === '/') top = true;
      else if (c === ':') { i++; break; }
      else break;
    }
    rest = rest.slice(i);
  }
  if (glob && literal) throw new GitError('client', 'bad-pathspec', `'literal' and 'glob' are incompatible in '${arg}'`);
  const full = normalize(top ? rest : prefix + rest, arg);
  const match = Buffer.from(full, 'utf8');
  let literalLength = match.length;
  if (!literal) {
    const w = match.findIndex(isWildcard);
    if (w >= 0) literalLength = w;
  }
  return { match, literalLength, exclude, glob, icase, original: arg };
}

/** git's prefix_path: `.` and `..` resolved, repeated and trailing slashes dropped; never above the top. */
function normalize(p: string, arg: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new GitError('client', 'bad-pathspec', `'${arg}' is outside repository`);
      out.pop();
    } else {
      out.push(part);
    }
  }
  return out.join('/');
}

/** dir.c match_pathspec_item: the path itself, a directory above it, or a wildcard match. */
function matchItem(item: Item, name: Uint8Array): boolean {
  const m = item.match;
  if (m.length === 0) return true;
  const fold = item.icase;
  if (m.length <= name.length && sameBytes(m, name, m.length, fold)) {
    if (m.length === name.length || name[m.length] === 0x2f) return true;
  }
  if (item.literalLength === m.length) return false;
  if (!sameBytes(m, name, item.literalLength, fold)) return false;
  return wildmatch(m, item.literalLength, m.length, name, item.literalLength, name.length,
    (item.glob ? WM_PATHNAME : 0) | (fold ? WM_CASEFOLD : 0));
}

function sameBytes(a: Uint8Array, b: Uint8Array, n: number, fold: boolean): boolean {
  if (b.length < n) return false;
  for (let i = 0; i < n; i++) {
    const x = a[i]!, y = b[i]!;
    if (x === y) continue;
    if (!fold) return false;
    const lx = x >= 0x41 && x <= 0x5a ? x + 32 : x;
    const ly = y >= 0x41 && y <= 0x5a ? y + 32 : y;
    if (lx !== ly) return false;
  }
  return true;
}
