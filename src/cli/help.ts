// What each command says about itself. A command module exports `help` next to its default
// function; the same text answers `tsgit <command> -h` (stdout, exit 129, as git's parse-options),
// `tsgit help <command>` and `tsgit <command> --help` (stdout, exit 0: there are no man pages), and
// follows a usage error, so the synopsis is written once per command.

export interface CommandHelp {
  /** One line for `tsgit --help`'s command list. */
  summary: string;
  /** Each form of the command line after "tsgit <command> " (git prints "usage:" then "   or:"). */
  synopsis: readonly string[];
  /** [option as typed, what it does]; a heading is ['', 'text']. */
  options: ReadonlyArray<readonly [string, string]>;
}

/** git's usage_with_options column: option text padded to 26 characters, then its help. */
const OPTION_COLUMN = 26;

/** The synopsis lines alone, as a usage error ends. */
export function usageLines(name: string, help: CommandHelp): string {
  return help.synopsis.map((s, i) => `${i === 0 ? 'usage: ' : '   or: '}tsgit ${name} ${s}`).join('\n');
}

/** The synopsis and every option, as `-h` prints them. */
export function formatHelp(name: string, help: CommandHelp): string {
  let text = `${usageLines(name, help)}\n`;
  // A heading brings its own blank line before it, as in git's usage_with_options.
  if (help.options.length && help.options[0]![0] !== '') text += '\n';
  for (const [option, description] of help.options) {
    if (option === '') {
      text += `\n${description}\n`;
      continue;
    }
    const left = `    ${option}`;
    text += left.length < OPTION_COLUMN - 1
      ? `${left.padEnd(OPTION_COLUMN)}${description}\n`
      : `${left}\n${' '.repeat(OPTION_COLUMN)}${description}\n`;
  }
  return text;
}
