// How git turns a configured filter command into the command it runs (convert.c
// filter_buffer_or_fd): `%f` becomes the path, single-quoted for the shell (quote.c sq_quote_buf),
// `%%` a percent sign. The command then starts as any command git is given as text
// (core/shell.ts).
import { isUtf8 } from 'node:buffer';
import { shellQuote } from '../../core/shell.js';

/**
 * `path` quoted for sh as git quotes it: inside single quotes, with ' and ! each closed out and
 * backslash-escaped. Node passes arguments as UTF-8, so bytes that are not UTF-8 are produced by
 * the shell itself (`$(printf '\ooo')`), which gives the filter the same bytes git would.
 */
export function shellQuotePath(path: Uint8Array): string {
  const text = Buffer.from(path.buffer, path.byteOffset, path.length);
  if (isUtf8(text)) return shellQuote(text.toString('utf8'));
  let out = '';
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i]! < 0x80) continue;
    if (i > start) out += shellQuote(text.toString('latin1', start, i));
    if (i < text.length) out += `"$(printf '\\${text[i]!.toString(8)}')"`;
    start = i + 1;
  }
  return out || "''";
}

/** `command` with `%f` expanded to the quoted path and `%%` to `%` (strbuf_expand). */
export function expandPath(command: string, path: Uint8Array): string {
  return command.replace(/%(.?)/gs, (all, c: string) => c === 'f' ? shellQuotePath(path) : c === '%' ? '%' : all);
}
