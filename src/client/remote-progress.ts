// The server's progress (side-band 2) as git's sideband.c shows it: each line prefixed with
// "remote: ", and a non-empty line followed by clear-to-end-of-line on a terminal (eight spaces
// elsewhere) so a shorter line drawn over a longer one leaves no stale characters.

/** Formats whole lines (each ending in \n or \r) for stderr. */
export function formatRemoteProgress(text: string, terminal: boolean): string {
  const suffix = terminal ? '\x1b[K' : '        ';
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\n' && c !== '\r') continue;
    const line = text.slice(start, i);
    out += `remote: ${line}${line.length > 0 ? suffix : ''}${c}`;
    start = i + 1;
  }
  if (start < text.length) out += `remote: ${text.slice(start)}`;
  return out;
}

/** Whether stderr gets git's ANSI clear-to-eol (a terminal whose TERM is not "dumb"). */
export function stderrIsSmartTerminal(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stderr.isTTY === true && env.TERM !== 'dumb';
}
