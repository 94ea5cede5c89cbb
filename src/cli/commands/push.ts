// tsgit push [-f | --force-with-lease[=<ref>[:<expect>]] [--force-if-includes]] [--atomic] [-d | --delete] [--tags]
//            [--follow-tags] [--mirror] [--prune] [-o <option>] [-n | --dry-run] [--no-verify] [-u]
//            [--porcelain] [-v] [-q]
//            [--progress] [--receive-pack <program>] [<repository> [<refspec>...]]
// git's push over http(s), ssh, git:// and local paths: the per-ref report on stderr (stdout with
// --porcelain), progress when stderr is a terminal, exit status 1 when a ref was refused.
import { push } from '../../client/push/push.js';
import { formatRemoteProgress, stderrIsSmartTerminal } from '../../client/remote-progress.js';
import { parseLease, type Lease } from '../../client/push/status.js';
import { fatal } from '../context.js';
import type { CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { parseOptions } from '../parse-options.js';
import { progressIf } from '../progress.js';
import { runRemoteCommand } from '../remote-command.js';
import { verbosityAfter } from '../verbosity.js';
import type { CommandHelp } from '../help.js';
import { refuseBadDefaultConfig } from '../bad-config-variable.js';

export const help: CommandHelp = {
  summary: 'Update remote refs along with associated objects',
  synopsis: ['[<options>] [<repository> [<refspec>...]]'],
  options: [
    ['-v, --verbose', 'be more verbose'],
    ['-q, --quiet', 'be more quiet'],
    ['--all, --branches', 'push all branches'],
    ['--mirror', 'mirror all refs'],
    ['-d, --delete', 'delete refs'],
    ['--tags', 'push tags (can\'t be used with --all)'],
    ['-n, --dry-run', 'dry run'],
    ['--porcelain', 'machine-readable output'],
    ['--[no-]prune', 'prune locally removed refs'],
    ['-f, --force', 'force updates'],
    ['--force-with-lease[=<refname>:<expect>]', 'require old value of ref to be at this value'],
    ['--[no-]force-if-includes', 'require remote updates to be integrated locally'],
    ['--receive-pack <receive-pack>', 'receive pack program'],
    ['-u, --set-upstream', 'set upstream for git pull/status'],
    ['--[no-]progress', 'force progress reporting'],
    ['--follow-tags', 'push missing but relevant tags'],
    ['--atomic', 'request atomic transaction on remote side'],
    ['--[no-]verify', 'bypass pre-push hook'],
    ['-o, --push-option <server-specific>', 'option to transmit'],
  ],
};

export default async function pushCommand(ctx: CommandContext, args: string[]): Promise<number> {
  // git's setup finds the repository, and git reads its configuration (dying on a value
  // git_default_config refuses), before the options are looked at or a remote is.
  const repo = ctx.repository();
  refuseBadDefaultConfig(ctx, repo.loadConfig(ctx.env));
  let force = false, atomic: boolean | undefined, del = false, tags = false, followTags: boolean | undefined, dryRun = false;
  let forceIfIncludes: boolean | undefined;
  let setUpstream = false, porcelain = false, verbosity = 0, progress: boolean | undefined;
  let receivePack: string | undefined, all = false, noVerify = false, mirror: boolean | undefined, prune = false;
  const leases: Lease[] = [];
  const pushOptions: string[] = [];
  const rest = parseOptions(args, (name, value, inline) => {
    const level = verbosityAfter(name, verbosity);
    if (level !== undefined) {
      verbosity = level;
      return true;
    }
    switch (name) {
      case '-f': case '--force': force = true; break;
      case '--force-with-lease': leases.push(parseLease(inline ?? null)); break;
      case '--no-force-with-lease': leases.length = 0; break;
      case '--force-if-includes': forceIfIncludes = true; break;
      case '--no-force-if-includes': forceIfIncludes = false; break;
      case '--atomic': atomic = true; break;
      case '--no-atomic': atomic = false; break;
      case '-d': case '--delete': del = true; break;
      case '--tags': tags = true; break;
      case '--all': case '--branches': all = true; break;
      case '--mirror': mirror = true; break;
      case '--prune': prune = true; break;
      case '--no-prune': prune = false; break;
      case '--follow-tags': followTags = true; break;
      case '--no-follow-tags': followTags = false; break;
      case '-o': case '--push-option': pushOptions.push(value()); break;
      case '--no-push-option': pushOptions.length = 0; break;
      case '-n': case '--dry-run': dryRun = true; break;
      case '-u': case '--set-upstream': setUpstream = true; break;
      case '--porcelain': porcelain = true; break;
      case '--no-verify': noVerify = true; break;
      case '--verify': noVerify = false; break;
      case '--progress': progress = true; break;
      case '--no-progress': progress = false; break;
      case '--receive-pack': case '--exec': receivePack = value(); break;
      default: return false;
    }
    return true;
  });
  // git dies on these (128), after its options are parsed.
  if (all && tags) throw fatal(`options '--all' and '--tags' cannot be used together`);
  if (all && mirror) throw fatal(`options '--all' and '--mirror' cannot be used together`);
  if (tags && mirror) throw fatal(`options '--mirror' and '--tags' cannot be used together`);
  if (del && (all || mirror || tags)) throw fatal(`options '--delete' and '--all/--mirror/--tags' cannot be used together`);
  if (all && rest.length > 1) throw fatal(`--all can't be combined with refspecs`);
  const verbose = verbosity > 0, quiet = verbosity < 0;
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    const stdout = (text: string) => writeAll(1, Buffer.from(text, 'utf8'));
    const result = await push(repo, {
      remote: rest[0], refspecs: all ? ['refs/heads/*'] : rest.slice(1), force, leases, ...(forceIfIncludes !== undefined ? { forceIfIncludes } : {}), atomic, delete: del, tags, followTags,
      pushOptions, dryRun, noVerify, setUpstream, prune, ...mirror !== undefined ? { mirror } : {}, porcelain, verbose, quiet, receivePack,
      progress: progressIf(run.showProgress),
      log: run.stderr, out: stdout,
      // Remote messages are shown even without progress, as git shows them.
      onRemote: (text) => run.stderr(formatRemote(text, ctx.env)),
      signal: run.signal, env: ctx.env, cwd: ctx.setupDir(),
    });
    return result.failed ? 1 : 0;
  });
}

function formatRemote(text: string, env: NodeJS.ProcessEnv): string {
  return formatRemoteProgress(text, stderrIsSmartTerminal(env));
}
