// tsgit checkout [-q] [-f] [--[no-]progress] [(-b|-B) <new-branch>] [-t|--track[=(direct|inherit)]|--no-track]
//                [<branch>|<commit>]: fills a
// work tree that has not been written yet (no index, as after `clone -n`) from HEAD or the named
// commit, or switches an existing work tree to another commit, refusing to lose local changes
// unless -f. A branch name also points HEAD at the branch; any other commit detaches HEAD. -b
// creates a branch at the commit first (-B resets one that exists), with the upstream git's
// branch.autoSetupMerge or --[no-]track gives it (checkout-tracking.ts); --[no-]track without -b
// names the new branch after the remote-tracking branch checked out. The local changes a switch
// carried over are listed, and a branch checked out is then reported on against its upstream
// (tracking-info.ts), on stdout as git does. With paths (checkout-arguments.ts tells them from a
// branch or commit as git does), those paths are restored from the index or a tree-ish instead
// (checkout-paths.ts).
import fs from 'node:fs';
import path from 'node:path';
import { GitError, OptionError, UsageError } from '../../core/errors.js';
import { fromHex, toHex, ZERO_HEX } from '../../core/oid.js';
import { OBJ_COMMIT } from '../../object/type.js';
import { fetchPromisedForCheckout } from '../../client/promised-objects.js';
import { checkedOutAt } from '../../repository/linked-worktrees.js';
import type { Repository } from '../../repository/repository.js';
import type { Config } from '../../config/index.js';
import { postCheckout } from '../../worktree/post-checkout.js';
import { checkRefFormat, reflogAction } from '../../refs/index.js';
import { shortBranchName } from '../../refs/branch-name.js';
import { refuseBadDefaultConfig } from '../bad-config-variable.js';
import { checkoutArguments } from '../checkout-arguments.js';
import { checkoutPathsCommand } from '../checkout-paths.js';
import { configuredTrackMode, setupTracking, trackableStart, type TrackMode } from '../checkout-tracking.js';
import { checkoutTree, indexPath } from '../../worktree/checkout.js';
import { switchTree } from '../../worktree/switch.js';
import { localChanges } from '../../worktree/local-changes.js';
import { quoteCStyle } from '../quote.js';
import { configuredAbbreviator } from '../abbrev.js';
import { described, DETACHED_HEAD_ADVICE, leavingDetached } from '../detached-head.js';
import { fatal, type CommandContext } from '../context.js';
import { parseOptions } from '../parse-options.js';
import { progressIf, progressWanted } from '../progress.js';
import { writeAll } from '../output.js';
import { configuredUpstream, trackingInfo } from '../tracking-info.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Write the work tree and index of a branch or commit',
  synopsis: ['[-q] [-f] [--[no-]progress] [--ignore-other-worktrees] [<branch> | <commit>]',
    '[-q] [-f] [--[no-]progress] [--[no-]track] (-b | -B) <new-branch> [<start-point>]',
    '[-q] [-f] [--[no-]progress] --detach [<branch> | <commit>]',
    '[-q] [-f] [--[no-]progress] (-t | --track | --no-track) <remote-tracking-branch>',
    '[-q] [-f] [<tree-ish>] [--] <pathspec>...'],
  options: [
    ['-b <branch>', 'create and checkout a new branch'],
    ['-B <branch>', 'create/reset and checkout a branch'],
    ['-t, --[no-]track[=(direct|inherit)]', 'set branch tracking configuration'],
    ['--detach', 'detach HEAD at named commit'],
    ['-q, --quiet', 'suppress progress reporting'],
    ['-f, --force', 'force checkout (throw away local modifications; with paths, pass over unmerged ones)'],
    ['--ignore-other-worktrees', 'do not check if another worktree is holding the given ref'],
    ['--[no-]progress', 'force progress reporting'],
  ],
};

/** Refusals that leave the work tree untouched, which git reports from unpack-trees with status 1. */
const REFUSALS = new Set(['local-changes', 'untracked-in-the-way', 'not-empty', 'unsafe-path']);

