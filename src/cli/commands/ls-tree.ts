// tsgit ls-tree [-r] [-t] [-d] [-z] [-l | --name-only | --object-only | --format=<format>]
// [--abbrev[=<n>]] [--full-name] [--full-tree] <tree-ish> [--] [<path>...]: git's listing, with its
// path quoting, option conflicts and messages. As git's (and /bin/ls), paths are relative to the
// current directory below the top of the work tree, which with no path is the one listed, and names
// are printed relative to it (`../x` included) unless --full-name; --full-tree makes it the top.
// Paths match literally (no wildcards), as git's ls-tree does: an entry is listed when it is a
// path given, lies below one, or is a directory above one (which ls-tree then goes into). Of git's
// pathspec magic only :(top) (:/) and :(literal) are taken, as git's ls-tree takes them.
import { OptionError, UsageError } from '../../core/errors.js';
import { OID_BYTES, toHex } from '../../core/oid.js';
import { formatMode, TreeCursor } from '../../object/tree.js';
import { OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { fatal, type CommandContext } from '../context.js';
import { Output, writeAll } from '../output.js';
import { quoteCStyle } from '../quote.js';
import { formatHelp, type CommandHelp } from '../help.js';
import { abbreviator, defaultAbbrev, MINIMUM_ABBREV } from '../abbrev.js';
import { cwdPrefix, interesting, pathspec, refuseEmptyPathspec, relativeName } from '../pathspec.js';
import { parseOptions } from '../parse-options.js';

type Mode = 'default' | 'long' | 'name-only' | 'name-status' | 'object-only';

interface Options {
  recursive: boolean; showTrees: boolean; onlyTrees: boolean; nul: boolean; quotePath: boolean;
  fullName: boolean; fullTree: boolean;
  mode: Mode;
  /** --format's text as bytes (null: none, or one of the built-in formats, which `mode` stands for). */
  format: Buffer | null;
  /** Object names: 40 hex digits (0), or git's unique abbreviation of at least this many. */
  abbrev: (oid: Uint8Array, off: number) => string;
  /** Blob sizes, for -l and %(objectsize). */
  odb: ObjectStore | null;
  /** The paths, from the top of the work tree, as latin1 strings (one char a byte, as tree names). */
  specs: string[];
  /** The current directory below the top ('' or ending in '/'), which printed names are relative to; '' for none. */
  chomp: string;
}

export const help: CommandHelp = {
  summary: 'List the contents of a tree object',
  synopsis: ['[<options>] <tree-ish> [<path>...]'],
  options: [
    ['-d', 'only show trees'],
    ['-r', 'recurse into subtrees'],
    ['-t', 'show trees when recursing'],
    ['-z', 'terminate entries with NUL byte'],
    ['-l, --long', 'include object size'],
    ['--name-only', 'list only filenames'],
    ['--name-status', 'list only filenames'],
    ['--object-only', 'list only objects'],
    ['--full-name', 'use full path names'],
    ['--full-tree', 'list entire tree; not just current directory (implies --full-name)'],
    ['--format <format>', 'format to use for the output'],
    ['--abbrev[=<n>]', 'use <n> digits to display object names'],
  ],
};

/** The modes git's cmdmode options set, and the long name git's conflict message gives each. */
const MODES: Record<string, [Mode, string]> = {
  '-l': ['long', '--long'], '--long': ['long', '--long'], '--name-only': ['name-only', '--name-only'],
  '--name-status': ['name-status', '--name-status'], '--object-only': ['object-only', '--object-only'],
};

/** ls-tree.c's built-in formats: --format with one of these is that mode (with -z, unquoted names). */
const BUILTIN_FORMATS: Record<string, Mode> = {
  '%(objectmode) %(objecttype) %(objectname)%x09%(path)': 'default',
  '%(objectmode) %(objecttype) %(objectname) %(objectsize:padded)%x09%(path)': 'long',
  '%(path)': 'name-only',
  '%(objectname)': 'object-only',
};

/** `--abbrev=<n>`: git's strtol_i (leading white space, a sign), at least MINIMUM_ABBREV unless 0, at most 40. */
function abbrevLength(text: string): number {
  if (!/^[ \t\n\v\f\r]*[+-]?[0-9]+$/.test(text)) throw new OptionError("option `abbrev' expects a numerical value");
  const n = Number.parseInt(text.trim(), 10);
  return n !== 0 && n < MINIMUM_ABBREV ? MINIMUM_ABBREV : Math.min(n, 40);
}

export default function lsTree(ctx: CommandContext, args: string[]): number {
  let recursive = false, showTrees = false, onlyTrees = false, nul = false, fullName = false, fullTree = false;
  let mode = null as [Mode, string] | null;
  let format = null as string | null;
  /** -1: core.abbrev (git's DEFAULT_ABBREV); 0: full names. */
  let abbrev = 0;
  const rest = parseOptions(args, (name, value, inline) => {
    if (name === '--format') format = value();
    else if (name === '--abbrev' && inline !== undefined) abbrev = abbrevLength(inline);
    // The others take no "=value": with one, they are not options of ls-tree.
    else if (inline !== undefined) return false;
    else if (name === '-r') recursive = true;
    else if (name === '-t') showTrees = true;
    else if (name === '-d') onlyTrees = true;
    else if (name === '-z') nul = true;
    else if (name === '--full-name') fullName = true;
    else if (name === '--full-tree') fullTree = true;
    else if (name === '--abbrev') abbrev = -1;
    else if (name === '--no-abbrev') abbrev = 0;
    else if (MODES[name]) {
      const [m, long] = MODES[name];
      if (mode && mode[0] !== m) {
        const what = name.startsWith('--') ? `option \`${name.slice(2)}'` : `switch \`${name.slice(1)}'`;
        throw new OptionError(`${what} is incompatible with ${mode[1]}`);
      }
      mode = [m, long];
    } else return false;
    return true;
  }, { missingValue: (name) => new OptionError(`option \`${name.slice(2)}' requires a value`) });
  if (format !== null && mode) {
    writeAll(2, Buffer.from(`fatal: --format can't be combined with other format-altering options\n\n${formatHelp('ls-tree', help)}\n`));
    return 129;
  }
  if (rest.length < 1) throw new UsageError('');
  const repo = ctx.repository();
  const opts: Options = {
    recursive, showTrees, onlyTrees, nul, quotePath: true, fullName, fullTree,
    mode: mode?.[0] === 'name-status' ? 'name-only' : mode?.[0] ?? 'default',
    format: null, abbrev: (oid, off) => toHex(oid, off), odb: repo.odb, specs: [], chomp: '',
  };
  if (format !== null) {
    const builtin = BUILTIN_FORMATS[format];
    if (builtin) opts.mode = builtin;
    else opts.format = Buffer.from(format, 'utf8');
  }
  // -d -r shows the trees it goes into, as git's (-d alone shows only the trees of one level).
  if (opts.onlyTrees && opts.recursive) opts.showTrees = true;
  const prefix = opts.fullTree ? '' : cwdPrefix(ctx.cwd, repo.workTree);
  opts.chomp = opts.fullName ? '' : prefix;
  const revs = repo.revs();
  const id = revs.tryResolve(rest[0]!);
  if (!id) throw fatal(`Not a valid object name ${rest[0]}`);
  const paths = rest.slice(1);
  refuseEmptyPathspec(paths);
  // git's PATHSPEC_PREFER_CWD: no path is the current directory.
  opts.specs = paths.length === 0 ? (prefix ? [prefix] : []) : paths.map((p) => pathspec(p, prefix, repo.workTree ?? repo.gitDir));
  // Read as git reads them: the repository's config, the global and system files, and -c.
  const config = repo.loadConfig(ctx.env);
  opts.quotePath = config.getBool('core', null, 'quotepath') ?? true;
  if (abbrev !== 0) opts.abbrev = abbreviator(repo.odb, abbrev === -1 ? defaultAbbrev(config.get('core', null, 'abbrev'), repo.odb) : abbrev);
  const tree = revs.peel(id, OBJ_TREE, rest[0]!);
  const out = new Output();
  list(repo.odb, tree, '', opts, out);
  out.flush();
  return 0;
}

/** ls-tree.c show_recursive: -r, or a path inside tree `full` (`full/` too: its entries). */
function goesInto(full: string, opts: Options): boolean {
  if (opts.recursive) return true;
  return opts.specs.some((m) => m.length > full.length && m.startsWith(full) && m[full.length] === '/');
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
      const name = Buffer.from(relativeName(full, opts.chomp), 'latin1');
      const oidHex = (): string => opts.abbrev(data, cur.oidOffset);
      const type = isTree ? 'tree' : isGitlink ? 'commit' : 'blob';
      const size = (padded: boolean): string => {
        let text = '-';
        if (!isTree && !isGitlink) text = String(opts.odb?.info(data, cur.oidOffset)?.size ?? 'BAD');
        return padded ? text.padStart(7) : text;
      };
      if (opts.format) {
        out.bytes(expand(opts.format, (atom) => {
          switch (atom) {
            case '(objectmode)': return formatMode(cur.mode);
            case '(objecttype)': return type;
            case '(objectname)': return oidHex();
            case '(objectsize:padded)': return size(true);
            case '(objectsize)': return size(false);
            case '(path)': return quoteCStyle(name, opts.quotePath);
            default: return null;
          }
        }));
      } else if (opts.mode === 'object-only') {
        out.ascii(oidHex());
      } else {
        if (opts.mode === 'default') out.ascii(`${formatMode(cur.mode)} ${type} ${oidHex()}\t`);
        else if (opts.mode === 'long') out.ascii(`${formatMode(cur.mode)} ${type} ${oidHex()} ${size(true)}\t`);
        out.bytes(opts.nul ? name : quoteCStyle(name, opts.quotePath));
      }
      out.byte(opts.nul ? 0 : 0x0a);
    }
    if (recurse) {
      const child = data.subarray(cur.oidOffset, cur.oidOffset + OID_BYTES);
      list(odb, child, `${full}/`, opts, out);
    }
  }
}

