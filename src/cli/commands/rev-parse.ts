// tsgit rev-parse: object names to ids (with ^, ~, ^{type}, :path, A..B, ^A), abbreviated (--short)
// or as ref names (--symbolic-full-name, --abbrev-ref), plus the repository queries scripts use
// most (--git-dir, --git-common-dir, --show-toplevel, --show-prefix, --show-cdup,
// --is-bare-repository, --verify, -q).
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../../core/errors.js';
import { toHex } from '../../core/oid.js';
import { abbreviator, defaultAbbrev, MINIMUM_ABBREV } from '../abbrev.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import type { CommandHelp } from '../help.js';
import { dwimRef, shortenRef } from '../ref-names.js';

export const help: CommandHelp = {
  summary: 'Pick out and massage parameters',
  synopsis: ['[--verify] [-q | --quiet] [--short[=<n>] | --symbolic-full-name | --abbrev-ref] <rev>...', '(--git-dir | --absolute-git-dir | --git-common-dir | --show-toplevel | --is-bare-repository | --is-inside-work-tree)'],
  options: [
    ['--verify', 'verify that exactly one parameter is given and is a usable object name'],
    ['--short[=<n>]', 'like --verify, the id abbreviated (core.abbrev, at least 4 digits)'],
    ['--symbolic-full-name', 'the full name of the ref a revision names'],
    ['--abbrev-ref[=(strict|loose)]', 'the shortest unambiguous name of that ref'],
    ['--show-prefix', 'where the command runs, from the top of the work tree'],
    ['--show-cdup', 'the way up to the top of the work tree'],
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
  // --short's length (0: full ids); whether refs are shown by name (--symbolic-full-name), and
  // how --abbrev-ref shortens them (it wins over --symbolic-full-name, as in git's show_rev).
  let short = 0;
  let fullNames = false;
  let abbrevRef: 'strict' | 'loose' | null = null;
  const out = new Output();
  const revsToParse: string[] = [];
  for (const a of args) {
    if (a === '--verify') verify = true;
    else if (a === '-q' || a === '--quiet') quiet = true;
    else if (a === '--short' || a.startsWith('--short=')) {
      // git's --short is --verify with abbreviated output, at least 4 digits.
      verify = true;
      const repo = ctx.repository();
      const n = a === '--short' ? defaultAbbrev(repo.loadConfig(ctx.env).get('core', null, 'abbrev'), repo.odb) : parseInt(a.slice(8), 10) || 0;
      short = Math.min(40, Math.max(MINIMUM_ABBREV, n));
    } else if (a === '--symbolic-full-name') fullNames = true;
    else if (a === '--abbrev-ref' || a.startsWith('--abbrev-ref=')) {
      const mode = a.slice(13);
      if (mode !== '' && mode !== 'strict' && mode !== 'loose') throw fatal(`unknown mode for --abbrev-ref: ${mode}`);
      // core.warnAmbiguousRefs, on by default, makes it strict.
      abbrevRef = mode === 'loose' || (mode === '' && ctx.repository().loadConfig(ctx.env).getBool('core', null, 'warnambiguousrefs') === false) ? 'loose' : 'strict';
    } else if (a === '--show-prefix' || a === '--show-cdup') {
      const prefix = workTreePrefix(ctx);
      out.text(`${a === '--show-prefix' ? prefix : '../'.repeat(prefix.split('/').length - 1)}\n`);
    } else if (a === '--git-dir') {
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
    const repo = ctx.repository();
    // git's --verify -q reads the name quietly: no warning of an ambiguous name or a short reflog.
    const revs = repo.revs({ quiet: verify && quiet });
    const abbreviate = short ? abbreviator(repo.odb, short) : null;
    // git's show_rev: a ref's name (or nothing for a revision that is no ref), an abbreviated id, or the id.
    const show = (prefix: string, id: Uint8Array, name: string): void => {
      if (fullNames || abbrevRef) {
        // git expands `<branch>@{upstream}` to its ref, and `@{-<n>}` to the branch it names, before
        // looking the name up.
        const marked = revs.branchMark(name);
        const { full, count } = marked !== null ? { full: marked, count: 1 } : dwimRef(repo, revs.priorName(name) ?? name);
        if (count > 1) process.stderr.write(`error: refname '${name}' is ambiguous\n`);
        else if (full !== null) out.text(`${prefix}${abbrevRef ? shortenRef(repo, full, abbrevRef === 'strict') : full}\n`);
        return;
      }
      out.ascii(`${prefix}${abbreviate ? abbreviate(id, 0) : toHex(id)}\n`);
    };
    for (const spec of revsToParse) {
      // Not a revision: --verify fails; otherwise git takes it as a path, printed as given, and
      // fails only when no such file exists (verify_filename).
      const fail = (): number | undefined => {
        if (verify) {
          if (quiet) return 1;
          out.flush();
          throw fatal('Needed a single revision');
        }
        out.text(`${spec}\n`);
        if (fs.existsSync(path.resolve(ctx.cwd, spec))) return undefined;
        out.flush();
        throw fatal(`ambiguous argument '${spec}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'`);
      };
      if (!verify && spec.includes('..') && !spec.includes('...')) {
        const [from, to] = spec.split('..') as [string, string];
        const a = revs.tryResolve(from || 'HEAD'), b = revs.tryResolve(to || 'HEAD');
        if (!a || !b) {
          const status = fail();
          if (status !== undefined) return status;
          continue;
        }
        show('', b, to || 'HEAD');
        show('^', a, from || 'HEAD');
        continue;
      }
      const neg = !verify && spec.startsWith('^') && !spec.startsWith('^{');
      const name = neg ? spec.slice(1) : spec;
      let id: Uint8Array | null;
      try {
        id = revs.tryResolve(name);
      } catch (e) {
        // git's GET_OID_QUIETLY: a reflog too short (or empty) ends --verify -q with 128 and nothing said.
        if (verify && quiet && e instanceof GitError && e.code === 'reflog-short') return 128;
        throw e;
      }
      if (!id || (verify && !repo.odb.has(id))) {
        const status = fail();
        if (status !== undefined) return status;
        continue;
      }
      show(neg ? '^' : '', id, name);
    }
  }
  out.flush();
  return 0;
}

/** Where the command runs below the top of the work tree, with a trailing slash ('' at the top or outside one). */
function workTreePrefix(ctx: CommandContext): string {
  const wt = ctx.repository().workTree;
  if (!wt) return '';
  const rel = path.relative(wt, ctx.cwd);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? '' : `${rel.split(path.sep).join('/')}/`;
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