export default async function checkout(ctx: CommandContext, args: string[]): Promise<number> {
  // git's setup finds the repository and its work tree, and git reads its configuration (dying on
  // a value git_default_config refuses), before the options are looked at.
  const repo = ctx.repository();
  if (!repo.workTree) throw fatal('this operation must be run in a work tree');
  const config = repo.loadConfig(ctx.env);
  refuseBadDefaultConfig(ctx, config);
  let quiet = false, force = false, ignoreOtherWorktrees = false, detach = false, progressFlag: boolean | undefined;
  let create = null as { name: string; reset: boolean } | null;
  // Unset: branch.autoSetupMerge decides.
  let track: TrackMode | undefined;
  const rest = parseOptions(args, (name, value, inline) => {
    switch (name) {
      case '-t': track = 'explicit'; break;
      case '--track':
        if (inline !== undefined && inline !== 'direct' && inline !== 'inherit') throw new OptionError(`option \`--track' expects "direct" or "inherit"`);
        track = inline === 'inherit' ? 'inherit' : 'explicit';
        break;
      case '--no-track': track = 'never'; break;
      case '-q': case '--quiet': quiet = true; break;
      case '-f': case '--force': force = true; break;
      case '--progress': progressFlag = true; break;
      case '--no-progress': progressFlag = false; break;
      case '--ignore-other-worktrees': ignoreOtherWorktrees = true; break;
      case '--detach': detach = true; break;
      case '-b': case '-B': create = { name: value(), reset: name === '-B' }; break;
      default: return false;
    }
    return true;
  }, { keepDashDash: true, missingValue: (name) => new UsageError(`switch \`${name.slice(1)}' requires a value`) });
  // git's --[no-]track without -b: the branch is named after the remote-tracking branch, less its remote.
  if (track !== undefined && !create) {
    const start = rest[0];
    if (start === undefined || start === '--') throw fatal('--track needs a branch name');
    const short = start.replace(/^refs\//, '').replace(/^remotes\//, '');
    const slash = short.indexOf('/');
    if (slash < 0 || slash === short.length - 1) throw fatal('missing branch name; try -b');
    create = { name: short.slice(slash + 1), reset: false };
  }
  const newBranch = create;
  const given = checkoutArguments(repo, ctx.cwd, rest, { dwim: !newBranch, quiet, env: ctx.env });
  const env = filterEnvironment(ctx, repo.workTree);
  if (given.paths.length) {
    // git's checkout_main, then checkout_paths: what cannot go with paths, in git's order.
    if (newBranch && given.paths.length === 1 && given.target === null) {
      throw fatal(`'${given.paths[0]}' is not a commit and a branch '${newBranch.name}' cannot be created from it`);
    }
    if (detach) throw fatal(`git checkout: --detach does not take a path argument '${given.paths[0]}'`);
    if (track !== undefined) throw fatal(`'--track' cannot be used with updating paths`);
    if (newBranch) throw fatal(`Cannot update paths and switch to branch '${newBranch.name}' at the same time.`);
    return checkoutPathsCommand(ctx, repo, config, { treeish: given.target, paths: given.paths, quiet, force, countPaths: given.countPaths, env });
  }
  const refs = repo.openRefs(ctx.env);
  const head = refs.head();

  // What to check out: with -b/-B, a new branch at the start point; else a local branch by name,
  // else any revision naming a commit, else (git's DWIM) a new branch from the one
  // remote-tracking branch of that name.
  const spec = given.target ?? 'HEAD';
  const revs = repo.revs();
  let branch: string | null = null;
  // A branch this checkout creates or resets, and what its reflog says it came from.
  let creating: { reset: boolean; from: string } | null = null;
  // The remote-tracking branch checked out or started from, which filters are told of.
  let remoteStart: string | null = null;
  let commit: Uint8Array;
  const local = !newBranch && !detach && spec !== 'HEAD' ? repo.resolveRef(`refs/heads/${spec}`) : null;
  if (newBranch) {
    const name = newBranch.name;
    if (name === 'HEAD' || name.startsWith('-') || checkRefFormat(`refs/heads/${name}`) !== null) throw fatal(`'${name}' is not a valid branch name`);
    branch = `refs/heads/${name}`;
    if (spec === 'HEAD' && head.oid === null) {
      // A repository without commits (`init`, then `checkout -b main`): HEAD is renamed, as in git.
      refs.setSymbolic('HEAD', branch);
      if (!quiet) say(`Switched to a new branch '${name}'`);
      return 0;
    }
    const exists = repo.resolveRef(branch) !== null;
    if (exists && !newBranch.reset) throw fatal(`a branch named '${name}' already exists`);
    const id = revs.tryResolve(spec);
    if (!id) throw fatal(`'${spec}' is not a commit and a branch '${name}' cannot be created from it`);
    commit = revs.peel(id, OBJ_COMMIT, spec);
    // As git's checkout_branch: judged once the start point is, so a bad one is what is reported.
    if (detach) throw fatal(`'--detach' cannot be used with '-b/-B/--orphan'`);
    creating = { reset: exists, from: spec };
    const named = spec === 'HEAD' ? null : namedRef(repo, spec);
    if (named?.startsWith('refs/remotes/')) remoteStart = named;
  } else if (local) {
    branch = `refs/heads/${spec}`;
    commit = revs.peel(fromHex(local)!, OBJ_COMMIT, spec);
  } else if (given.remote !== null) {
    // git's DWIM has named a new branch by then.
    if (detach) throw fatal(`'--detach' cannot be used with '-b/-B/--orphan'`);
    remoteStart = given.remote;
    branch = `refs/heads/${spec}`;
    commit = revs.peel(fromHex(repo.resolveRef(given.remote)!)!, OBJ_COMMIT, spec);
    // git starts it from the full name, and its reflog says so.
    creating = { reset: false, from: given.remote };
  } else {
    const id = revs.tryResolve(spec);
    if (!id) throw fatal('You are on a branch yet to be born');
    commit = revs.peel(id, OBJ_COMMIT, spec);
    if (spec === 'HEAD' && !detach) branch = head.symref;
  }

  // One branch, one work tree: another one's HEAD would go stale under it (git's die_if_checked_out).
  if ((local || creating?.reset) && branch && !ignoreOtherWorktrees) {
    const at = checkedOutAt(repo.commonDir, branch, repo.gitDir);
    if (at !== null) throw fatal(`'${shortBranchName(branch)}' is already checked out at '${at}'`);
  }

  const show = progressFlag ?? progressWanted({ quiet });
  const progress = progressIf(show);
  const indexFile = indexPath(repo.gitDir, ctx.env);
  // git names the branch or remote-tracking ref being checked out to filters, not a tag or commit.
  const named = remoteStart ?? (spec === 'HEAD' ? null : branch ?? namedRef(repo, spec));
  const ref = named ? { ref: named } : {};
  const switching = fs.existsSync(indexFile);
  // git 2.39's skip_merge_working_tree: `-b <new-branch>` alone, at HEAD's commit, leaves the index
  // and the work tree as they are, and lists nothing.
  const stay = switching && newBranch !== null && !newBranch.reset && given.target === null && !force && !ignoreOtherWorktrees;
  if (!stay) {
    let messages: string[];
    // A partial clone first fetches what it is about to write, as git does on demand.
    await fetchPromisedForCheckout(repo, toHex(commit), env, ctx.cwd);
    try {
      if (!switching) {
        ({ messages } = await checkoutTree(repo, commit, { force, env, ...ref, progress }));
      } else {
        const oldCommit = head.oid ? fromHex(head.oid) : null;
        ({ messages } = await switchTree(repo, oldCommit, commit, { force, env, ...ref, progress }));
      }
    } catch (e) {
      // A checkout refused before anything was written is git's unpack-trees error: "error:" and
      // status 1, HEAD and the work tree as they were (scripts tell it from a fatal 128).
      if (e instanceof GitError && REFUSALS.has(e.code)) {
        say(`error: ${e.message}`);
        return 1;
      }
      throw e;
    }
    for (const m of messages) say(m);
    // git lists the local changes a switch carried over (not a first checkout, nor -f's, which drops them).
    if (switching && !quiet && !force) {
      const quotePath = config.getBool('core', null, 'quotepath') ?? true;
      const lines = (await localChanges(repo, commit, ctx.env)).map(c => Buffer.concat([Buffer.from(`${c.status}\t`), quoteCStyle(c.path, quotePath), Buffer.from('\n')]));
      if (lines.length) writeAll(1, Buffer.concat(lines));
    }
  }
  const newHex = toHex(commit);
  const abbrev = configuredAbbreviator(repo.odb, config);
  const adviseDetached = config.getBool('advice', null, 'detachedhead') ?? true;
  if (!quiet && head.symref === null && head.oid !== null && head.oid !== newHex) {
    say(leavingDetached(repo, refs.list('refs/'), fromHex(head.oid)!, commit, abbrev, adviseDetached));
  }

  // Move HEAD: a branch makes it symbolic, anything else detaches it. A branch -b, -B or DWIM makes
  // is written first, with its tracking configuration.
  const from = head.symref ? shortBranchName(head.symref) : head.oid ?? 'HEAD';
  // GIT_REFLOG_ACTION, when set, is HEAD's whole entry, as in git's update_refs_for_switch.
  const message = reflogAction(ctx.env, `checkout: moving from ${from} to ${branch ? shortBranchName(branch) : spec}`);
  // What the branch is reported against: git reads the remotes once, so a branch this checkout
  // sets up to track is reported on with the upstream it had before (none for a new one).
  let upstreamBefore: string | null = null;
  if (creating && branch) {
    const name = shortBranchName(branch);
    // git's create_branch: the start point is judged (and --track of a tag dies) only now, with the
    // work tree switched; the upstream is set once the branch is made.
    const remotes = repo.remotesConfig(ctx.env);
    upstreamBefore = configuredUpstream(repo, name, ctx.env);
    const mode = track ?? configuredTrackMode(remotes);
    const start = trackableStart(repo, remotes, creating.from, mode);
    refs.update(branch, newHex, {
      ...(creating.reset ? {} : { oldOid: null }),
      reflogMessage: creating.reset ? `branch: Reset to ${creating.from}` : `branch: Created from ${creating.from}`,
    });
    if (start !== null) {
      const note = setupTracking(remotes, name, start, mode);
      if (note.err) writeAll(2, Buffer.from(note.err, 'utf8'));
      // git prints this one on stdout.
      if (!quiet && note.out) writeAll(1, Buffer.from(note.out, 'utf8'));
    }
  }
  if (branch) {
    const name = shortBranchName(branch);
    // git writes HEAD (and its reflog) even for the branch it is on, unless no branch was named.
    if (spec !== 'HEAD' || creating) {
      refs.setSymbolic('HEAD', branch, { reflogMessage: message });
      if (!quiet) {
        say(creating?.reset ? (head.symref === branch ? `Reset branch '${name}'` : `Switched to and reset branch '${name}'`)
          : creating ? `Switched to a new branch '${name}'`
            : head.symref === branch ? `Already on '${name}'` : `Switched to branch '${name}'`);
      }
    }
    if (!quiet) reportTracking(repo, config, name, creating ? upstreamBefore : configuredUpstream(repo, name, ctx.env));
  } else {
    if (head.symref !== null || head.oid !== newHex) refs.update('HEAD', newHex, { noDeref: true, reflogMessage: message });
    if (!quiet && (spec !== 'HEAD' || detach)) {
      // Only leaving a branch earns the advice, not moving a detached HEAD, nor asking for it.
      if (head.symref !== null && adviseDetached && !detach) say(`Note: switching to '${spec}'.\n\n${DETACHED_HEAD_ADVICE}`);
      say(described(repo, 'HEAD is now at', commit, abbrev));
      // git reports on a branch named with --detach as if it had been switched to (its
      // setup_branch_path names it, and report_tracking follows the name).
      if (detach && spec !== 'HEAD') reportTracking(repo, config, spec, configuredUpstream(repo, spec, ctx.env));
    }
  }
  const hook = await postCheckout({
    commonDir: repo.commonDir, workTree: repo.workTree, config, env, gitDirEnv: null,
    log: (text) => writeAll(2, Buffer.from(text, 'utf8')),
  }, head.oid ?? ZERO_HEX, newHex);
  return hook === 0 ? 0 : 1;
}

/**
 * The environment filters run in (in the work tree) as git gives it to them: GIT_PREFIX, and
 * GIT_DIR (absolute) when it was given.
 */
function filterEnvironment(ctx: CommandContext, workTree: string): NodeJS.ProcessEnv {
  const prefix = path.relative(workTree, ctx.cwd);
  const gitDirGiven = ctx.gitDir ?? ctx.env.GIT_DIR;
  return {
    ...ctx.env,
    GIT_PREFIX: prefix && !prefix.startsWith('..') ? `${prefix}/` : '',
    ...gitDirGiven ? { GIT_DIR: path.resolve(ctx.cwd, gitDirGiven) } : {},
  };
}

/** The branch or remote-tracking ref `spec` names (in full or as `<remote>/<branch>`), if any. */
function namedRef(repo: Repository, spec: string): string | null {
  for (const name of [spec, `refs/remotes/${spec}`]) {
    if ((name.startsWith('refs/heads/') || name.startsWith('refs/remotes/')) && repo.resolveRef(name)) return name;
  }
  return null;
}

/** git's report_tracking: how `branch` stands against `upstream`, on stdout; nothing without one. */
function reportTracking(repo: Repository, config: Config, branch: string, upstream: string | null): void {
  if (upstream === null) return;
  const hints = config.getBool('advice', null, 'statushints') ?? true;
  writeAll(1, Buffer.from(trackingInfo(repo, branch, upstream, hints), 'utf8'));
}

function say(line: string): void {
  writeAll(2, Buffer.from(line + '\n', 'utf8'));
}
