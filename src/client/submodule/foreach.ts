// `git submodule foreach [--recursive] <command>` (submodule--helper's runcommand_in_submodule):
// the command runs in each checked-out submodule, in index order, with $name, $sm_path (and $path),
// $displaypath, $sha1 (the commit the superproject records) and $toplevel (the superproject's work
// tree) set, after an "Entering '<path>'" line; with --recursive, then in that submodule's own.
// A command that fails stops everything, as git dies. CI checkouts run it to configure each
// submodule's repository.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { shellArgv } from '../../core/shell.js';
import type { Repository } from '../../repository/repository.js';
import { submoduleEnv, visitSubmodules, type SubmoduleVisitOptions } from './visit.js';

/** `command`: one word, run as git runs a command given as text (a shell for metacharacters), or a program and its arguments. */
export function foreachSubmodule(repo: Repository, command: readonly string[], o: SubmoduleVisitOptions): void {
  visitSubmodules(repo, o, ({ sp, entry, shown, gitDir, open, recurse }) => {
    const dir = gitDir();
    if (dir === null) return;
    const sub = sp.submodule(entry.path);
    if (!sub) throw new GitError('client', 'no-url', `No url found for submodule path '${shown}' in .gitmodules`);
    if (!o.quiet) o.report.out(`Entering '${shown}'\n`);
    if (command.length > 0) {
      const vars = { name: sub.name, sm_path: entry.path, displaypath: shown, sha1: entry.oid, toplevel: sp.workTree };
      const run = command.length === 1 ? shellArgv(command[0]!) : { command: command[0]!, args: command.slice(1) };
      const r = spawnSync(run.command, run.args, {
        cwd: path.join(sp.workTree, entry.path), stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...submoduleEnv(sp.env), ...vars, ...(command.length === 1 ? { path: entry.path } : {}) },
      });
      if (r.status !== 0) throw new GitError('client', 'foreach-failed', `run_command returned non-zero status for ${shown}\n.`);
    }
    if (!o.recursive) return;
    open(dir, (subRepo) => {
      try {
        recurse(subRepo);
      } catch (e) {
        // The nested run says why, and this one where: two fatal lines, as git's two processes print.
        if (!(e instanceof GitError)) throw e;
        o.report.err(`fatal: ${e.message}\n`);
        throw new GitError('client', 'foreach-failed', `run_command returned non-zero status while recursing in the nested submodules of ${shown}\n.`);
      }
    });
  });
}
