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
import { collectGarbage, keepYoungGenerationSmall } from './index-pack-memory.js';

const USAGE = 'usage: tsgit clone [<options>] [--] <repo> [<dir>]';

export default async function cloneCommand(ctx: CommandContext, args: string[]): Promise<number> {
  keepYoungGenerationSmall();
  let bare = false, mirror = false, noTags = false, noCheckout = false;
  let singleBranch: boolean | undefined;
  let branch: string | undefined, origin: string | undefined;
  let since: string | undefined, filter: string | undefined;
  const { quiet, progress, depth, uploadPack, rest } = parseRemoteOptions(args, USAGE, (name, value) => {
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
  if (rest.length === 0) throw new UsageError(`You must specify a repository to clone.\n${USAGE}`);
  if (rest.length > 2) throw new UsageError(`Too many arguments.\n${USAGE}`);
  if (bare && origin !== undefined) throw new UsageError('options \'--bare\' and \'--origin\' cannot be used together');
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    await clone(rest[0]!, {
      cwd: ctx.cwd, env: ctx.env, directory: rest[1], bare, mirror, branch, singleBranch, noTags, depth,
      ...(since !== undefined ? { shallowSince: parseApproxDate(since) } : {}),
      ...(filter !== undefined ? { filter: parseFilterSpec(filter) } : {}),
      noCheckout, origin, progress: run.showProgress,
      ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
      log: (message) => { if (!quiet || /^(warning|error):/.test(message)) run.stderr(message); },
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
