// The commands: each is a module in ./commands named after it, exporting its function as default
// and its `help`, so adding one touches no shared list.
import fs from 'node:fs';
import type { Command } from './context.js';
import type { CommandHelp } from './help.js';

const COMMAND_DIR = new URL('./commands/', import.meta.url);

export interface CommandModule {
  default: Command;
  help: CommandHelp;
}

export function commandNames(): string[] {
  return fs.readdirSync(COMMAND_DIR).filter(f => f.endsWith('.js')).map(f => f.slice(0, -3)).sort();
}

/** null when `name` is no command. */
export async function loadCommand(name: string): Promise<CommandModule | null> {
  if (!/^[a-z][a-z-]*$/.test(name) || !fs.existsSync(new URL(`${name}.js`, COMMAND_DIR))) return null;
  return await import(new URL(`${name}.js`, COMMAND_DIR).href) as CommandModule;
}

/** `tsgit --help`: every command with its summary. */
export async function commandListText(): Promise<string> {
  const names = commandNames();
  const modules = await Promise.all(names.map(loadCommand));
  const width = Math.max(...names.map(n => n.length)) + 3;
  const lines = names.map((n, i) => `   ${n.padEnd(width)}${modules[i]!.help.summary}`);
  return `usage: tsgit [--version] [--help] [-C <path>] [-c <name>=<value>] [--git-dir=<path>] <command> [<args>]

These are the tsgit commands:
${lines.join('\n')}

'tsgit help <command>' or 'tsgit <command> -h' shows a command's options.
`;
}
