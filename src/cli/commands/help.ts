// tsgit help [<command>]: the command list, or one command's synopsis and options (git opens a man
// page here; tsgit has none, so it prints what `-h` prints, to stdout, exit 0).
import { UsageError } from '../../core/errors.js';
import { commandListText, loadCommand } from '../command-list.js';
import type { CommandContext } from '../context.js';
import { formatHelp, type CommandHelp } from '../help.js';
import { writeAll } from '../output.js';

export const help: CommandHelp = {
  summary: 'Display help information about tsgit',
  synopsis: ['[<command>]'],
  options: [],
};

export default async function helpCommand(_ctx: CommandContext, args: string[]): Promise<number> {
  if (args.length > 1 || args[0]?.startsWith('-')) throw new UsageError(formatHelp('help', help));
  if (args.length === 0) {
    writeAll(1, Buffer.from(await commandListText()));
    return 0;
  }
  const name = args[0]!;
  const cmd = await loadCommand(name);
  if (!cmd) throw new UsageError(`'${name}' is not a tsgit command. See 'tsgit --help'.`);
  writeAll(1, Buffer.from(formatHelp(name, cmd.help)));
  return 0;
}
