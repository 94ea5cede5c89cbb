// tsgit fetch [-q] [-v] [--progress] [--depth <n> | --deepen <n> | --unshallow] [--shallow-since <date>]
//             [--shallow-exclude <ref>...] [--update-shallow] [--[no-]prune] [-P] [--tags | --no-tags] [-f]
//             [-u | --update-head-ok] [--upload-pack <upload-pack>] [--[no-]write-fetch-head] [--dry-run] [-a]
//             [--filter <spec> | --no-filter] [--refetch] [--atomic] [--set-upstream] [--refmap <refspec>]
//             [-o <option>] [--negotiation-tip <commit | glob>...] [-j <n>]
//             [<remote> [<refspec>...] | <group> | --multiple [(<remote> | <group>)...] | --all]
// Refspecs default to remote.<name>.fetch; the report goes to stderr in git's format; the exit
// status is 1 when a ref was rejected (not for one that would need new shallow roots: git warns of
// those and exits 0) or the remote did not send everything the refs need. SIGINT, SIGTERM and
// SIGHUP stop it with no ref changed.
import os from 'node:os';
import { emptyFetchHead, fetch, type FetchOptions } from '../../client/fetch.js';
import type { ConnectOptions } from '../../transport/index.js';
import type { Config } from '../../config/index.js';
import { configuredRemotes, defaultRemote, remoteConfigWarnings, remoteOrGroup } from '../../repository/remotes.js';
import { GitError, UsageError } from '../../core/errors.js';
import { addFilter, parseFilterSpec, type FilterSpec } from '../../protocol/index.js';
import type { CommandContext } from '../context.js';
import { writeAll } from '../output.js';
import { historyShape, parseRemoteOptions, runRemoteCommand, type RemoteRun } from '../remote-command.js';
import { collectGarbage } from '../memory.js';
import type { CommandHelp } from '../help.js';
import { progressIf } from '../progress.js';
import { branchOf } from '../../refs/branch-name.js';
import { refuseBadDefaultConfig } from '../bad-config-variable.js';
import { negotiationAlgorithm } from '../../client/negotiation-algorithm.js';
import { ParallelOutput } from '../../core/parallel-output.js';

export const help: CommandHelp = {
  summary: 'Download objects and refs from another repository',
  synopsis: [
    '[<options>] [<repository> [<refspec>...]]', '[<options>] <group>',
    '--multiple [<options>] [(<repository> | <group>)...]', '--all [<options>]',
  ],
  options: [
    ['-q, --quiet', 'be more quiet'],
    ['-v, --verbose', 'be more verbose'],
    ['--progress', 'force progress reporting'],
    ['-p, --[no-]prune', 'prune remote-tracking branches no longer on remote'],
    ['-P, --[no-]prune-tags', 'prune local tags no longer on remote and clobber changed tags'],
    ['-t, --tags', 'fetch all tags and associated objects'],
    ['-n, --no-tags', 'do not fetch all tags'],
    ['-f, --force', 'force overwrite of local reference'],
    ['--depth <depth>', 'deepen history of shallow clone'],
    ['--deepen <n>', 'deepen history of shallow clone'],
    ['--shallow-since <time>', 'deepen history of shallow repository based on time'],
    ['--shallow-exclude <revision>', 'deepen history of shallow clone, excluding rev'],
    ['--unshallow', 'convert to a complete repository'],
    ['--filter <args>', 'object filtering'],
    ['--refetch', 're-fetch without negotiating common commits'],
    ['--no-recurse-submodules', 'do not fetch in submodules (tsgit never does)'],
    ['--[no-]update-shallow', 'accept refs that update .git/shallow'],
    ['--all', 'fetch from all remotes'],
    ['-m, --multiple', 'fetch from multiple remotes'],
    ['-j, --jobs <n>', 'number of remotes fetched in parallel'],
    ['--set-upstream', 'set upstream for git pull/fetch'],
    ['--atomic', 'use atomic transaction to update references'],
    ['--refmap <refmap>', 'specify fetch refmap'],
    ['-o, --server-option <server-specific>', 'option to transmit'],
    ['--negotiation-tip <revision>', 'report that we have only objects reachable from this object'],
    ['--dry-run', 'dry run'],
    ['-a, --append', 'append to .git/FETCH_HEAD instead of overwriting'],
    ['--no-auto-gc, --no-auto-maintenance, --no-write-commit-graph', 'accepted: tsgit fetch never runs maintenance or writes a commit-graph'],
    ['--[no-]write-fetch-head', 'write fetched references to the FETCH_HEAD file'],
    ['-u, --update-head-ok', 'allow updating of HEAD ref'],
    ['--upload-pack <path>', 'path to upload pack on remote end'],
  ],
};