/**
 * git's strbuf_expand with ls-tree's expand_show_tree: `%%`, `%n`, `%xNN`, and `%(atom)`, which
 * `atom` expands (null: not one). A bad element is fatal, worded as git's.
 */
function expand(format: Buffer, atom: (name: string) => string | Uint8Array | null): Uint8Array {
  const parts: Uint8Array[] = [];
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf(0x25, i);
    if (pct < 0) { parts.push(format.subarray(i)); break; }
    parts.push(format.subarray(i, pct));
    const start = pct + 1;
    const c = format[start];
    if (c === 0x25) { parts.push(Buffer.from('%')); i = start + 1; continue; }
    if (c === 0x6e) { parts.push(Buffer.from('\n')); i = start + 1; continue; }
    if (c === 0x78) {
      const hex = format.subarray(start + 1, start + 3).toString('latin1');
      if (/^[0-9a-fA-F]{2}$/.test(hex)) { parts.push(Buffer.from([Number.parseInt(hex, 16)])); i = start + 3; continue; }
    }
    // The element as git's die() prints it: the rest of the format (up to a NUL byte).
    const rest = format.subarray(start);
    const nul = rest.indexOf(0);
    const element = (nul < 0 ? rest : rest.subarray(0, nul)).toString('utf8');
    if (c !== 0x28) throw fatal(`bad ls-tree format: element '${element}' does not start with '('`);
    const end = format.indexOf(0x29, start + 1);
    if (end < 0) throw fatal(`bad ls-tree format: element '${element}' does not end in ')'`);
    const name = format.subarray(start, end + 1).toString('utf8');
    const value = atom(name);
    if (value === null) throw fatal(`bad ls-tree format: %${name}`);
    parts.push(typeof value === 'string' ? Buffer.from(value, 'latin1') : value);
    i = end + 1;
  }
  return Buffer.concat(parts);
}
