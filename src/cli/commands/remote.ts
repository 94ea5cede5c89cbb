// tsgit remote: git 2.39's `git remote` (builtin/remote.c) but show, and update only as `fetch --all`: the
// remotes listed (-v with their URLs), add, rename, remove, set-head, set-branches, get-url and
// set-url, with git's messages, exit statuses (2 for no such remote, 3 for one that exists, 128
// fatal, 129 usage) and config bytes. Each subcommand's command line is read here; the work is in
// remote-edit.ts (one remote's settings), remote-rename.ts (rename and remove) and
// remote-prune.ts.
import { configuredRemotes } from '../../repository/remotes.js';
import { GitError, UsageError } from '../../core/errors.js';
import { fatal, type CommandContext } from '../context.js';
import { formatHelp, type CommandHelp } from '../help.js';
import { Output, writeAll, writeStderr } from '../output.js';
import { parseOptions, unknownOption } from '../parse-options.js';
import {
  addRemote, MIRROR_FETCH, MIRROR_PUSH, NoSuchRemote, remoteNamed, setBranches, setHead, setUrl, type AddOptions, type RemoteSetup,
} from '../remote-edit.js';
import { pruneRemote } from '../remote-prune.js';
import { removeRemote, renameRemote } from '../remote-rename.js';

export const help: CommandHelp = {
  summary: 'Manage set of tracked repositories',
  synopsis: [
    '[-v | --verbose]',
    'add [-t <branch>] [-m <master>] [-f] [--tags | --no-tags] [--mirror=<fetch|push>] <name> <url>',
    'rename [--[no-]progress] <old> <new>',
    'remove <name>',
    'set-head <name> (-a | --auto | -d | --delete | <branch>)',
    'prune [-n | --dry-run] <name>',
    'update [-p | --prune]',
    'set-branches [--add] <name> <branch>...',
    'get-url [--push] [--all] <name>',
    'set-url [--push] <name> <newurl> [<oldurl>]',
    'set-url --add <name> <newurl>',
    'set-url --delete <name> <url>',
  ],
  options: [['-v, --verbose', 'be verbose; must be placed before a subcommand']],
};

/** Each subcommand's usage, as git prints it after a usage error. */
const SUBCOMMANDS: Record<string, CommandHelp> = {
  add: {
    summary: '', synopsis: ['add [<options>] <name> <url>'],
    options: [
      ['-f, --fetch', 'fetch the remote branches'],
      ['--tags', 'import all tags and associated objects when fetching\n                          or do not fetch any tag at all (--no-tags)'],
      ['-t, --track <branch>', 'branch(es) to track'],
      ['-m, --master <branch>', 'master branch'],
      ['--mirror[=(push|fetch)]', 'set up remote as a mirror to push to or fetch from'],
    ],
  },
  rename: { summary: '', synopsis: ['rename [--[no-]progress] <old> <new>'], options: [['--progress', 'force progress reporting']] },
  remove: { summary: '', synopsis: ['remove <name>'], options: [] },
  'set-head': {
    summary: '', synopsis: ['set-head <name> (-a | --auto | -d | --delete | <branch>)'],
    options: [['-a, --auto', 'set refs/remotes/<name>/HEAD according to remote'], ['-d, --delete', 'delete refs/remotes/<name>/HEAD']],
  },
  'set-branches': { summary: '', synopsis: ['set-branches <name> <branch>...', 'set-branches --add <name> <branch>...'], options: [['--add', 'add branch']] },
  prune: { summary: '', synopsis: ['prune [<options>] <name>'], options: [['-n, --dry-run', 'dry run']] },
  update: { summary: '', synopsis: ['update [<options>] [<group> | <remote>]...'], options: [['-p, --prune', 'prune remotes after fetching']] },
  'get-url': {
    summary: '', synopsis: ['get-url [--push] [--all] <name>'],
    options: [['--push', 'query push URLs rather than fetch URLs'], ['--all', 'return all URLs']],
  },
  'set-url': {
    summary: '', synopsis: help.synopsis.filter((s) => s.startsWith('set-url')),
    options: [['--push', 'manipulate push URLs'], ['--add', 'add URL'], ['--delete', 'delete URLs']],
  },
};

/** A usage error of one subcommand (or of `remote` itself): git's message, then that usage. */
class SubcommandUsage extends Error {
  constructor(readonly subcommand: string | null, message = '') {
    super(message);
  }
}

