// What checkout's arguments name, as git's parse_branchname_arg reads them: with `--` second, the
// first is a revision (`invalid reference` otherwise) and the rest paths; with `--` first, all
// are paths; without, the first is a revision when it resolves (a branch taken before a file of
// its name, though with paths after it a file of its name makes it ambiguous), or when it is the
// name of one remote's branch (git's DWIM, which makes a local branch of it), and else a path.
// `-` is `@{-1}`, and `@{-<n>}` names the branch (or commit) checked out before, as git's
// strbuf_branchname expands it: so it switches to that branch rather than detaching at its tip.
import fs from 'node:fs';
import path from 'node:path';
import type { Repository } from '../repository/repository.js';
import { checkRefFormat } from '../refs/index.js';
import { fatal } from './context.js';
import { GLOB_SPECIAL } from '../core/wildmatch.js';

export interface CheckoutArguments {
  /** The branch or commit to switch to, or the tree-ish paths come from; null: none named. */
  target: string | null;
  /** The remote-tracking branch a new branch named `target` is made from (DWIM), if any. */
  remote: string | null;
  paths: string[];
  /** Whether to say how many paths were updated: not with -q nor with `--` (git's count_checkout_paths). */
  countPaths: boolean;
}

/**
 * Splits `args` (the options taken out, `--` kept where it was). `dwim`: whether a remote's
 * branch may be named alone (not with -b, -B or --[no-]track).
 */
export function checkoutArguments(repo: Repository, cwd: string, args: readonly string[],
  o: { dwim: boolean; quiet: boolean; env: NodeJS.ProcessEnv }): CheckoutArguments {
  const none = { target: null, remote: null, countPaths: false };
  if (args.length === 0) return { ...none, paths: [] };
  const dashDash = args.indexOf('--');
  if (dashDash === 0) return { ...none, paths: args.slice(1) };
  if (dashDash >= 2) throw fatal(`only one reference expected, ${dashDash} given.`);
  const hasDashDash = dashDash === 1;
  const countPaths = !o.quiet && !hasDashDash;
  const arg = priorCheckout(repo, args[0]!);
  const rest = args.slice(hasDashDash ? 2 : 1);
  let remote: string | null = null;
  if (repo.resolveRef(`refs/heads/${arg}`) === null && repo.revs().tryResolve(arg) === null) {
    // Only `checkout <name>` and `checkout <name> --` may make a branch of a remote's, and not
    // for what could be a pattern.
    const dwim = o.dwim && rest.length === 0 && (hasDashDash || !GLOB_SPECIAL.test(arg));
    remote = dwim ? uniqueRemoteBranch(repo, arg, o.env) : null;
    if (remote === null) {
      if (hasDashDash) throw fatal(`invalid reference: ${arg}`);
      return { ...none, countPaths, paths: [...args] };
    }
    if (!hasDashDash && inWorkTree(repo, cwd, arg)) {
      throw fatal(`'${arg}' could be both a local file and a tracking branch.\nPlease use -- (and optionally --no-guess) to disambiguate`);
    }
  } else if (!hasDashDash && rest.length > 0 && inWorkTree(repo, cwd, arg)) {
    // git's verify_non_filename: `checkout <branch>` alone is never ambiguous, with paths it is.
    throw fatal(`ambiguous argument '${arg}': both revision and filename\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'`);
  }
  return { target: arg, remote, paths: rest, countPaths };
}

/**
 * What `-` or `@{-<n>}` stands for (the branch name, or the id HEAD was detached at), or `arg` as
 * given when it is neither or there was no such checkout (git then reports `arg` itself).
 */
function priorCheckout(repo: Repository, arg: string): string {
  const prior = repo.revs().priorName(arg === '-' ? '@{-1}' : arg);
  return typeof prior === 'string' ? prior : arg;
}

/** git's unique_tracking_name: the one remote-tracking branch `refs/remotes/<remote>/<name>`, if only one remote has it. */
function uniqueRemoteBranch(repo: Repository, name: string, env: NodeJS.ProcessEnv): string | null {
  if (checkRefFormat(`refs/heads/${name}`) !== null) return null;
  const depth = name.split('/').length + 3;
  const found = repo.openRefs(env).list('refs/remotes/').filter(r => r.name.endsWith(`/${name}`) && r.name.split('/').length === depth);
  return found.length === 1 ? found[0]!.name : null;
}

/** git's check_filename: whether `arg` (from the current directory, or from the top after `:/`) names something in the work tree. */
function inWorkTree(repo: Repository, cwd: string, arg: string): boolean {
  const fromTop = arg.startsWith(':/');
  if (fromTop && arg.length === 2) return true;
  try {
    fs.lstatSync(fromTop ? path.join(repo.workTree!, arg.slice(2)) : path.resolve(cwd, arg));
    return true;
  } catch {
    return false;
  }
}
