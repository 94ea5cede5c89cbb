// The directory `git clone <url>` picks when none is given (git's git_url_basename): the last path
// component without a trailing "/.git" or ".git", "<name>.git" for a bare clone.
import { GitError } from '../core/errors.js';

function noGuess(): GitError {
  return new GitError('client', 'no-directory', 'No directory name could be guessed.\nPlease specify a directory on the command line');
}

export function guessDirectory(url: string, bare: boolean): string {
  let start = 0;
  const scheme = url.indexOf('://');
  if (scheme >= 0) start = scheme + 3;
  // Credentials in the authority are not part of a name: skip to after the last '@' before a '/'.
  for (let i = start; i < url.length && url[i] !== '/'; i++) if (url[i] === '@') start = i + 1;
  let end = url.length;
  while (end > start && (url[end - 1] === '/' || /\s/.test(url[end - 1]!))) end--;
  if (end - start > 5 && url[end - 5] === '/' && url.slice(end - 4, end) === '.git') {
    end -= 5;
    while (end > start && url[end - 1] === '/') end--;
  }
  const body = url.slice(start, end);
  // Only a host with a port ("host:1234"): drop the port.
  if (!body.includes('/') && body.includes(':')) {
    let p = end;
    while (p > start && /[0-9]/.test(url[p - 1]!)) p--;
    if (p > start && url[p - 1] === ':') end = p - 1;
  }
  let p = end;
  while (p > start && url[p - 1] !== '/' && url[p - 1] !== ':') p--;
  let name = url.slice(p, end);
  if (name.endsWith('.git')) name = name.slice(0, -4);
  if (name === '' || name === '/') throw noGuess();
  // Runs of control characters and white space become one space; none at either end.
  name = name.replace(/[\x00-\x20\x7f]+/g, ' ').trim();
  if (name === '') throw noGuess();
  return bare ? `${name}.git` : name;
}
