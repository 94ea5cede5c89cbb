// tsgit fetch [-q] [-v] [--progress] [--depth <n>] [--prune] [--tags | --no-tags] [-f]
//             [-u <upload-pack>] [<remote> [<refspec>...]]
// Refspecs default to remote.<name>.fetch; the report goes to stderr in git's format; the exit
// status is 1 when a ref was rejected. SIGINT, SIGTERM and SIGHUP stop it with no ref changed.
import { fetch } from '../../client/fetch.js';
import { UsageError } from '../../core/errors.js';
import type { CommandContext } from '../context.js';
import { runRemoteCommand } from '../remote-command.js';

const USAGE = 'usage: tsgit fetch [<options>] [<repository> [<refspec>...]]';

export default async function fetchCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let quiet = false, progress = false, prune = false, tags = false, noTags = false, force = false;
  let depth: number | undefined, uploadPack: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const arg = () => {
      if (eq > 0) return a.slice(eq + 1);
      const v = args[++i];
      if (v === undefined) throw new UsageError(`option '${name}' requires a value\n${USAGE}`);
      return v;
    };
    switch (name) {
      case '-q': case '--quiet': quiet = true; break;
      case '-v': case '--verbose': break;
      case '--progress': progress = true; break;
      case '-p': case '--prune': prune = true; break;
      case '--no-prune': prune = false; break;
      case '-t': case '--tags': tags = true; break;
      case '-n': case '--no-tags': noTags = true; break;
      case '-f': case '--force': force = true; break;
      case '--depth': {
        const text = arg();
        depth = /^[0-9]+$/.test(text) ? Number(text) : NaN;
        if (!(depth > 0)) throw new UsageError(`depth ${text} is not a positive number`);
        break;
      }
      case '-u': case '--upload-pack': uploadPack = arg(); break;
      case '--': rest.push(...args.slice(i + 1)); i = args.length; break;
      default:
        if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'\n${USAGE}`);
        rest.push(a);
    }
  }
  const repo = ctx.repository();
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    const result = await fetch(repo, {
      cwd: ctx.cwd, env: ctx.env, remote: rest[0], refspecs: rest.slice(1), depth, prune, tags, noTags, force,
      progress: run.showProgress, report: !quiet,
      ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
      log: run.stderr, signal: run.signal, reflogAction: ['fetch', ...args].join(' '),
      transport: uploadPack !== undefined ? { uploadPack } : {},
    });
    return result.rejected > 0 ? 1 : 0;
  });
}
