// tsgit config: git 2.39's `git config` (builtin/config.c): get, list, set, add, replace, unset,
// rename and remove sections and edit, in the files git reads (system, global, the repository's,
// config.worktree, the command line's) or the one a location option names, with git's output,
// exit statuses (1 not found or an invalid name, 2 a name without section or key, 5 nothing to
// set or several values where one was meant, 6 an invalid pattern, 255 no lock) and file bytes.
import { UsageError } from '../../core/errors.js';
import { VALUE_TYPES, type ValueType } from '../config-typed.js';
import { ConfigSetup, type Locations } from '../config-setup.js';
import { getAction, listAction, urlmatchAction, colorAction, colorboolAction, type Display } from '../config-get.js';
import { setAction, sectionAction, editAction, type SetMode } from '../config-set.js';
import { fatal, type CommandContext } from '../context.js';
import { formatHelp, type CommandHelp } from '../help.js';
import { writeAll } from '../output.js';
import { parseOptions } from '../parse-options.js';

export const help: CommandHelp = {
  summary: 'Get and set repository or global options',
  synopsis: ['[<options>]'],
  options: [
    ['', 'Config file location'],
    ['--global', 'use global config file'],
    ['--system', 'use system config file'],
    ['--local', 'use repository config file'],
    ['--worktree', 'use per-worktree config file'],
    ['-f, --file <file>', 'use given config file'],
    ['--blob <blob-id>', 'read config from given blob object'],
    ['', 'Action'],
    ['--get', 'get value: name [value-pattern]'],
    ['--get-all', 'get all values: key [value-pattern]'],
    ['--get-regexp', 'get values for regexp: name-regex [value-pattern]'],
    ['--get-urlmatch', 'get value specific for the URL: section[.var] URL'],
    ['--replace-all', 'replace all matching variables: name value [value-pattern]'],
    ['--add', 'add a new variable: name value'],
    ['--unset', 'remove a variable: name [value-pattern]'],
    ['--unset-all', 'remove all matches: name [value-pattern]'],
    ['--rename-section', 'rename section: old-name new-name'],
    ['--remove-section', 'remove a section: name'],
    ['-l, --list', 'list all'],
    ['--fixed-value', "use string equality when comparing values to 'value-pattern'"],
    ['-e, --edit', 'open an editor'],
    ['--get-color', 'find the color configured: slot [default]'],
    ['--get-colorbool', 'find the color setting: slot [stdout-is-tty]'],
    ['', 'Type'],
    ['-t, --type <type>', 'value is given this type'],
    ['--bool', 'value is "true" or "false"'],
    ['--int', 'value is decimal number'],
    ['--bool-or-int', 'value is --bool or --int'],
    ['--bool-or-str', 'value is --bool or string'],
    ['--path', 'value is a path (file or directory name)'],
    ['--expiry-date', 'value is an expiry date'],
    ['', 'Other'],
    ['-z, --null', 'terminate values with NUL byte'],
    ['--name-only', 'show variable names only'],
    ['--includes', 'respect include directives on lookup'],
    ['--show-origin', 'show origin of config (file, standard input, blob, command line)'],
    ['--show-scope', 'show scope of config (worktree, local, global, system, command)'],
    ['--default <value>', 'with --get, use default value when missing entry'],
  ],
};

const ACTIONS = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'replace-all', 'add', 'unset', 'unset-all',
  'rename-section', 'remove-section', 'list', 'edit', 'get-color', 'get-colorbool'] as const;
type Action = typeof ACTIONS[number] | 'set' | 'set-all';

/** The long options in git's order, for unique abbreviations ("--get-regex", "--glob"). */
const LONG = ['global', 'system', 'local', 'worktree', 'file', 'blob', 'get', 'get-all', 'get-regexp', 'get-urlmatch',
  'replace-all', 'add', 'unset', 'unset-all', 'rename-section', 'remove-section', 'list', 'fixed-value', 'edit',
  'get-color', 'get-colorbool', 'type', 'bool', 'int', 'bool-or-int', 'bool-or-str', 'path', 'expiry-date', 'null',
  'name-only', 'includes', 'show-origin', 'show-scope', 'default'];
