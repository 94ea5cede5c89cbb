// tsgit clone [--bare] [--mirror] [-b <branch>] [--[no-]single-branch] [--no-tags] [--depth <n>]
//             [--shallow-since <date>] [--filter <spec>] [-n | --no-checkout] [-o <name>]
//             [-u <upload-pack>] [-q] [--progress] <repository> [<directory>]
// Messages and progress go to stderr as git prints them; SIGINT, SIGTERM and SIGHUP stop the
// clone and remove what it created.
import { clone } from '../../client/clone.js';
import { parseApproxDate } from '../../client/date.js';
import { GitError, UsageError } from '../../core/errors.js';
import { parseFilterSpec } from '../../protocol/index.js';
import type { CommandContext } from '../context.js';
import { parseRemoteOptions, runRemoteCommand } from '../remote-command.js';
import { collectGarbage, keepYoungGenerationSmall } from '../memory.js';
import type { CommandHelp } from '../help.js';
import { progressIf } from '../progress.js';

export const help: CommandHelp = {
  summary: 'Clone a repository into a new directory',
  synopsis: ['[<options>] [--] <repo> [<dir>]'],
  options: [
    ['-q, --quiet', 'be more quiet'],
    ['--progress', 'force progress reporting'],
    ['-n, --no-checkout', "don't create a checkout"],
    ['--bare', 'create a bare repository'],
    ['--mirror', 'create a mirror repository (implies bare)'],
    ['-o, --origin <name>', "use <name> instead of 'origin' to track upstream"],
    ['-b, --branch <branch>', "checkout <branch> instead of the remote's HEAD"],
    ['-u, --upload-pack <path>', 'path to git-upload-pack on the remote'],
    ['--depth <depth>', 'create a shallow clone of that depth'],
    ['--shallow-since <time>', 'create a shallow clone since a specific time'],
    ['--[no-]single-branch', 'clone only one branch, HEAD or --branch'],
    ['--no-tags', "don't clone any tags, and make later fetches not to follow them"],
    ['--filter <args>', 'object filtering'],
  ],
};

export default async function cloneCommand(ctx: CommandContext, args: string[]): Promise<number> {
  keepYoungGenerationSmall();
  let bare = false, mirror = false, noTags = false, noCheckout = false;
  let singleBranch: boolean | undefined;
  let branch: string | undefined, origin: string | undefined;
  let since: string | undefined, filter: string | undefined;
  const { quiet, progress, depth, uploadPack, rest } = parseRemoteOptions(args, (name, value) => {
    switch (name) {
      case '--bare': bare = true; break;
      case '--mirror': mirror = true; break;
      case '-b': case '--branch': branch = value(); break;
      case '--single-branch': singleBranch = true; break;
      case '--no-single-branch': singleBranch = false; break;
      case '--no-tags': noTags = true; break;
      case '--shallow-since': since = value(); break;
      case '--filter': filter = value(); break;
      case '--no-filter': filter = undefined; break;
      case '-n': case '--no-checkout': noCheckout = true; break;
      case '-o': case '--origin': origin = value(); break;
      default: return false;
    }
    return true;
  });
  if (rest.length === 0) throw new UsageError(`You must specify a repository to clone.`);
  if (rest.length > 2) throw new UsageError(`Too many arguments.`);
  if (bare && origin !== undefined) throw new UsageError('options \'--bare\' and \'--origin\' cannot be used together');
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    await clone(rest[0]!, {
      cwd: ctx.cwd, env: ctx.env, directory: rest[1], bare, mirror, branch, singleBranch, noTags, depth,
      ...(since !== undefined ? { shallowSince: parseApproxDate(since) } : {}),
      ...(filter !== undefined ? { filter: parseFilterSpec(filter) } : {}),
      noCheckout, origin, progress: progressIf(run.showProgress),
      ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
      log: (message) => { if (!quiet || message.startsWith('warning:')) run.stderr(message); },
      onPackStored: collectGarbage,
      signal: run.signal,
      transport: uploadPack !== undefined ? { uploadPack } : {},
    });
    return 0;
  }, (e, run) => {
    // Interrupted during checkout, the repository stays, as git leaves it; say so.
    if (e instanceof GitError && e.code === 'checkout-failed') run.stderr(`fatal: ${e.message}\n`);
  });
}