export default async function remote(ctx: CommandContext, args: string[]): Promise<number> {
  try {
    return await run(ctx, args);
  } catch (e) {
    if (e instanceof HelpShown) return 129;
    if (e instanceof NoSuchRemote) {
      writeStderr(`error: ${e.message}\n`);
      return 2;
    }
    if (!(e instanceof SubcommandUsage)) throw e;
    const usage = e.subcommand === null ? help : SUBCOMMANDS[e.subcommand]!;
    writeAll(2, Buffer.from(`${e.message ? `error: ${e.message}\n` : ''}${formatHelp('remote', usage)}\n`));
    return 129;
  }
}

async function run(ctx: CommandContext, args: string[]): Promise<number> {
  let verbose = false;
  const rest = options(null, args, (name) => {
    if (name !== '-v' && name !== '--verbose') return false;
    verbose = true;
    return true;
  }, true);
  const [subcommand, ...words] = rest;
  if (subcommand === undefined) return list(ctx, verbose);
  const repo = ctx.repository();
  const config = repo.remotesConfig(ctx.env);
  const setup: RemoteSetup = { ctx, repo, config, file: config.path };
  switch (subcommand) {
    case 'add': return add(setup, words, verbose);
    case 'rename': {
      let progress = process.stderr.isTTY === true;
      const names = options('rename', words, (name) => {
        if (name === '--progress' || name === '--no-progress') progress = name === '--progress';
        else return false;
        return true;
      });
      if (names.length !== 2) throw new SubcommandUsage('rename');
      return renameRemote(setup, names[0]!, names[1]!, progress);
    }
    case 'rm': case 'remove': {
      const names = options('remove', words, () => false);
      if (names.length !== 1) throw new SubcommandUsage('remove');
      return removeRemote(setup, names[0]!);
    }
    case 'set-head': {
      let auto = false, del = false;
      const names = options('set-head', words, (name) => {
        if (name === '-a' || name === '--auto') auto = true;
        else if (name === '-d' || name === '--delete') del = true;
        else return false;
        return true;
      });
      if (!auto && !del && names.length === 2) return setHead(setup, names[0]!, { branch: names[1]! });
      if (auto !== del && names.length === 1) return setHead(setup, names[0]!, auto ? { auto } : { delete: true });
      throw new SubcommandUsage('set-head');
    }
    case 'set-branches': {
      let addMode = false;
      const names = options('set-branches', words, (name) => name === '--add' && (addMode = true));
      if (names.length === 0) throw new SubcommandUsage('set-branches', 'no remote specified');
      return setBranches(setup, names[0]!, names.slice(1), addMode);
    }
    case 'get-url': return getUrl(setup, words);
    case 'set-url': {
      const flags = { push: false, add: false, delete: false };
      const names = options('set-url', words, (name) => {
        if (name === '--push' || name === '--add' || name === '--delete') flags[name.slice(2) as keyof typeof flags] = true;
        else return false;
        return true;
      });
      if (flags.add && flags.delete) throw fatal("--add --delete doesn't make sense");
      if (names.length < 2 || names.length > 3 || ((flags.add || flags.delete) && names.length !== 2)) throw new SubcommandUsage('set-url');
      return setUrl(setup, names[0]!, names[1]!, names[2] ?? null, flags);
    }
    case 'prune': {
      let dryRun = false;
      const names = options('prune', words, (name) => (name === '-n' || name === '--dry-run') && (dryRun = true));
      if (names.length === 0) throw new SubcommandUsage('prune');
      let result = 0;
      for (const name of names) result |= await pruneRemote(setup, name, dryRun);
      return result ? 1 : 0;
    }
    case 'update': {
      let prune: boolean | null = null;
      const names = options('update', words, (name) => {
        if (name === '-p' || name === '--prune' || name === '--no-prune') prune = name !== '--no-prune';
        else return false;
        return true;
      });
      // git runs `fetch --multiple [<group> | <remote>...]`, `--all` for none (unless remotes.default names a group).
      if (names.length > 0 || config.get('remotes', null, 'default') !== undefined) {
        throw new GitError('cli', 'unsupported', 'tsgit remote update fetches every remote only (no remotes, groups or remotes.default)');
      }
      const { default: fetch } = await import('./fetch.js');
      // git's remote update reads no remotes itself, its fetch does: the read above (and what it
      // said of them) stands for that fetch's, in this repository.
      return fetch(ctx, [...prune === null ? [] : [prune ? '--prune' : '--no-prune'], ...verbose ? ['-v'] : [], '--all']);
    }
    case 'show':
      throw new GitError('cli', 'unsupported', `tsgit remote does not do '${subcommand}'`);
    default:
      throw new SubcommandUsage(null, `unknown subcommand: \`${subcommand}'`);
  }
}

/**
 * A subcommand's options, as git's parse_options reads them: `-h` prints its usage (stdout, 129),
 * an unknown option is a usage error of the subcommand.
 */