const BOOLEANS = new Set(['global', 'system', 'local', 'worktree', 'fixed-value', 'null', 'name-only', 'includes', 'show-origin', 'show-scope']);

/** An ambiguous abbreviation, which git's parse-options follows with the usage on stdout. */
class AmbiguousOption extends Error {}

export default function config(ctx: CommandContext, args: string[]): number {
  try {
    return run(ctx, args);
  } catch (e) {
    if (!(e instanceof AmbiguousOption)) throw e;
    writeAll(2, Buffer.from(`error: ${e.message}\n`));
    writeAll(1, Buffer.from(`${formatHelp('config', help)}\n`));
    return 129;
  }
}

function run(ctx: CommandContext, args: string[]): number {
  const loc: Locations = { global: false, system: false, local: false, worktree: false, file: ctx.env.GIT_CONFIG ?? null, blob: null };
  const actions = new Set<Action>();
  const flags = new Set<string>();
  let includes: boolean | null = null;
  let type: ValueType | null = null;
  let defaultValue: string | null = null;
  const setType = (t: ValueType | null) => {
    if (t !== null && type !== null && type !== t) throw new UsageError('only one type at a time');
    type = t;
  };
  const rest = parseOptions(args, (given, value) => {
    const name = longName(given);
    const negated = name.startsWith('no-') ? name.slice(3) : null;
    if (negated !== null && BOOLEANS.has(negated)) {
      if (negated === 'includes') includes = false;
      else if (negated === 'global' || negated === 'system' || negated === 'local' || negated === 'worktree') loc[negated] = false;
      else flags.delete(negated);
      return true;
    }
    if (negated !== null && (ACTIONS as readonly string[]).includes(negated)) {
      actions.delete(negated as Action);
      return true;
    }
    switch (name) {
      case 'global': case 'system': case 'local': case 'worktree': loc[name] = true; break;
      case '-f': case 'file': loc.file = value(); break;
      case 'no-file': loc.file = null; break;
      case 'blob': loc.blob = value(); break;
      case '-l': actions.add('list'); break;
      case '-e': actions.add('edit'); break;
      case '-z': flags.add('null'); break;
      case 'includes': includes = true; break;
      case '-t': case 'type': {
        const t = value();
        if (!(VALUE_TYPES as readonly string[]).includes(t)) throw fatal(`unrecognized --type argument, ${t}`);
        setType(t as ValueType);
        break;
      }
      case 'no-type': type = null; break;
      case 'default': defaultValue = value(); break;
      case 'no-default': defaultValue = null; break;
      default:
        if ((ACTIONS as readonly string[]).includes(name)) actions.add(name as Action);
        else if ((VALUE_TYPES as readonly string[]).includes(name) && name !== 'color') setType(name as ValueType);
        else if (BOOLEANS.has(name)) flags.add(name);
        else return false;
    }
    return true;
  }, { stopAtNonOption: true });

  const locations = [loc.global, loc.system, loc.local, loc.worktree, loc.file !== null, loc.blob !== null].filter(Boolean).length;
  if (locations > 1) throw new UsageError('only one config file at a time');
  const setup = ConfigSetup.open(ctx);
  try {
    return act(ctx, setup, loc, actions, flags, rest, { type, defaultValue, includes });
  } catch (e) {
    throw setup.renamed(e);
  }
}

