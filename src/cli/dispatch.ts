// The tsgit command line: global options (-C, --git-dir), then one command. Exit codes follow git:
// 128 for fatal errors, 129 for usage errors. The commands come from the caller: the whole list
// (main.ts), or one command bundled alone with a way to the rest (see scripts/bundle.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { addConfigParameter } from '../config/command-line.js';
import { fatalText, GitError, OptionError, UsageError } from '../core/errors.js';
import { isDirectory } from '../core/is-directory.js';
import type { CommandModule } from './command-list.js';
import { CommandContext } from './context.js';
import { formatHelp } from './help.js';
import { writeAll } from './output.js';

/** Where the commands come from. */
export interface CommandSource {
  /** null when `name` is no command. */
  load(name: string): Promise<CommandModule | null>;
  /** `tsgit --help`: every command with its summary. */
  listText(): Promise<string>;
}

export async function dispatch(argv: string[], commands: CommandSource, cwd = process.cwd(), env = process.env): Promise<number> {
  let dir = cwd;
  let gitDir: string | null = env.GIT_DIR ?? null;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-C') {
      const p = argv[++i];
      if (p === undefined) return usage('option -C requires a value');
      dir = path.resolve(dir, p);
      if (!isDirectory(dir)) return fatalExit(`cannot change to '${p}': ${fs.existsSync(dir) ? 'Not a directory' : 'No such file or directory'}`);
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
      writeAll(1, Buffer.from(await commands.listText()));
      return 0;
    } else {
      break;
    }
  }
  const name = argv[i];
  if (!name) {
    writeAll(2, Buffer.from(await commands.listText()));
    return 1;
  }
  const cmd = await commands.load(name);
  if (!cmd) return usage(`'${name}' is not a tsgit command. See 'tsgit --help'.`);
  const args = argv.slice(i + 1);
  // As git: "-h" alone is parse-options' usage (stdout, 129); "--help" before "--" opens the
  // command's help, which here is the same text on stdout, exit 0.
  if (args.length === 1 && args[0] === '-h') {
    writeAll(1, Buffer.from(formatHelp(name, cmd.help)));
    return 129;
  }
  const ddash = args.indexOf('--');
  if (args.slice(0, ddash < 0 ? args.length : ddash).includes('--help')) {
    writeAll(1, Buffer.from(formatHelp(name, cmd.help)));
    return 0;
  }
  const ctx = new CommandContext(dir, env, gitDir);
  try {
    return await cmd.default(ctx, args);
  } catch (e) {
    if (e instanceof OptionError) return usage(e.message);
    if (e instanceof UsageError) return usage(e.message, formatHelp(name, cmd.help));
    // The stack of anything but a GitError is for TSGIT_DEBUG=1 (bin/tsgit prints it).
    if (!(e instanceof GitError) && env.TSGIT_DEBUG) throw e;
    return fatalExit(fatalText(e));
  } finally {
    ctx.close();
  }
}

function fatalExit(message: string): number {
  writeAll(2, Buffer.from(`fatal: ${message}\n`));
  return 128;
}

/**
 * A usage error as git's parse-options reports one: "error: <what>", then the command's usage
 * (an empty message: the usage alone).
 */
function usage(message: string, commandHelp?: string): number {
  const text = [message && `error: ${message}`, commandHelp?.trimEnd()].filter(Boolean).join('\n');
  writeAll(2, Buffer.from(`${text}\n`));
  return 129;
}
