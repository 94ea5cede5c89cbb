// `git submodule update [--init] [--recursive]` (submodule--helper's update_submodules), in-process:
//   init (when asked) -> for each listed gitlink: skip the unmerged, the unknown, the inactive and
//   `update = none` ones -> clone the missing ones, up to `jobs` at once, each failure retried once
//   after the rest (a second failure stops everything) -> then in index order: check the path
//   again, set core.worktree, and unless HEAD already is the recorded commit, fetch (all refs, then
//   the commit by id if still unreachable) and check it out detached -> recurse.
// Everything a submodule triggers runs as git runs it: with GIT_PROTOCOL_FROM_USER=0 (so
// protocol.file.allow=user refuses local clones, CVE-2022-39253) and without the superproject's
// repository variables (GIT_DIR, GIT_INDEX_FILE, ...), but with its command-line configuration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { NO_DEEPEN } from '../../protocol/index.js';
import { isGitDirectory } from '../../repository/discover.js';
import { Repository } from '../../repository/repository.js';
import { clone } from '../clone.js';
import { fetch } from '../fetch.js';
import { checkoutDetached, isTipReachable } from './checkout.js';
import { parseUpdateStrategy, type Submodule } from './gitmodules.js';
import { initSubmodules, submodulesToInit, type Reporter } from './init.js';
import { RefusedPath, connectWorkTreeAndGitDir, setCoreWorktree, submoduleGitDir, validateSubmoduleGitDir, validateSubmodulePath } from './paths.js';
import { submoduleDefaultRemote, type Superproject, type ListedSubmodule } from './superproject.js';
import { displayPath, listSubmodules, nestedOptions, submoduleEnv, type SubmoduleVisitOptions } from './visit.js';
import type { Progress } from '../../core/progress.js';
import { ParallelOutput } from '../../core/parallel-output.js';

export interface SubmoduleUpdateOptions extends SubmoduleVisitOptions {
  readonly init?: boolean;
  /** --require-init (what clone --recurse-submodules asks for): init, and clone only into empty directories. */
  readonly requireInit?: boolean;
  /** Shallow clones and fetches of this depth. */
  readonly depth?: number;
  /** Follow submodule.<name>.shallow (default true; --no-recommend-shallow turns it off). */
  readonly recommendShallow?: boolean;
  /** Clones at once; default submodule.fetchJobs, else 1; 0 means one per CPU. */
  readonly jobs?: number;
  readonly singleBranch?: boolean;
  /** Check out even when HEAD already is the recorded commit, discarding local changes. */
  readonly force?: boolean;
  /** Meters for each submodule's clone (the CLI's stderr with --progress). */
  readonly progress?: Progress;
  readonly signal?: AbortSignal;
  readonly onPackStored?: () => void;
}

interface Planned {
  readonly entry: ListedSubmodule;
  readonly sub: Submodule & { path: string };
  readonly url: string;
  readonly justCloned: boolean;
  readonly shown: string;
}

/** Returns git's exit status: 0, or 1 when a clone failed twice or a nested update failed. */
export async function updateSubmodules(repo: Repository, o: SubmoduleUpdateOptions): Promise<number> {
  const report = o.report;
  const { sp, list } = listSubmodules(repo, o);
  const paths = o.paths ?? [];
  const shownPath = (p: string) => displayPath(p, o.prefix, o.superPrefix);
  if (o.init || o.requireInit) {
    initSubmodules(sp, submodulesToInit(sp, list, paths.length > 0), { quiet: o.quiet ?? false, displayPath: shownPath, report });
  }
  const subEnv = submoduleEnv(sp.env);
  const plan = planUpdates(sp, list, paths.length > 0, shownPath, report);
  const jobs = o.jobs ?? sp.config.getInt('submodule', null, 'fetchjobs') ?? sp.gitmodules.fetchJobs ?? 1;
  if (!await cloneMissing(sp, plan.filter((p) => p.justCloned), jobs === 0 ? os.availableParallelism() : jobs, subEnv, o)) return 1;
  let status = 0;
  for (const p of plan) {
    validateSubmodulePath(sp.workTree, p.sub.path);
    const gitDir = submoduleGitDir(sp.workTree, p.sub.path);
    if (!gitDir) throw new GitError('client', 'no-repository', `could not get a repository handle for submodule '${p.sub.path}'`);
    const subRepo = new Repository(gitDir, path.join(sp.workTree, p.sub.path));
    try {
      if (subRepo.config.get('core', null, 'worktree') === undefined) setCoreWorktree(gitDir, subRepo.workTree!);
      status = Math.max(status, await updateOne(sp, subRepo, p, subEnv, o));
    } finally {
      subRepo.close();
    }
  }
  return status;
}