/** What the options ask for, checked as git checks them, then done. */
function act(ctx: CommandContext, setup: ConfigSetup, loc: Locations, actions: Set<Action>, flags: Set<string>, rest: string[],
  { type, defaultValue, includes }: { type: ValueType | null; defaultValue: string | null; includes: boolean | null }): number {
  const source = setup.source(loc);
  if ((actions.has('get-color') || actions.has('get-colorbool')) && type !== null) {
    throw new UsageError('--get-color and variable type are incoherent');
  }
  if (actions.size > 1) throw new UsageError('only one action at a time');
  let action: Action | undefined = [...actions][0];
  if (action === undefined) {
    action = ({ 1: 'get', 2: 'set', 3: 'set-all' } as const)[rest.length as 1 | 2 | 3];
    if (action === undefined) throw new UsageError('');
  }
  const has = (flag: string) => flags.has(flag);
  if (has('name-only') && action !== 'list' && action !== 'get-regexp') {
    throw new UsageError('--name-only is only applicable to --list or --get-regexp');
  }
  if (has('show-origin') && !['get', 'get-all', 'get-regexp', 'list'].includes(action)) {
    throw new UsageError('--show-origin is only applicable to --get, --get-all, --get-regexp, and --list');
  }
  if (defaultValue !== null && action !== 'get') throw new UsageError('--default is only applicable to --get');
  if (has('fixed-value')) {
    const patternAt = action === 'set-all' || action === 'replace-all' ? 2
      : ['get', 'get-all', 'get-regexp', 'unset', 'unset-all'].includes(action) ? 1 : Infinity;
    if (rest.length <= patternAt) throw new UsageError("--fixed-value only applies with 'value-pattern'");
  }
  const display: Display = {
    nul: has('null'), nameOnly: has('name-only'), showOrigin: has('show-origin'), showScope: has('show-scope'),
    type, defaultValue, fixedValue: has('fixed-value'),
  };
  const read = { setup, source, loc, includes: includes ?? source?.kind !== 'file', display, env: ctx.env };
  switch (action) {
    case 'list':
      argc(rest, 0, 0);
      return listAction(read);
    case 'get': case 'get-all': case 'get-regexp':
      argc(rest, 1, 2);
      return getAction(read, action, rest[0]!, rest[1] ?? null);
    case 'get-urlmatch':
      argc(rest, 2, 2);
      return urlmatchAction(read, rest[0]!, rest[1]!);
    case 'get-color':
      argc(rest, 1, 2);
      return colorAction(read, rest[0]!, rest[1] ?? null);
    case 'get-colorbool':
      argc(rest, 1, 2);
      return colorboolAction(read, rest[0]!, rest[1] ?? null);
    case 'edit':
      argc(rest, 0, 0);
      return editAction(read);
  }
  const write = { ...read, target: writeTarget(setup, source, loc) };
  const modes: Record<string, [SetMode, number, number]> = {
    set: ['set', 2, 2], 'set-all': ['set-all', 2, 3], add: ['add', 2, 2], 'replace-all': ['replace-all', 2, 3],
    unset: ['unset', 1, 2], 'unset-all': ['unset-all', 1, 2],
  };
  if (action === 'rename-section' || action === 'remove-section') {
    const n = action === 'rename-section' ? 2 : 1;
    argc(rest, n, n);
    return sectionAction(write, rest[0]!, action === 'rename-section' ? rest[1]! : null);
  }
  const [mode, min, max] = modes[action]!;
  argc(rest, min, max);
  return setAction(write, mode, rest);
}

/** A long option as typed, without its dashes, its unique abbreviation expanded; a short one as it is. */
function longName(given: string): string {
  if (!given.startsWith('--')) return given;
  const name = given.slice(2);
  if (LONG.includes(name) || name.startsWith('no-')) return name;
  const candidates = LONG.filter((o) => o.startsWith(name));
  if (candidates.length > 1) throw new AmbiguousOption(`ambiguous option: ${name} (could be --${candidates[0]} or --${candidates[1]})`);
  return candidates[0] ?? name;
}

/** git's check_argc. */
function argc(rest: string[], min: number, max: number): void {
  if (rest.length >= min && rest.length <= max) return;
  throw new UsageError(min === max ? `wrong number of arguments, should be ${min}`
    : `wrong number of arguments, should be from ${min} to ${max}`);
}

/** The file a write goes to; git refuses standard input and blobs (check_write). */
function writeTarget(setup: ConfigSetup, source: ReturnType<ConfigSetup['source']>, loc: Locations): { path: string; shown: string } {
  if (source === null) {
    const file = setup.localFile();
    return { path: file, shown: setup.shown(file) };
  }
  if (source.kind === 'stdin') throw fatal('writing to stdin is not supported');
  if (source.kind === 'blob') throw fatal('writing config blobs is not supported');
  return { path: source.path, shown: setup.shownSource(source, loc) };
}
