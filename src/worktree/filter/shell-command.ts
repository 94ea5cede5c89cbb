// How git turns a configured filter command into a process (run-command.c prepare_shell_cmd,
// convert.c filter_buffer_or_fd): `%f` becomes the path, single-quoted for the shell (quote.c
// sq_quote_buf), `%%` a percent sign; a command with any shell metacharacter runs as
// `sh -c <command> <command>`, anything else is executed directly, found on PATH.
import { isUtf8 } from 'node:buffer';

const SHELL = '/bin/sh';
const METACHARACTERS = /[|&;<>()$`\\"' \t\n*?[#~=%]/;

/** The program and arguments git would start for `command`. */
export function shellArgv(command: string): [string, string[]] {
  return METACHARACTERS.test(command) ? [SHELL, ['-c', command, command]] : [command, []];
}

/**
 * `path` quoted for sh as git quotes it: inside single quotes, with ' and ! each closed out and
 * backslash-escaped. Node passes arguments as UTF-8, so bytes that are not UTF-8 are produced by
 * the shell itself (`$(printf '\ooo')`), which gives the filter the same bytes git would.
 */
export function shellQuote(path: Uint8Array): string {
  const text = Buffer.from(path.buffer, path.byteOffset, path.length);
  const quoteText = (s: string): string => `'${s.replace(/['!]/g, c => `'\\${c}'`)}'`;
  if (isUtf8(text)) return quoteText(text.toString('utf8'));
  let out = '';
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i]! < 0x80) continue;
    if (i > start) out += quoteText(text.toString('latin1', start, i));
    if (i < text.length) out += `"$(printf '\\${text[i]!.toString(8)}')"`;
    start = i + 1;
  }
  return out || "''";
}

/** `command` with `%f` expanded to the quoted path and `%%` to `%` (strbuf_expand). */
export function expandPath(command: string, path: Uint8Array): string {
  return command.replace(/%(.?)/gs, (all, c: string) => c === 'f' ? shellQuote(path) : c === '%' ? '%' : all);
}
