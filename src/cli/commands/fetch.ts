// tsgit fetch [-q] [-v] [--progress] [--depth <n> | --deepen <n> | --unshallow] [--shallow-since <date>]
//             [--shallow-exclude <ref>...] [--update-shallow] [--prune] [--tags | --no-tags] [-f]
//             [-u | --update-head-ok] [--upload-pack <upload-pack>] [<remote> [<refspec>...]]
// Refspecs default to remote.<name>.fetch; the report goes to stderr in git's format; the exit
// status is 1 when a ref was rejected (not for one that would need new shallow roots: git warns of
// those and exits 0). SIGINT, SIGTERM and SIGHUP stop it with no ref changed.
import { fetch } from '../../client/fetch.js';
import { GitError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../context.js';
import { historyShape, parseRemoteOptions, runRemoteCommand } from '../remote-command.js';
import { collectGarbage } from '../memory.js';
import type { CommandHelp } from '../help.js';
import { progressIf } from '../progress.js';

export const help: CommandHelp = {
  summary: 'Download objects and refs from another repository',
  synopsis: ['[<options>] [<repository> [<refspec>...]]'],
  options: [
    ['-q, --quiet', 'be more quiet'],
    ['-v, --verbose', 'be more verbose'],
    ['--progress', 'force progress reporting'],
    ['-p, --[no-]prune', 'prune remote-tracking branches no longer on remote'],
    ['-t, --tags', 'fetch all tags and associated objects'],
    ['-n, --no-tags', 'do not fetch all tags'],
    ['-f, --force', 'force overwrite of local reference'],
    ['--depth <depth>', 'deepen history of shallow clone'],
    ['--deepen <n>', 'deepen history of shallow clone'],
    ['--shallow-since <time>', 'deepen history of shallow repository based on time'],
    ['--shallow-exclude <revision>', 'deepen history of shallow clone, excluding rev'],
    ['--unshallow', 'convert to a complete repository'],
    ['--no-recurse-submodules', 'do not fetch in submodules (tsgit never does)'],
    ['--[no-]update-shallow', 'accept refs that update .git/shallow'],
    ['-u, --update-head-ok', 'allow updating of HEAD ref'],
    ['--upload-pack <path>', 'path to upload pack on remote end'],
  ],
};

export default async function fetchCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let prune = false, tags = false, noTags = false, force = false, updateShallow = false, unshallow = false, verbose = false;
  let updateHeadOk = false;
  let deepen: number | undefined;
  const remote = parseRemoteOptions('fetch', args, (name, value, inline) => {
    switch (name) {
      // CI checkouts pass --no-recurse-submodules; fetching inside submodules is not done.
      case '--no-recurse-submodules': break;
      case '--recurse-submodules':
        if (inline !== 'no') throw new GitError('cli', 'unsupported', `tsgit fetch does not fetch in submodules (--recurse-submodules${inline === undefined ? '' : `=${inline}`}); run 'tsgit submodule update' after it`);
        break;
      case '--deepen': {
        const text = value();
        if (!/^-?[0-9]+$/.test(text)) throw new UsageError(`option \`deepen' expects a numerical value`);
        deepen = Number(text);
        break;
      }
      case '--unshallow': unshallow = true; break;
      case '-v': case '--verbose': verbose = true; break;
      case '-p': case '--prune': prune = true; break;
      case '--no-prune': prune = false; break;
      case '-t': case '--tags': tags = true; break;
      case '-n': case '--no-tags': noTags = true; break;
      case '-f': case '--force': force = true; break;
      case '-u': case '--update-head-ok': updateHeadOk = true; break;
      case '--update-shallow': updateShallow = true; break;
      case '--no-update-shallow': updateShallow = false; break;
      default: return false;
    }
    return true;
  });
  const { quiet, progress, uploadPack, rest } = remote;
  // git's fetch: a relative depth is given as --deepen, and refuses --depth beside it.
  if (deepen !== undefined && deepen < 0) throw new GitError('cli', 'usage', 'negative depth in --deepen is not supported');
  if (deepen && remote.depth !== undefined) throw new GitError('cli', 'usage', "options '--deepen' and '--depth' cannot be used together");
  const repo = ctx.repository();
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    const result = await fetch(repo, {
      cwd: ctx.setupDir(), env: ctx.env, remote: rest[0], refspecs: rest.slice(1), updateShallow, updateHeadOk, prune, tags, noTags, force,
      shape: historyShape(remote, deepen), unshallow,
      progress: progressIf(run.showProgress), report: !quiet, verbose,
      ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
      log: run.stderr, onPackStored: collectGarbage, signal: run.signal, reflogAction: ['fetch', ...args].join(' '),
      transport: uploadPack !== undefined ? { uploadPack } : {},
    });
    return result.rejected > 0 ? 1 : 0;
  });
}
