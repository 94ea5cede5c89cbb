// tsgit clone [--bare] [--mirror] [-b <branch>] [--[no-]single-branch] [--no-tags] [--depth <n>]
//             [--shallow-since <date>] [--shallow-exclude <ref>...] [--filter <spec>] [-n | --no-checkout] [-o <name>]
//             [--sparse] [-c <name>=<value>] [--recurse-submodules[=<pathspec>]] [--[no-]shallow-submodules]
//             [-j <n>] [--reference[-if-able] <repo>] [--dissociate] [-u <upload-pack>] [-q] [--progress]
//             <repository> [<directory>]
// Messages and progress go to stderr as git prints them; SIGINT, SIGTERM and SIGHUP stop the
// clone and remove what it created. With --recurse-submodules the exit status is the submodule
// update's when that fails (the superproject stays, as with git).
import path from 'node:path';
import { clone, type CloneOptions } from '../../client/clone.js';
import type { Reference } from '../../client/reference.js';
import { cloneRecursive } from '../../client/submodule/clone-recursive.js';
import { parseConfigSetting } from '../../config/command-line.js';
import { GitError, UsageError } from '../../core/errors.js';
import { isDirectory } from '../../core/is-directory.js';
import { addFilter, parseFilterSpec, type FilterSpec } from '../../protocol/index.js';
import type { CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { historyShape, parseRemoteOptions, runRemoteCommand } from '../remote-command.js';
import { collectGarbage } from '../memory.js';
import type { CommandHelp } from '../help.js';
import { progressIf } from '../progress.js';

export const help: CommandHelp = {
  summary: 'Clone a repository into a new directory',
  synopsis: ['[<options>] [--] <repo> [<dir>]'],
  options: [
    ['-v, --verbose', 'be more verbose'],
    ['-q, --quiet', 'be more quiet'],
    ['--progress', 'force progress reporting'],
    ['-n, --no-checkout', "don't create a checkout"],
    ['--bare', 'create a bare repository'],
    ['--mirror', 'create a mirror repository (implies bare)'],
    ['-o, --origin <name>', "use <name> instead of 'origin' to track upstream"],
    ['--[no-]reject-shallow', 'do not clone shallow repository'],
    ['--separate-git-dir <gitdir>', 'separate git dir from working tree'],
    ['-l, --[no-]local, --[no-]hardlinks', 'accepted: tsgit always fetches, as --no-local does'],
    ['-s, --shared', 'set up shared clone'],
    ['--template=', 'accepted empty: tsgit copies no templates'],
    ['-b, --branch <branch>', "checkout <branch> instead of the remote's HEAD"],
    ['-u, --upload-pack <path>', 'path to git-upload-pack on the remote'],
    ['--depth <depth>', 'create a shallow clone of that depth'],
    ['--shallow-since <time>', 'create a shallow clone since a specific time'],
    ['--shallow-exclude <revision>', 'deepen history of shallow clone, excluding rev'],
    ['--[no-]single-branch', 'clone only one branch, HEAD or --branch'],
    ['--no-tags', "don't clone any tags, and make later fetches not to follow them"],
    ['--filter <args>', 'object filtering'],
    ['--sparse', 'initialize sparse-checkout file to include only files at root'],
    ['--recurse-submodules[=<pathspec>]', 'initialize submodules in the clone'],
    ['--shallow-submodules', 'any cloned submodules will be shallow'],
    ['-j, --jobs <n>', 'number of submodules cloned in parallel'],
    ['-c, --config <key=value>', 'set config inside the new repository'],
    ['--reference <repo>', 'reference repository'],
    ['--reference-if-able <repo>', 'reference repository'],
    ['--dissociate', 'use --reference only while cloning'],
  ],
};

export default async function cloneCommand(ctx: CommandContext, args: string[]): Promise<number> {
  let bare = false, mirror = false, noTags = false, noCheckout = false, sparse = false;
  let singleBranch: boolean | undefined;
  let branch: string | undefined, origin: string | undefined;
  let filter: FilterSpec | undefined;
  const settings: string[] = [];
  const recurse: string[] = [];
  const references: Reference[] = [];
  let dissociate = false;
  let shallowSubmodules = false;
  let jobs: number | undefined;
  let rejectShallow: boolean | undefined;
  let separateGitDir: string | undefined;
  let local = true, shared = false;
  const remote = parseRemoteOptions('clone', args, (name, value, inline) => {
    switch (name) {
      case '-c': case '--config': settings.push(value()); break;
      case '--recurse-submodules': case '--recursive': recurse.push(inline ?? '.'); break;
      case '--no-recurse-submodules': case '--no-recursive': recurse.length = 0; break;
      case '--shallow-submodules': shallowSubmodules = true; break;
      case '--no-shallow-submodules': shallowSubmodules = false; break;
      case '-j': case '--jobs': {
        const text = value();
        if (!/^[0-9]+$/.test(text)) throw new UsageError(`option 'jobs' expects a numerical value`);
        jobs = Number(text);
        break;
      }
      case '--bare': bare = true; break;
      case '--mirror': mirror = true; break;
      case '-b': case '--branch': branch = value(); break;
      case '--single-branch': singleBranch = true; break;
      case '--no-single-branch': singleBranch = false; break;
      case '--no-tags': noTags = true; break;
      case '--reference': references.push({ path: value(), required: true }); break;
      case '--reference-if-able': references.push({ path: value(), required: false }); break;
      case '--dissociate': dissociate = true; break;
      case '--filter': filter = addFilter(filter, parseFilterSpec(value())); break;
      case '--no-filter': filter = undefined; break;
      case '-n': case '--no-checkout': noCheckout = true; break;
      case '--sparse': sparse = true; break;
      case '--no-sparse': sparse = false; break;
      case '-o': case '--origin': origin = value(); break;
      case '--separate-git-dir': separateGitDir = value(); break;
      case '--reject-shallow': rejectShallow = true; break;
      case '--no-reject-shallow': rejectShallow = false; break;
      // tsgit clones a local repository by fetching from it, as git's --no-local does: copying or
      // linking its files instead would only be faster.
      case '-l': case '--local': local = true; break;
      case '--no-local': local = false; break;
      case '--hardlinks': case '--no-hardlinks': break;
      case '-s': case '--shared': shared = true; break;
      case '--no-shared': shared = false; break;
      case '--template':
        // tsgit's repositories get no templates; an empty directory is what asks for none.
        if (value() !== '') throw new GitError('cli', 'unsupported', 'tsgit clone copies no templates (only --template= is taken)');
        break;
      default: return false;
    }
    return true;
  });
  const { progress, uploadPack, rest } = remote;
  // clone says no more for -v than without it.
  const quiet = remote.verbosity < 0;
  if (rest.length === 0) throw new UsageError(`You must specify a repository to clone.`);
  if (rest.length > 2) throw new UsageError(`Too many arguments.`);
  if (bare && origin !== undefined) throw new UsageError('options \'--bare\' and \'--origin\' cannot be used together');
  if (bare && separateGitDir !== undefined) throw new GitError('cli', 'usage', "options '--bare' and '--separate-git-dir' cannot be used together");
  // --shared borrows a local source's objects through alternates, as git's local clone does; tsgit
  // gets that from --reference to the source itself. git ignores it for a URL, and --no-local.
  if (shared && local && isDirectory(path.resolve(ctx.cwd, rest[0]!))) references.push({ path: rest[0]!, required: true });
  const config = settings.map(parseConfigSetting);
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    const options: CloneOptions = {
      cwd: ctx.cwd, env: ctx.env, directory: rest[1], bare, mirror, branch, singleBranch, noTags, shape: historyShape(remote),
      ...(references.length ? { references } : {}), dissociate, ...(rejectShallow !== undefined ? { rejectShallow } : {}),
      ...(separateGitDir !== undefined ? { separateGitDir } : {}),
      ...(filter !== undefined ? { filter } : {}),
      noCheckout, sparse, origin, progress: progressIf(run.showProgress),
      ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
      // -q silences "Cloning into"; what goes wrong is said all the same.
      log: (message) => { if (!quiet || /^(warning|error|info|fatal):/.test(message)) run.stderr(message); },
      checkoutOutput: (message) => { run.stderr(message); },
      onPackStored: collectGarbage,
      signal: run.signal,
      transport: uploadPack !== undefined ? { uploadPack } : {},
      ...(config.length > 0 ? { config } : {}),
    };
    try {
      if (recurse.length === 0) return (await clone(rest[0]!, options)).hookStatus;
      const result = await cloneRecursive(rest[0]!, options, {
        pathspecs: recurse, shallow: shallowSubmodules, ...(jobs !== undefined ? { jobs } : {}), quiet,
        report: { out: (text) => writeAll(1, Buffer.from(text, 'utf8')), err: run.stderr },
      });
      return result.hookStatus || result.submoduleStatus;
    } catch (e) {
      // --sparse in a bare clone: git's `sparse-checkout init` dies, and the clone stops with status 1.
      if (!(e instanceof GitError && e.code === 'sparse-init-failed')) throw e;
      run.stderr(`fatal: ${e.message}\n`);
      return 1;
    }
  }, (e, run) => {
    // Interrupted during checkout, the repository stays, as git leaves it; say so.
    if (e instanceof GitError && e.code === 'checkout-failed') run.stderr(`fatal: ${e.message}\n`);
  });
}
