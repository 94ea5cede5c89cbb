// The whole tsgit command line, every command loaded when it runs: bin/tsgit's entry for what has
// no bundle of its own (help, --help, --version, a mistyped name) and the fallback of those that
// do (scripts/bundle.mjs).
import { commandListText, loadCommand } from './command-list.js';
import { dispatch, type CommandSource } from './dispatch.js';

export const commands: CommandSource = { load: loadCommand, listText: commandListText };

export function main(argv: string[]): Promise<number> {
  return dispatch(argv, commands);
}
