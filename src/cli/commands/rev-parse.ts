// tsgit rev-parse: object names to ids (with ^, ~, ^{type}, :path, A..B, ^A), plus the repository
// queries scripts use most (--git-dir, --git-common-dir, --show-toplevel, --is-bare-repository,
// --verify, -q).
import path from 'node:path';
import { toHex } from '../../core/oid.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'Pick out and massage parameters',
  synopsis: ['[--verify] [-q | --quiet] <rev>...', '(--git-dir | --absolute-git-dir | --git-common-dir | --show-toplevel | --is-bare-repository | --is-inside-work-tree)'],
  options: [
    ['--verify', 'verify that exactly one parameter is given and is a usable object name'],
    ['-q, --quiet', 'with --verify, exit 1 quietly when it is not'],
    ['--git-dir', 'show $GIT_DIR if defined, else the path to the .git directory'],
    ['--absolute-git-dir', 'like --git-dir, but absolute'],
    ['--git-common-dir', 'show $GIT_COMMON_DIR if defined, else $GIT_DIR'],
    ['--show-toplevel', 'show the absolute path of the top of the work tree'],
    ['--is-bare-repository', '"true" when the repository is bare'],
    ['--is-inside-work-tree', '"true" inside a work tree'],
  ],
};

export default function revParse(ctx: CommandContext, args: string[]): number {
  let verify = false, quiet = false;
  const out = new Output();
  const revsToParse: string[] = [];
  for (const a of args) {
    if (a === '--verify') verify = true;
    else if (a === '-q' || a === '--quiet') quiet = true;
    else if (a === '--git-dir') {
      const repo = ctx.repository();
      const rel = path.relative(ctx.cwd, repo.gitDir);
      out.text(`${rel === '.git' ? '.git' : rel === '' ? '.' : repo.gitDir}\n`);
    } else if (a === '--absolute-git-dir') out.text(`${ctx.repository().gitDir}\n`);
    else if (a === '--git-common-dir') out.text(`${commonDirShown(ctx)}\n`);
    else if (a === '--show-toplevel') {
      const wt = ctx.repository().workTree;
      if (!wt) throw fatal('this operation must be run in a work tree');
      out.text(`${wt}\n`);
    } else if (a === '--is-bare-repository') out.text(`${ctx.repository().workTree ? 'false' : 'true'}\n`);
    else if (a === '--is-inside-work-tree') out.text(`${ctx.repository().workTree ? 'true' : 'false'}\n`);
    else revsToParse.push(a);
  }
  if (verify && revsToParse.length !== 1) {
    if (quiet) return 1;
    throw fatal('Needed a single revision');
  }
  if (revsToParse.length) {
    const revs = ctx.repository().revs();
    for (const spec of revsToParse) {
      const fail = () => {
        if (quiet) return 1;
        out.flush();
        throw fatal(verify ? 'Needed a single revision' : `ambiguous argument '${spec}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'`);
      };
      if (!verify && spec.includes('..') && !spec.includes('...')) {
        const [from, to] = spec.split('..') as [string, string];
        const a = revs.tryResolve(from || 'HEAD'), b = revs.tryResolve(to || 'HEAD');
        if (!a || !b) return fail();
        out.ascii(`${toHex(b)}\n^${toHex(a)}\n`);
        continue;
      }
      const neg = !verify && spec.startsWith('^') && !spec.startsWith('^{');
      const id = revs.tryResolve(neg ? spec.slice(1) : spec);
      if (!id || (verify && !ctx.repository().odb.has(id))) return fail();
      out.ascii(`${neg ? '^' : ''}${toHex(id)}\n`);
    }
  }
  out.flush();
  return 0;
}

/**
 * --git-common-dir as git prints it: relative to where the command runs when git holds the
 * directory as a relative path (the `.git` of the work tree it found, or a relative $GIT_DIR),
 * else absolute, as it holds a linked work tree's common directory (read from `commondir`
 * joined to the absolute git directory).
 */
function commonDirShown(ctx: CommandContext): string {
  const repo = ctx.repository();
  const relative = () => path.relative(ctx.cwd, repo.commonDir) || '.';
  if (repo.commonDir !== repo.gitDir) return repo.commonDir;
  const given = ctx.gitDir ?? ctx.env.GIT_DIR;
  if (given) return path.isAbsolute(given) ? repo.commonDir : relative();
  if (repo.workTree && repo.gitDir === path.join(repo.workTree, '.git')) return relative();
  return repo.gitDir === ctx.cwd ? '.' : repo.commonDir;
}
