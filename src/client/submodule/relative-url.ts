// A submodule URL that starts with `./` or `../` is relative to the superproject's own remote, as
// git's relative_url (remote.c) resolves it: `../` takes a directory off the remote's URL (or, when
// none is left, the part after the last `:` of an scp-like address), `./` nothing. Trailing `/`
// and `/.` are dropped from both ends. Like git, this is string work: `../../x` against
// `http://host/a` climbs into the host name, which is what git does too.
import { GitError } from '../../core/errors.js';

export function isRelativeUrl(url: string): boolean {
  return url.startsWith('./') || url.startsWith('../');
}

/** git's url_is_local_not_ssh: no colon, or a slash before the first colon. */
function isLocalNotSsh(url: string): boolean {
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** git's strip_url_ending: every trailing `/.` and `/`. */
function stripUrlEnding(url: string): string {
  for (;;) {
    if (url.length > 1 && url.endsWith('/.')) url = url.slice(0, -2);
    else if (url.length > 0 && url.endsWith('/')) url = url.slice(0, -1);
    else return url;
  }
}

/**
 * git's relative_url(remote_url, url, up_path): `url` resolved against `remoteUrl`. When the
 * remote is itself a relative path, so is the result, and `upPath` (`../` per level of the
 * submodule's path) is put in front of it.
 */
export function relativeUrl(remoteUrl: string, url: string, upPath: string | null = null): string {
  if (!isLocalNotSsh(url) || url.startsWith('/')) return url;
  if (remoteUrl === '') throw new GitError('client', 'bad-url', 'cannot resolve a relative submodule URL against an empty remote URL');
  let remote = stripUrlEnding(remoteUrl);
  const isRelative = isLocalNotSsh(remote) && !remote.startsWith('/');
  if (isRelative && !remote.startsWith('./') && !remote.startsWith('../')) remote = `./${remote}`;
  let colonsep = false;
  let rest = url;
  for (;;) {
    if (rest.startsWith('../')) {
      rest = rest.slice(3);
      const chopped = chopLastDir(remote, isRelative);
      remote = chopped.url;
      colonsep ||= chopped.colon;
    } else if (rest.startsWith('./')) {
      rest = rest.slice(2);
    } else {
      break;
    }
  }
  let out = stripUrlEnding(`${remote}${colonsep ? ':' : '/'}${rest}`);
  if (out.startsWith('./')) out = out.slice(2);
  return upPath !== null && isRelative ? upPath + out : out;
}

/** git's chop_last_dir: the URL without its last `/` component, else without its last `:` part. */
function chopLastDir(url: string, isRelative: boolean): { url: string; colon: boolean } {
  const slash = url.lastIndexOf('/');
  if (slash >= 0) return { url: url.slice(0, slash), colon: false };
  const colon = url.lastIndexOf(':');
  if (colon >= 0) return { url: url.slice(0, colon), colon: true };
  if (isRelative || url === '.') throw new GitError('client', 'bad-url', `cannot strip one component off url '${url}'`);
  return { url: '.', colon: false };
}