/** prepare_to_clone_next_submodule, for every listed gitlink: what to update, and whether to clone it. */
function planUpdates(sp: Superproject, list: readonly ListedSubmodule[], named: boolean, shownPath: (p: string) => string,
  report: Reporter): Planned[] {
  const plan: Planned[] = [];
  for (const entry of list) {
    const shown = shownPath(entry.path);
    if (entry.stage !== 0) {
      report.err(`Skipping unmerged submodule ${shown}\n`);
      continue;
    }
    const sub = sp.submodule(entry.path);
    if (!sub || !sp.isActive(entry.path)) {
      // Only paths asked for by name are mentioned.
      if (named) report.err(`Submodule path '${shown}' not initialized\nMaybe you want to use 'update --init'?\n`);
      continue;
    }
    if (updateStrategy(sp, sub, false) === 'none') {
      report.err(`Skipping submodule '${shown}'\n`);
      continue;
    }
    const url = sp.config.get('submodule', sub.name, 'url') ?? (sub.url !== null ? sp.resolveUrl(sub.url, (m) => report.err(`warning: ${m}\n`)) : null);
    if (!url) throw new GitError('client', 'no-url', `cannot clone submodule '${sub.name}' without a URL`);
    const justCloned = !fs.existsSync(path.join(sp.workTree, entry.path, '.git'));
    plan.push({ entry, sub: sub as Submodule & { path: string }, url, justCloned, shown });
  }
  return plan;
}

/** git's determine_submodule_update_strategy: config, else `.gitmodules`, else checkout. */
function updateStrategy(sp: Superproject, sub: Submodule, justCloned: boolean): string {
  const configured = sp.config.get('submodule', sub.name, 'update');
  let strategy: string;
  if (configured !== undefined) {
    if (parseUpdateStrategy(configured) === null) {
      throw new GitError('client', 'bad-config', `Invalid update mode '${configured}' configured for submodule path '${sub.path}'`);
    }
    strategy = configured;
  } else {
    strategy = sub.update ?? 'checkout';
  }
  if (justCloned && (strategy === 'merge' || strategy === 'rebase' || strategy === 'none')) strategy = 'checkout';
  return strategy;
}

/**
 * Clones the planned submodules, `jobs` at once, their output ordered as git's
 * run_processes_parallel orders it (parallel-output.ts). False when one failed twice.
 */
async function cloneMissing(sp: Superproject, todo: readonly Planned[], jobs: number, env: NodeJS.ProcessEnv,
  o: SubmoduleUpdateOptions): Promise<boolean> {
  const queue = todo.map((p) => ({ p, retry: false }));
  let stop = false;
  // One listener on the caller's signal for all clones (each clone and its index-pack add theirs to
  // the job's own signal), so that many jobs do not pile listeners onto one signal.
  const running = new Set<AbortController>();
  const onAbort = () => { for (const c of running) c.abort(); };
  const output = new ParallelOutput((t) => o.report.err(t));
  o.signal?.addEventListener('abort', onAbort);
  const worker = async () => {
    for (let job = queue.shift(); job && !stop; job = queue.shift()) {
      const controller = new AbortController();
      running.add(controller);
      if (o.signal?.aborted) controller.abort();
      const out = output.start();
      const say = (t: string) => out.say(t);
      try {
        await cloneSubmodule(sp, job.p, env, { ...o, signal: controller.signal }, say);
      } catch (e) {
        if (!(e instanceof GitError) || o.signal?.aborted) throw e;
        // As git's messages: a refused path is an error before anything was tried; a refused
        // git directory or a clone that failed are fatal to that submodule's clone.
        if (e instanceof RefusedPath) {
          if (e.detail !== null) say(`error: ${e.detail}\n`);
          say(`${e.code === 'unsafe-path' ? 'error' : 'fatal'}: ${e.message}\n`);
        } else {
          say(`fatal: ${e.message}\n`);
          if (e.code !== 'not-empty') say(`fatal: clone of '${job.p.url}' into submodule path '${path.join(sp.workTree, job.p.sub.path)}' failed\n`);
        }
        if (!job.retry) {
          say(`Failed to clone '${job.p.entry.path}'. Retry scheduled\n`);
          queue.push({ p: job.p, retry: true });
        } else {
          say(`Failed to clone '${job.p.entry.path}' a second time, aborting\n`);
          stop = true;
        }
      } finally {
        running.delete(controller);
        out.end();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, todo.length)) }, worker));
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  return !stop;
}

