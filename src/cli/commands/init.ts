// tsgit init [-q] [--bare] [-b <branch-name> | --initial-branch=<branch-name>] [<directory>]
// Creates an empty repository as `git init` lays it out (without git's hook templates), or says
// that one is there already ("Reinitialized"), leaving its HEAD and config as they are. The
// initial branch is -b's, else init.defaultBranch, else 'master' with git's advice about it.
import fs from 'node:fs';
import path from 'node:path';
import { initRepository } from '../../client/init-repository.js';
import { Config, configuredInitialBranch, DEFAULT_INITIAL_BRANCH } from '../../config/index.js';
import { UsageError } from '../../core/errors.js';
import { checkRefFormat } from '../../refs/index.js';
import { fatal, type CommandContext } from '../context.js';
import type { CommandHelp } from '../help.js';
import { writeAll } from '../output.js';
import { parseOptions } from '../parse-options.js';

export const help: CommandHelp = {
  summary: 'Create an empty Git repository or reinitialize an existing one',
  synopsis: ['[-q | --quiet] [--bare] [-b <branch-name> | --initial-branch=<branch-name>] [<directory>]'],
  options: [
    ['-q, --quiet', 'be quiet'],
    ['--bare', 'create a bare repository'],
    ['-b, --initial-branch <name>', 'override the name of the initial branch'],
  ],
};

// git's advice while the default is still 'master' and nobody chose (git 2.39 prints it whatever
// advice.* says).
const DEFAULT_BRANCH_ADVICE = `hint: Using 'master' as the name for the initial branch. This default branch name
hint: is subject to change. To configure the initial branch name to use in all
hint: of your new repositories, which will suppress this warning, call:
hint: 
hint: \tgit config --global init.defaultBranch <name>
hint: 
hint: Names commonly chosen instead of 'master' are 'main', 'trunk' and
hint: 'development'. The just-created branch can be renamed via this command:
hint: 
hint: \tgit branch -m <name>
`;

export default async function init(ctx: CommandContext, args: string[]): Promise<number> {
  let quiet = false, bare = false;
  let branch: string | undefined;
  const rest = parseOptions(args, (name, value) => {
    switch (name) {
      case '-q': case '--quiet': quiet = true; break;
      case '--bare': bare = true; break;
      case '-b': case '--initial-branch': branch = value(); break;
      default: return false;
    }
    return true;
  });
  if (rest.length > 1) throw new UsageError('');
  const top = path.resolve(ctx.cwd, rest[0] ?? '.');
  const gitDir = bare ? top : path.join(top, '.git');
  const err = (text: string) => writeAll(2, Buffer.from(text, 'utf8'));

  const exists = fs.existsSync(path.join(gitDir, 'HEAD'));
  if (exists) {
    if (branch !== undefined) err(`warning: re-init: ignored --initial-branch=${branch}\n`);
  } else {
    const config = Config.loadSync(gitDir, { global: true, env: ctx.env });
    const configured = configuredInitialBranch(config);
    const initial = branch ?? configured ?? DEFAULT_INITIAL_BRANCH;
    if (checkRefFormat(`refs/heads/${initial}`) !== null) throw fatal(`invalid initial branch name: '${initial}'`);
    makeDirectory(top, rest[0] ?? '.');
    // git_default_branch_name(quiet): -q says nothing of the default either.
    if (branch === undefined && configured === null && !quiet) err(DEFAULT_BRANCH_ADVICE);
    initRepository(gitDir, { bare, initialBranch: initial });
  }
  if (!quiet) {
    const text = `${exists ? 'Reinitialized existing' : 'Initialized empty'} Git repository in ${fs.realpathSync(gitDir)}/\n`;
    writeAll(1, Buffer.from(text, 'utf8'));
  }
  return 0;
}

/**
 * The directory to make the repository in, made as `mkdir -p` would (a file in the way is EEXIST);
 * a failure is git's message.
 */
function makeDirectory(dir: string, given: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw fatal(`cannot mkdir ${given}: ${code === 'EACCES' ? 'Permission denied' : code === 'ENOTDIR' ? 'Not a directory' : code === 'EEXIST' ? 'File exists' : (e as Error).message}`);
  }
}
