// The tsgit command line: global options (-C, --git-dir), then one command. Exit codes follow git:
// 128 for fatal errors, 129 for usage errors.
import fs from 'node:fs';
import path from 'node:path';
import { addConfigParameter } from '../config/command-line.js';
import { GitError, UsageError } from '../core/errors.js';
import { CommandContext, type Command } from './context.js';
import { writeAll } from './output.js';

// Each command is a module in ./commands named after it, so adding one touches no shared list.
const COMMAND_DIR = new URL('./commands/', import.meta.url);

function commandNames(): string[] {
  return fs.readdirSync(COMMAND_DIR).filter(f => f.endsWith('.js')).map(f => f.slice(0, -3)).sort();
}

async function loadCommand(name: string): Promise<Command | null> {
  if (!/^[a-z][a-z-]*$/.test(name) || !fs.existsSync(new URL(`${name}.js`, COMMAND_DIR))) return null;
  return (await import(new URL(`${name}.js`, COMMAND_DIR).href) as { default: Command }).default;
}

const usageText = () => `usage: tsgit [-C <path>] [-c <name>=<value>] [--git-dir=<path>] <command> [<args>]

commands:
${commandNames().map(c => `   ${c}`).join('\n')}
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
      dir = path.resolve(dir, p);
    } else if (a === '-c') {
      // As git: the setting travels in $GIT_CONFIG_PARAMETERS, to this command and those it runs
      // (set in process.env itself when that is the environment, as git's setenv, so that code
      // reading process.env sees it too).
      const setting = argv[++i];
      if (setting === undefined) return usage('no config key given for -c');
      try {
        const value = addConfigParameter(env.GIT_CONFIG_PARAMETERS, setting);
        if (env === process.env) process.env.GIT_CONFIG_PARAMETERS = value;
        else env = { ...env, GIT_CONFIG_PARAMETERS: value };
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        writeAll(2, Buffer.from(`error: ${e.message}\nfatal: unable to parse command-line config\n`));
        return 128;
      }
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
      writeAll(1, Buffer.from(usageText()));
      return 0;
    } else {
      break;
    }
  }
  const name = argv[i];
  if (!name) {
    writeAll(2, Buffer.from(usageText()));
    return 1;
  }
  const cmd = await loadCommand(name);
  if (!cmd) return usage(`'${name}' is not a tsgit command. See 'tsgit --help'.`);
  const ctx = new CommandContext(dir, env, gitDir);
  try {
    return await cmd(ctx, argv.slice(i + 1));
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    if (e instanceof GitError) {
      writeAll(2, Buffer.from(`fatal: ${e.message}\n`));
      return 128;
    }
    // Anything else is a bug or an fs error nobody translated: still one line, as git dies; the
    // stack is for TSGIT_DEBUG=1 (bin/tsgit prints it).
    if (env.TSGIT_DEBUG) throw e;
    writeAll(2, Buffer.from(`fatal: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}\n`));
    return 128;
  } finally {
    ctx.close();
  }
}

function usage(message: string): number {
  writeAll(2, Buffer.from(`error: ${message}\n`));
  return 129;
}
