// The commands: each is a module in ./commands named after it, exporting its function as default
// and its `help`. They are listed here with literal imports, so that the CLI's bundle (see
// own-files.ts) holds them all; each is still loaded only when run. A test checks the list
// against the directory.
import type { Command } from './context.js';
import type { CommandHelp } from './help.js';

export interface CommandModule {
  default: Command;
  help: CommandHelp;
}

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  'cat-file': () => import('./commands/cat-file.js'),
  checkout: () => import('./commands/checkout.js'),
  clone: () => import('./commands/clone.js'),
  config: () => import('./commands/config.js'),
  fetch: () => import('./commands/fetch.js'),
  help: () => import('./commands/help.js'),
  'index-pack': () => import('./commands/index-pack.js'),
  init: () => import('./commands/init.js'),
  'ls-remote': () => import('./commands/ls-remote.js'),
  'ls-tree': () => import('./commands/ls-tree.js'),
  push: () => import('./commands/push.js'),
  'receive-pack': () => import('./commands/receive-pack.js'),
  remote: () => import('./commands/remote.js'),
  repack: () => import('./commands/repack.js'),
  'rev-list': () => import('./commands/rev-list.js'),
  'rev-parse': () => import('./commands/rev-parse.js'),
  serve: () => import('./commands/serve.js'),
  'show-ref': () => import('./commands/show-ref.js'),
  'sparse-checkout': () => import('./commands/sparse-checkout.js'),
  submodule: () => import('./commands/submodule.js'),
  'upload-pack': () => import('./commands/upload-pack.js'),
  'verify-pack': () => import('./commands/verify-pack.js'),
};

export function commandNames(): string[] {
  return Object.keys(COMMANDS).sort();
}

/** null when `name` is no command. */
export async function loadCommand(name: string): Promise<CommandModule | null> {
  return Object.hasOwn(COMMANDS, name) ? await COMMANDS[name]!() : null;
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
