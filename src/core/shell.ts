// How git starts a command given as text (run-command.c prepare_shell_cmd): one holding a shell
// metacharacter runs as `/bin/sh -c '<command> "$@"' <command> <args>...` (git's SHELL_PATH, not a
// `sh` found on PATH, which a hostile PATH could provide, and which costs a failed exec per PATH
// entry before it); anything else is executed directly, found on PATH.
export const SHELL = '/bin/sh';
const METACHARACTERS = /[|&;<>()$`\\"' \t\n*?[#~=%]/;

/** The program and arguments git would start for `command` with `args`. */
export function shellArgv(command: string, args: readonly string[] = []): { command: string; args: string[] } {
  if (!METACHARACTERS.test(command)) return { command, args: [...args] };
  return { command: SHELL, args: ['-c', args.length ? `${command} "$@"` : command, command, ...args] };
}

/** git's sq_quote: `word` single-quoted for sh, each ' and ! closed out and backslash-escaped. */
export function shellQuote(word: string): string {
  return `'${word.replace(/['!]/g, (c) => `'\\${c}'`)}'`;
}