function isNonEmptyDirectory(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/** submodule--helper clone: a --no-checkout clone into `.git/modules/<name>`, tied to the path. */
async function cloneSubmodule(sp: Superproject, p: Planned, env: NodeJS.ProcessEnv, o: SubmoduleUpdateOptions,
  say: (text: string) => void): Promise<void> {
  const target = path.join(sp.workTree, p.sub.path);
  validateSubmodulePath(sp.workTree, p.sub.path);
  const modules = path.join(sp.commonDir, 'modules');
  const gitDir = sp.moduleGitDir(p.sub.name);
  validateSubmoduleGitDir(modules, p.sub.name);
  const notEmpty = () => new GitError('client', 'not-empty', `directory not empty: '${target}'`);
  if (!fs.existsSync(gitDir)) {
    if (o.requireInit && isNonEmptyDirectory(target)) throw notEmpty();
    const shallow = (o.recommendShallow ?? true) && p.sub.shallow === true;
    await clone(p.url, {
      directory: target, separateGitDir: gitDir, noCheckout: true, cwd: sp.workTree, env,
      shape: { ...NO_DEEPEN, depth: shallow ? 1 : o.depth ?? 0 },
      ...(o.singleBranch !== undefined ? { singleBranch: o.singleBranch } : {}),
      ...(o.progress ? { progress: o.progress } : {}),
      log: (m) => { if (!o.quiet || /^(warning|fatal):/.test(m)) say(m); },
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onPackStored ? { onPackStored: o.onPackStored } : {}),
    });
    if (o.requireInit && fs.readdirSync(target).some((n) => n !== '.git')) {
      fs.rmSync(path.join(target, '.git'), { force: true });
      throw notEmpty();
    }
  } else {
    if (!isGitDirectory(gitDir)) throw new GitError('client', 'nested-gitdir', `'${gitDir}' exists and is not a git directory`);
    if (o.requireInit && isNonEmptyDirectory(target)) throw notEmpty();
    fs.mkdirSync(target, { recursive: true });
    fs.rmSync(path.join(gitDir, 'index'), { force: true });
  }
  // Again, now that it exists: a parallel clone may have made the directory nested meanwhile.
  try {
    validateSubmoduleGitDir(modules, p.sub.name);
  } catch (e) {
    fs.rmSync(path.join(gitDir, 'HEAD'), { force: true });
    throw e;
  }
  connectWorkTreeAndGitDir(target, gitDir);
}

/** update_submodule for one path; returns 1 when a nested update failed without a fatal error. */
async function updateOne(sp: Superproject, subRepo: Repository, p: Planned, env: NodeJS.ProcessEnv,
  o: SubmoduleUpdateOptions): Promise<number> {
  const report = o.report;
  const strategy = updateStrategy(sp, p.sub, p.justCloned);
  const head = p.justCloned ? null : subRepo.refs.head().oid;
  if (!p.justCloned && head === null) throw new GitError('client', 'no-head', `Unable to find current revision in submodule path '${p.shown}'`);
  const oid = p.entry.oid;
  if (oid !== head || o.force) {
    if (strategy !== 'checkout') {
      throw new GitError('client', 'unsupported', `submodule.${p.sub.name}.update is '${strategy}': tsgit updates submodules only by checkout`);
    }
    await fetchIfUnreachable(subRepo, p, env, o);
    try {
      await checkoutDetached(subRepo, oid, head === null || (o.force ?? false), env);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      report.err(`fatal: ${e.message}\n`);
      throw new GitError('client', 'checkout-failed', `Unable to checkout '${oid}' in submodule path '${p.shown}'`, { cause: e });
    }
    if (!o.quiet) report.out(`Submodule path '${p.shown}': checked out '${oid}'\n`);
  }
  if (!o.recursive) return 0;
  try {
    const status = await updateSubmodules(subRepo, nestedOptions(o, p.shown));
    if (status !== 0) report.err(`fatal: Failed to recurse into submodule path '${p.shown}'\n`);
    return status;
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    report.err(`fatal: ${e.message}\n`);
    throw new GitError('client', 'recurse-failed', `Failed to recurse into submodule path '${p.shown}'`, { cause: e });
  }
}

/**
 * run_update_procedure's fetches: when the commit is missing or no ref reaches it, a plain fetch;
 * if that did not bring it, a fetch of the commit itself by id (which the server must allow:
 * always in protocol v2 for git, uploadpack.allowReachableSHA1InWant or allowAnySHA1InWant in v0).
 */
async function fetchIfUnreachable(subRepo: Repository, p: Planned, env: NodeJS.ProcessEnv, o: SubmoduleUpdateOptions): Promise<void> {
  const oid = p.entry.oid;
  if (isTipReachable(subRepo, oid)) return;
  const common = {
    cwd: subRepo.workTree!, env, report: !o.quiet, log: o.report.err,
    shape: { ...NO_DEEPEN, depth: o.depth ?? 0 }, ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onPackStored ? { onPackStored: o.onPackStored } : {}),
  };
  try {
    await fetch(subRepo, common);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    o.report.err(`fatal: ${e.message}\n`);
    if (!o.quiet) o.report.err(`Unable to fetch in submodule path '${p.shown}'; trying to directly fetch ${oid}:\n`);
  }
  if (isTipReachable(subRepo, oid)) return;
  const remote = submoduleDefaultRemote(subRepo, subRepo.config);
  try {
    await fetch(subRepo, { ...common, remote, refspecs: [oid] });
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    o.report.err(`fatal: ${e.message}\n`);
    throw new GitError('client', 'fetch-failed',
      `Fetched in submodule path '${p.shown}', but it did not contain ${oid}. Direct fetching of that commit failed.`, { cause: e });
  }
}
