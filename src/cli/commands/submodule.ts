// tsgit submodule [--quiet] [status] [--cached] [--recursive] [--] [<path>...]
// tsgit submodule [--quiet] init [--] [<path>...]
// tsgit submodule [--quiet] sync [--recursive] [--] [<path>...]
// tsgit submodule [--quiet] foreach [--recursive] <command>
// tsgit submodule [--quiet] update [--init] [--recursive] [--depth <n>] [-j <n>] [-f]
//                 [--[no-]single-branch] [--[no-]recommend-shallow] [--progress] [--] [<path>...]
// tsgit submodule [--quiet] deinit [-f|--force] (--all | [--] <path>...)
// tsgit submodule [--quiet] set-url [--] <path> <newurl>
// tsgit submodule [--quiet] set-branch (-b <branch> | -d) [--] <path>
// tsgit submodule absorbgitdirs [--] [<path>...]
// As git-submodule(1): paths are pathspecs relative to the current directory; status lines go to
// stdout, everything else to stderr. update exits 1 when a clone failed twice, 128 on a fatal
// error; SIGINT, SIGTERM and SIGHUP stop it and take back a clone under way.
import path from 'node:path';
import { initSubmodules, submodulesToInit } from '../../client/submodule/init.js';
import { submoduleStatus } from '../../client/submodule/status.js';
import { syncSubmodules } from '../../client/submodule/sync.js';
import { foreachSubmodule } from '../../client/submodule/foreach.js';
import { absorbGitDirs } from '../../client/submodule/absorb.js';
import { deinitSubmodules } from '../../client/submodule/deinit.js';
import { setSubmoduleBranch, setSubmoduleUrl } from '../../client/submodule/edit-gitmodules.js';
import { updateSubmodules } from '../../client/submodule/update.js';
import { RefusedPath } from '../../client/submodule/paths.js';
import { displayPath, listSubmodules } from '../../client/submodule/visit.js';
import { GitError, UsageError } from '../../core/errors.js';
import { fatal, type CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { parseOptions } from '../parse-options.js';
import { progressIf } from '../progress.js';
import { runRemoteCommand } from '../remote-command.js';
import type { CommandHelp } from '../help.js';
import { collectGarbage } from '../memory.js';

export const help: CommandHelp = {
  summary: 'Initialize, update or inspect submodules',
  synopsis: [
    '[--quiet] [status] [--cached] [--recursive] [--] [<path>...]',
    '[--quiet] init [--] [<path>...]',
    '[--quiet] sync [--recursive] [--] [<path>...]',
    '[--quiet] foreach [--recursive] <command>',
    '[--quiet] update [--init] [--recursive] [--depth <n>] [-j <n>] [-f] [--[no-]single-branch] [--[no-]recommend-shallow] [--progress] [--] [<path>...]',
    '[--quiet] deinit [-f|--force] (--all | [--] <path>...)',
    '[--quiet] set-url [--] <path> <newurl>',
    '[--quiet] set-branch (-b <branch> | -d) [--] <path>',
    'absorbgitdirs [--] [<path>...]',
  ],
  options: [
    ['-q, --quiet', 'only print error messages'],
    ['--cached', 'status: show the commits the index records, not those checked out'],
    ['--recursive', 'recurse into nested submodules'],
    ['--init', 'update: initialize the submodules first (submodule init)'],
    ['--depth <n>', 'update: clone shallow, with a history truncated to <n> commits'],
    ['-j, --jobs <n>', 'update: clone <n> submodules in parallel'],
    ['-f, --force', 'update: check out even if the work tree has local changes; deinit: remove work trees with local changes'],
    ['--all', 'deinit: every submodule'],
    ['-b, --branch <branch>', 'set-branch: the branch to record'],
    ['-d, --default', 'set-branch: remove the recorded branch'],
    ['--[no-]single-branch', "update: clone only one branch, the remote's HEAD"],
    ['--[no-]recommend-shallow', "update: follow .gitmodules' submodule.<name>.shallow"],
    ['--progress', 'update: force progress reporting'],
  ],
};

const report = {
  out: (text: string) => writeAll(1, Buffer.from(text, 'utf8')),
  err: (text: string) => writeAll(2, Buffer.from(text, 'utf8')),
};

interface Parsed {
  flags: Set<string>;
  values: Map<string, string>;
  paths: string[];
}

/** Options of one subcommand: `known` lists the flags, `valued` those taking a value (`--x v` or `--x=v`). */
function parse(args: readonly string[], known: readonly string[], valued: readonly string[]): Parsed {
  const flags = new Set<string>(), values = new Map<string, string>();
  // Words whole, as git-submodule.sh's case statements read them: "-j2" is not "-j 2".
  const paths = parseOptions(args, (name, value, inline) => {
    if (valued.includes(name)) values.set(name, value());
    // A flag with "=value" is not one of them.
    else if (known.includes(name) && inline === undefined) flags.add(name);
    else return false;
    return true;
  }, { bundles: false });
  return { flags, values, paths };
}

function count(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`option '${option}' expects a number, not '${text}'`);
  return Number(text);
}

export default async function submoduleCommand(ctx: CommandContext, args: string[]): Promise<number> {
  try {
    return await run(ctx, args);
  } catch (e) {
    // As git: a path that matches nothing is an error, status 1; a path refused is an error
    // before git dies without a message of its own (validate_submodule_path, then die(NULL)).
    if (e instanceof RefusedPath && e.code === 'unsafe-path') {
      report.err(`error: ${e.message}\n`);
      return 128;
    }
    if (!(e instanceof GitError) || e.code !== 'no-match') throw e;
    report.err(`error: ${e.message}\n`);
    return 1;
  }
}