function options(subcommand: string | null, args: string[], option: (name: string, value: () => string, inline: string | undefined) => boolean,
  stopAtNonOption = false): string[] {
  try {
    return parseOptions(args, (name, value, inline) => {
      if (name === '-h') throw new HelpAsked();
      if (option(name, value, inline)) return true;
      // git's words for it, where parseOptions has tsgit's.
      if (name.startsWith('-')) throw unknownOption(name);
      return false;
    }, { stopAtNonOption });
  } catch (e) {
    if (e instanceof HelpAsked) {
      writeAll(1, Buffer.from(formatHelp('remote', subcommand === null ? help : SUBCOMMANDS[subcommand]!)));
      throw new HelpShown();
    }
    if (e instanceof UsageError) throw new SubcommandUsage(subcommand, e.message);
    throw e;
  }
}

class HelpAsked extends Error {}
/** The usage `-h` asked for is out: git exits 129. */
class HelpShown extends Error {}

/** `remote` and `remote -v`: every configured remote, sorted, with its fetch URL and push URLs when verbose. */
function list(ctx: CommandContext, verbose: boolean): number {
  const entries: [string, string | null][] = [];
  for (const r of configuredRemotes(ctx.repository().remotesConfig(ctx.env))) {
    entries.push([r.name, r.urls.length > 0 ? `${r.urls[0]} (fetch)` : null]);
    for (const u of r.pushUrls.length > 0 ? r.pushUrls : r.urls) entries.push([r.name, `${u} (push)`]);
  }
  // Stable: each remote's lines stay in their order.
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out = new Output();
  entries.forEach(([name, url], i) => {
    if (verbose) out.text(`${name}\t${url ?? ''}\n`);
    else if (i === 0 || entries[i - 1]![0] !== name) out.text(`${name}\n`);
  });
  out.flush();
  return 0;
}

/** `remote get-url [--push] [--all] <name>`. */
function getUrl(setup: RemoteSetup, words: string[]): number {
  let push = false, all = false;
  const names = options('get-url', words, (name) => {
    if (name === '--push') push = true;
    else if (name === '--all') all = true;
    else return false;
    return true;
  });
  if (names.length !== 1) throw new SubcommandUsage('get-url');
  const remote = remoteNamed(setup, names[0]!, false);
  const urls = push && remote.pushUrls.length > 0 ? remote.pushUrls : remote.urls;
  if (urls.length === 0) throw fatal(`no URLs configured for remote '${names[0]}'`);
  const out = new Output();
  for (const u of all ? urls : urls.slice(0, 1)) out.text(`${u}\n`);
  out.flush();
  return 0;
}

/** `remote add`: its options read as git's parse_options reads them. */
async function add(setup: RemoteSetup, words: string[], verbose: boolean): Promise<number> {
  const o: AddOptions = { fetch: false, tags: null, track: [], master: null, mirror: 0 };
  let badMirror: string | null = null;
  const names = options('add', words, (name, value, inline) => {
    switch (name) {
      case '-f': case '--fetch': o.fetch = true; break;
      case '--no-fetch': o.fetch = false; break;
      case '--tags': o.tags = true; break;
      case '--no-tags': o.tags = false; break;
      case '-t': case '--track': o.track.push(value()); break;
      case '--no-track': o.track = []; break;
      case '-m': case '--master': o.master = value(); break;
      case '--no-master': o.master = null; break;
      case '--no-mirror': o.mirror = 0; break;
      case '--mirror':
        if (inline === undefined) {
          writeStderr('warning: --mirror is dangerous and deprecated; please\n\t use --mirror=fetch or --mirror=push instead\n');
          o.mirror = MIRROR_FETCH | MIRROR_PUSH;
        } else if (inline === 'fetch' || inline === 'push') {
          o.mirror = inline === 'fetch' ? MIRROR_FETCH : MIRROR_PUSH;
        } else {
          badMirror ??= inline;
        }
        break;
      default: return false;
    }
    return true;
  });
  // git's option callback fails alone: its error, and no usage after it.
  if (badMirror !== null) {
    writeStderr(`error: unknown mirror argument: ${badMirror}\n`);
    return 129;
  }
  if (names.length !== 2) throw new SubcommandUsage('add');
  const [name, url] = names as [string, string];
  return addRemote(setup, name, url, o, async () => {
    const out = new Output();
    out.text(`Updating ${name}\n`);
    out.flush();
    // git runs `git fetch [-v] <name>`; its failure is reported, then git's own error.
    const { default: fetch } = await import('./fetch.js');
    let status: number;
    try {
      status = await fetch(setup.ctx, verbose ? ['-v', name] : [name]);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`fatal: ${e.message}\n`);
      status = 128;
    }
    if (status === 0) return true;
    writeStderr(`error: Could not fetch ${name}\n`);
    return false;
  });
}
