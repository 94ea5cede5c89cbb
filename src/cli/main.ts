// The tsgit command line: global options (-C, --git-dir), then one command. Exit codes follow git:
// 128 for fatal errors, 129 for usage errors.
import { GitError, UsageError } from '../core/errors.js';
import { CommandContext, type Command } from './context.js';
import { writeAll } from './output.js';

const COMMANDS: Record<string, () => Promise<{ default: Command }>> = {
  'cat-file': () => import('./commands/cat-file.js'),
};

const USAGE = `usage: tsgit [-C <path>] [--git-dir=<path>] <command> [<args>]

commands:
${Object.keys(COMMANDS).sort().map(c => `   ${c}`).join('\n')}
`;

export async function main(argv: string[], cwd = process.cwd(), env = process.env): Promise<number> {
  let dir = cwd;
  let gitDir: string | null = env.GIT_DIR ?? null;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-C') {
      const p = argv[++i];
      if (p === undefined) return usage('option -C requires a value');
      dir = (await import('node:path')).resolve(dir, p);
    } else if (a === '--git-dir') {
      const p = argv[++i];
      if (p === undefined) return usage('option --git-dir requires a value');
      gitDir = p;
    } else if (a.startsWith('--git-dir=')) {
      gitDir = a.slice('--git-dir='.length);
    } else if (a === '--version') {
      writeAll(1, Buffer.from('tsgit version 0.1.0\n'));
      return 0;
    } else if (a === '-h' || a === '--help') {
      writeAll(1, Buffer.from(USAGE));
      return 0;
    } else {
      break;
    }
  }
  const name = argv[i];
  if (!name) {
    writeAll(2, Buffer.from(USAGE));
    return 1;
  }
  const load = COMMANDS[name];
  if (!load) return usage(`'${name}' is not a tsgit command. See 'tsgit --help'.`);
  const ctx = new CommandContext(dir, env, gitDir);
  try {
    const cmd = (await load()).default;
    return await cmd(ctx, argv.slice(i + 1));
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    if (e instanceof GitError) {
      writeAll(2, Buffer.from(`fatal: ${e.message}\n`));
      return 128;
    }
    throw e;
  } finally {
    ctx.close();
  }
}

function usage(message: string): number {
  writeAll(2, Buffer.from(`error: ${message}\n`));
  return 129;
}