export default async function fetchCommand(ctx: CommandContext, args: string[]): Promise<number> {
  // git's setup finds the repository, and git reads its configuration (dying on a value
  // git_default_config refuses), before the options are looked at or a remote is.
  const repo = ctx.repository();
  const settings = repo.loadConfig(ctx.env);
  refuseBadDefaultConfig(ctx, settings);
  // As git's repository settings, read at once: a value git refuses stops it here.
  negotiationAlgorithm(settings);
  const parallel = fetchParallel(settings);
  let tags = false, noTags = false, force = false, updateShallow = false, unshallow = false;
  let atomic = false, setUpstream = false, multiple = false, refmap: string[] | undefined, serverOptions: string[] = [], negotiationTips: string[] = [];
  let updateHeadOk = false, all = false, writeFetchHead = true, noRecurse = false, dryRun = false, append = false, refetch = false;
  // Unset: the remote's or fetch's configuration decides.
  let prune: boolean | undefined, pruneTags: boolean | undefined;
  let deepen: number | undefined, jobs: number | undefined;
  // Unset: the remote's partialclonefilter; null: --no-filter.
  let filter: FilterSpec | null | undefined;
  const remote = parseRemoteOptions('fetch', args, (name, value, inline) => {
    switch (name) {
      // CI checkouts pass --no-recurse-submodules; fetching inside submodules is not done.
      case '--no-recurse-submodules': noRecurse = true; break;
      case '--recurse-submodules':
        if (inline !== 'no') throw new GitError('cli', 'unsupported', `tsgit fetch does not fetch in submodules (--recurse-submodules${inline === undefined ? '' : `=${inline}`}); run 'tsgit submodule update' after it`);
        break;
      case '--deepen': {
        const text = value();
        if (!/^-?[0-9]+$/.test(text)) throw new UsageError(`option \`deepen' expects a numerical value`);
        deepen = Number(text);
        break;
      }
      case '-j': case '--jobs': {
        const text = value();
        if (!/^-?[0-9]+$/.test(text)) throw new UsageError(name === '-j' ? "switch `j' expects a numerical value" : "option `jobs' expects a numerical value");
        // Below 0: fetch.parallel says.
        jobs = Number(text);
        break;
      }
      case '--unshallow': unshallow = true; break;
      case '--filter': filter = addFilter(filter, parseFilterSpec(value())); break;
      case '--no-filter': filter = null; break;
      case '--refetch': refetch = true; break;
      case '--no-refetch': refetch = false; break;
      case '-p': case '--prune': prune = true; break;
      case '--no-prune': prune = false; break;
      case '-P': case '--prune-tags': pruneTags = true; break;
      case '--no-prune-tags': pruneTags = false; break;
      case '--dry-run': dryRun = true; break;
      case '-a': case '--append': append = true; break;
      case '--no-append': append = false; break;
      // What tsgit's fetch always does: it runs no maintenance and writes no commit-graph.
      case '--no-auto-gc': case '--no-auto-maintenance': case '--no-write-commit-graph': break;
      case '--all': all = true; break;
      case '-m': case '--multiple': multiple = true; break;
      case '--no-multiple': multiple = false; break;
      case '--atomic': atomic = true; break;
      case '--no-atomic': atomic = false; break;
      case '--set-upstream': setUpstream = true; break;
      case '--no-set-upstream': setUpstream = false; break;
      // Given empty (--refmap=), it maps the refspecs given nowhere.
      case '--refmap': (refmap ??= []).push(value()); break;
      case '--negotiation-tip': negotiationTips.push(value()); break;
      case '--no-negotiation-tip': negotiationTips = []; break;
      case '-o': case '--server-option': serverOptions.push(value()); break;
      case '--no-server-option': serverOptions = []; break;
      case '--no-all': all = false; break;
      case '--write-fetch-head': writeFetchHead = true; break;
      case '--no-write-fetch-head': writeFetchHead = false; break;
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
  const { verbosity, progress, uploadPack, rest } = remote;
  const quiet = verbosity < 0;
  // git's fetch: a relative depth is given as --deepen, and refuses --depth beside it.
  if (deepen !== undefined && deepen < 0) throw new GitError('cli', 'usage', 'negative depth in --deepen is not supported');
  if (deepen && remote.depth !== undefined) throw new GitError('cli', 'usage', "options '--deepen' and '--depth' cannot be used together");
  // git writes no FETCH_HEAD in a dry run.
  if (dryRun) writeFetchHead = false;
  const fetchHead = !writeFetchHead ? 'none' : append ? 'append' : 'write';
  const one = (run: RemoteRun, name: string | undefined, refspecs: string[], o: FetchOptions): Promise<number> => fetch(repo, {
    cwd: ctx.setupDir(), env: ctx.env, remote: name, refspecs, updateShallow, updateHeadOk, ...(prune !== undefined ? { prune } : {}),
    ...(pruneTags !== undefined ? { pruneTags } : {}), tags, noTags, force, dryRun,
    unshallow, progress: progressIf(run.showProgress), report: !quiet, verbose: verbosity > 0, refetch, ...(filter !== undefined ? { filter } : {}),
    ...(run.onRemoteProgress ? { onRemoteProgress: run.onRemoteProgress } : {}),
    log: run.stderr, onPackStored: collectGarbage, signal: run.signal,
    transport: uploadPack !== undefined ? { uploadPack } : {}, ...o,
    // git's fetch returns the ref transaction's -2 when it cannot be made, and exits with it.
  }).then((result) => (result.transactionError ? 254 : result.rejected > 0 ? 1 : 0), (e: unknown) => {
    if (e instanceof GitError && e.code === 'server-options-need-v2') run.stderr("hint: see protocol.version in 'git help config' for more details\n");
    // git's fetch reports a remote that did not send everything, or would not be asked for an
    // object it did not advertise, as an error, not a fatal one.
    if (!(e instanceof GitError) || !['missing-objects', 'unadvertised-object'].includes(e.code) || run.signal.aborted) throw e;
    run.stderr(`error: ${e.message}\n`);
    // git's --atomic transaction is begun before the objects come, and its abort says an empty error.
    if (o.atomic) run.stderr('error: \n');
    return 1;
  });
  if (all && rest.length) throw new GitError('cli', 'usage', rest.length === 1 ? 'fetch --all does not take a repository argument' : 'fetch --all does not make sense with refspecs');
  const config = repo.remotesConfig(ctx.env);
  const head = repo.refs.headTarget();
  const chosen = remotesToFetch(config, repo.commonDir, head, rest, { all, multiple });
  if ('one' in chosen) {
    return runRemoteCommand(ctx.env, { quiet, progress }, (run) => one(run, chosen.one, chosen.refspecs, {
      shape: historyShape(remote, deepen), fetchHead, reflogAction: ['fetch', ...args].join(' '),
      atomic, setUpstream, serverOptions, negotiationTips, ...(refmap ? { refmap } : {}),
    }));
  }
  const names = chosen.several;
  // git makes only the one remote it fetches itself a promisor, never each of several.
  if (filter) throw new GitError('cli', 'usage', '--filter can only be used with the remote configured in extensions.partialclone');
  if (atomic) throw new GitError('cli', 'usage', '--atomic can only be used when fetching from one remote');
  // Otherwise git runs `fetch --append --no-auto-gc --no-write-commit-graph <options> <remote>` for
  // each, with the options of add_options_to_argv (none of the history's, nor --refetch, --refmap,
  // --set-upstream, -o, --negotiation-tip or --upload-pack: each remote's own remote.<name>.uploadpack is used),
  // after emptying FETCH_HEAD; a failed one is reported and the others still fetched. tsgit
  // fetches them in this process: one after another, or with -j or fetch.parallel up to that many
  // at once, as git's run_processes_parallel runs its fetches (parallel-output.ts).
  const passed = [
    ...(dryRun ? ['--dry-run'] : []), ...(prune !== undefined ? [prune ? '--prune' : '--no-prune'] : []),
    ...(pruneTags !== undefined ? [pruneTags ? '--prune-tags' : '--no-prune-tags'] : []), ...(updateHeadOk ? ['--update-head-ok'] : []),
    ...(force ? ['--force'] : []), ...(noRecurse ? ['--no-recurse-submodules'] : []),
    ...(tags ? ['--tags'] : noTags ? ['--no-tags'] : []), ...verbosityArgs(verbosity),
    ...(writeFetchHead || dryRun ? [] : ['--no-write-fetch-head']),
  ];
  if (writeFetchHead && !append) emptyFetchHead(repo.gitDir);
  const warnings = remoteConfigWarnings(config);
  // git's fetch of each: its exit status, its messages through `run` (and the server's through `transport`).
  const each = async (run: RemoteRun, name: string, argv: string[], transport: ConnectOptions): Promise<number> => {
    // Each of git's fetch processes reads the remotes anew, and says so again.
    for (const text of warnings) run.stderr(text);
    try {
      return await one(run, name, [], {
        unshallow: false, updateShallow: false, refetch: false, fetchHead: writeFetchHead ? 'append' : 'none', transport,
        reflogAction: ['fetch', '--append', '--no-auto-gc', '--no-write-commit-graph', ...passed, ...argv].join(' '),
      });
    } catch (e) {
      if (!(e instanceof GitError) || run.signal.aborted) throw e;
      run.stderr(`fatal: ${e.message}\n`);
      return 128;
    }
  };
  const started = (name: string) => { if (!quiet) writeAll(1, Buffer.from(`Fetching ${name}\n`)); };
  const children = jobs !== undefined && jobs >= 0 ? jobs : parallel;
  return runRemoteCommand(ctx.env, { quiet, progress }, async (run) => {
    let status = 0;
    if (children === 1 || names.length === 1) {
      for (const name of names) {
        started(name);
        if (await each(run, name, [name], {}) !== 0) {
          run.stderr(`error: could not fetch ${name}\n`);
          status = 1;
        }
      }
      return status;
    }
    // Each fetch's stderr is a pipe to git, which holds it: no progress is drawn, and what one
    // says (its server too) comes out whole.
    const output = new ParallelOutput(run.stderr);
    const queue = [...names];
    const worker = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined && !run.signal.aborted; name = queue.shift()) {
        started(name);
        const out = output.start();
        const server = new TextDecoder();
        try {
          const code = await each({ showProgress: false, stderr: (t) => out.say(t), signal: run.signal }, name, ['--end-of-options', name],
            { onStderr: (chunk) => out.say(server.decode(chunk, { stream: true })) });
          if (code !== 0) {
            out.say(`could not fetch '${name}' (exit code: ${code})\n`);
            status = 1;
          }
        } finally {
          out.end();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(children === 0 ? os.availableParallelism() : children, names.length) }, worker));
    return status;
  });
}

/**
 * git's fetch.parallel, read as git reads its fetch configuration, before anything else: how many
 * remotes --multiple and --all fetch at once (0: one for each CPU; default 1).
 */
function fetchParallel(config: Config): number {
  const n = config.getInt('fetch', null, 'parallel') ?? 1;
  if (n < 0) throw new GitError('cli', 'bad-config', 'fetch.parallel cannot be negative');
  return n;
}

/** The verbosity passed on to each remote's fetch, as git's add_options_to_argv gives it: -v twice at most. */
function verbosityArgs(level: number): string[] {
  return level < 0 ? ['-q'] : Array<string>(Math.min(level, 2)).fill('-v');
}

/**
 * git's cmd_fetch choosing what to fetch: `one` remote (a name or address, undefined for the
 * default) with its refspecs, which it fetches itself, or `several` remotes fetched one by one as
 * git's fetch_multiple runs them: --all's (but those with remote.<name>.skipFetchAll, and when
 * that leaves one, it alone), --multiple's remotes and groups, or a group of more than one.
 */
function remotesToFetch(config: Config, commonDir: string, head: string | null, rest: readonly string[],
  o: { all: boolean; multiple: boolean }): { one: string | undefined; refspecs: string[] } | { several: string[] } {
  let names: string[];
  if (o.all) {
    names = configuredRemotes(config).filter((r) => !r.skipFetchAll).map((r) => r.name);
    if (names.length === 1) return { one: names[0], refspecs: [] };
  } else if (rest.length === 0) {
    // None where a bare fetch finds no remote to default to (git's remote_get(NULL) giving none).
    if (defaultRemote(config, commonDir, branchOf(head)) === null) return { several: [] };
    return { one: undefined, refspecs: [] };
  } else if (o.multiple) {
    names = rest.flatMap((name) => {
      const found = remoteOrGroup(config, commonDir, name);
      if (found === null) throw new GitError('cli', 'usage', `no such remote or remote group: ${name}`);
      return found;
    });
  } else {
    // A group of one, or none, is no group: its name is fetched as a remote's, or as an address.
    names = remoteOrGroup(config, commonDir, rest[0]!) ?? [];
    if (names.length <= 1) return { one: rest[0], refspecs: rest.slice(1) };
    if (rest.length > 1) throw new GitError('cli', 'usage', 'fetching a group and specifying refspecs does not make sense');
  }
  // git 2.39 fetches a remote named twice, or in two groups, twice.
  return { several: names };
}