async function run(ctx: CommandContext, args: string[]): Promise<number> {
  let i = 0;
  let quiet = false;
  for (; i < args.length && (args[i] === '-q' || args[i] === '--quiet'); i++) quiet = true;
  // No subcommand, or options first: status, as git-submodule.sh.
  const named = args[i] !== undefined && !args[i]!.startsWith('-');
  const sub = named ? args[i]! : 'status';
  const rest = args.slice(named ? i + 1 : i);
  const repo = ctx.repository();
  if (!repo.workTree) throw fatal('this operation must be run in a work tree');
  const relative = path.relative(repo.workTree, path.resolve(ctx.cwd));
  if (relative.startsWith('..')) throw fatal(`'${ctx.cwd}' is outside the work tree '${repo.workTree}'`);
  const prefix = relative === '' ? '' : `${relative.split(path.sep).join('/')}/`;
  switch (sub) {
    case 'status': {
      const o = parse(rest, ['-q', '--quiet', '--cached', '--recursive'], []);
      submoduleStatus(repo, {
        paths: o.paths, prefix, cached: o.flags.has('--cached'), recursive: o.flags.has('--recursive'),
        quiet: quiet || o.flags.has('-q') || o.flags.has('--quiet'), env: ctx.env, report,
      });
      return 0;
    }
    case 'sync': {
      const o = parse(rest, ['-q', '--quiet', '--recursive'], []);
      syncSubmodules(repo, {
        paths: o.paths, prefix, recursive: o.flags.has('--recursive'), quiet: quiet || o.flags.has('-q') || o.flags.has('--quiet'), env: ctx.env, report,
      });
      return 0;
    }
    case 'foreach': {
      // Options come before the command; everything from the first other word is the command.
      let k = 0, recursive = false, q = quiet;
      for (; k < rest.length; k++) {
        if (rest[k] === '--recursive') recursive = true;
        else if (rest[k] === '-q' || rest[k] === '--quiet') q = true;
        else if (rest[k] === '--') { k++; break; } else break;
      }
      foreachSubmodule(repo, rest.slice(k), { prefix, recursive, quiet: q, env: ctx.env, report });
      return 0;
    }
    case 'init': {
      const o = parse(rest, ['-q', '--quiet'], []);
      const { sp, list } = listSubmodules(repo, { paths: o.paths, prefix, env: ctx.env, report });
      initSubmodules(sp, submodulesToInit(sp, list, o.paths.length > 0), { quiet: quiet || o.flags.has('-q') || o.flags.has('--quiet'), displayPath: (p) => displayPath(p, prefix), report });
      return 0;
    }
    case 'update': {
      const o = parse(rest, [
        '-q', '--quiet', '--init', '--recursive', '-f', '--force', '--single-branch', '--no-single-branch',
        '--recommend-shallow', '--no-recommend-shallow', '--progress', '--checkout', '--require-init',
      ], ['--depth', '-j', '--jobs']);
      const has = (...names: string[]) => names.some((n) => o.flags.has(n));
      const depth = count(o.values.get('--depth'), '--depth');
      const jobs = count(o.values.get('-j') ?? o.values.get('--jobs'), '--jobs');
      const q = quiet || has('-q', '--quiet');
      return runRemoteCommand(ctx.env, { quiet: q }, (run) => updateSubmodules(repo, {
        paths: o.paths, prefix, init: has('--init'), requireInit: has('--require-init'), recursive: has('--recursive'),
        ...(depth ? { depth } : {}), ...(jobs !== undefined ? { jobs } : {}),
        ...(has('--single-branch', '--no-single-branch') ? { singleBranch: has('--single-branch') } : {}),
        recommendShallow: !has('--no-recommend-shallow'),
        force: has('-f', '--force'), quiet: q, progress: progressIf(has('--progress')), env: ctx.env, report,
        signal: run.signal, onPackStored: collectGarbage,
      }));
    }
    case 'deinit': {
      const o = parse(rest, ['-q', '--quiet', '-f', '--force', '--all'], []);
      const all = o.flags.has('--all');
      if (all && o.paths.length > 0) throw new UsageError('pathspec and --all are incompatible');
      if (!all && o.paths.length === 0) throw fatal("Use '--all' if you really want to deinitialize all submodules");
      await deinitSubmodules(repo, {
        paths: o.paths, prefix, force: o.flags.has('-f') || o.flags.has('--force'), quiet: quiet || o.flags.has('-q') || o.flags.has('--quiet'), env: ctx.env, report,
      });
      return 0;
    }
    case 'set-url': {
      const o = parse(rest, ['-q', '--quiet'], []);
      if (o.paths.length !== 2) throw new UsageError('');
      setSubmoduleUrl(repo, o.paths[0]!, o.paths[1]!, { prefix, quiet: quiet || o.flags.has('-q') || o.flags.has('--quiet'), env: ctx.env, report });
      return 0;
    }
    case 'set-branch': {
      const o = parse(rest, ['-q', '--quiet', '-d', '--default'], ['-b', '--branch']);
      const branch = o.values.get('-b') ?? o.values.get('--branch');
      const unset = o.flags.has('-d') || o.flags.has('--default');
      if (branch === undefined && !unset) throw fatal('--branch or --default required');
      if (branch !== undefined && unset) throw fatal("options '--branch' and '--default' cannot be used together");
      if (o.paths.length !== 1) throw new UsageError('');
      return setSubmoduleBranch(repo, o.paths[0]!, branch ?? null, { prefix, env: ctx.env, report }) ? 0 : 1;
    }
    case 'absorbgitdirs': {
      const o = parse(rest, [], []);
      absorbGitDirs(repo, { paths: o.paths, prefix, env: ctx.env, report });
      return 0;
    }
    default:
      throw new UsageError(`unknown subcommand: '${sub}'`);
  }
}
