// Remote addresses as git reads them (connect.c parse_connect_url, transport.c transport_get):
//   scheme://...            http, https, git, ssh (also git+ssh, ssh+git), file
//   [user@]host:path        scp-like ssh, when a ':' comes before any '/'
//   anything else           a local path
// The path of ssh, git and file URLs is percent-decoded, and `/~user` becomes `~user` for ssh and
// git, as git does. Hosts and ssh paths that start with '-' are refused: they would reach `ssh` as
// options (CVE-2017-1000117).
import path from 'node:path';
import { GitError } from '../core/errors.js';

export type RemoteUrl =
  | { readonly kind: 'http'; readonly url: URL; readonly display: string }
  | { readonly kind: 'git'; readonly host: string; readonly port: number | null; readonly path: string; readonly display: string }
  | {
    readonly kind: 'ssh'; readonly user: string | null; readonly host: string; readonly port: number | null;
    readonly path: string; readonly display: string;
  }
  | {
    readonly kind: 'file';
    /** The repository's path, absolute. */
    readonly path: string;
    /**
     * The path as the far end is given it, run from `cwd`, and so as its messages name it: a plain
     * path as written (git passes it on unresolved), a file:// URL's path.
     */
    readonly given: string;
    readonly cwd: string;
    readonly display: string;
  };

function urlError(url: string, why: string): GitError {
  return new GitError('transport', 'bad-url', `${why}: '${url}'`);
}

/** git's connect.c words every URL without a path alike, naming none. */
function noPath(): GitError {
  return new GitError('transport', 'bad-url', "no path specified; see 'git help pull' for valid url syntax");
}

/** git's is_url: an alphanumeric scheme (with + . -) followed by "://". */
function schemeOf(url: string): string | null {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  return m ? m[1]!.toLowerCase() : null;
}

/** git's url_is_local_not_ssh: no colon, or a slash before the first colon. */
function isLocalNotSsh(url: string): boolean {
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

function percentDecode(text: string, url: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw urlError(url, 'bad percent-encoding in URL');
  }
}

function parsePort(text: string, url: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw urlError(url, `invalid port '${text}'`);
  return port;
}

/** `user@host:port`, `host`, `[::1]:22`: splits the authority of an ssh or git URL. */
function splitAuthority(authority: string, url: string): { user: string | null; host: string; port: number | null } {
  let user: string | null = null;
  let rest = authority;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let host = rest;
  let port: number | null = null;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw urlError(url, 'unterminated [ in host');
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after.startsWith(':')) { if (after.length > 1) port = parsePort(after.slice(1), url); }
    else if (after !== '') throw urlError(url, 'unexpected text after ]');
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon >= 0 && rest.indexOf(':') === colon) {
      host = rest.slice(0, colon);
      if (colon + 1 < rest.length) port = parsePort(rest.slice(colon + 1), url);
    }
  }
  if (host === '') throw urlError(url, 'no host in URL');
  return { user, host, port };
}

function checkSshParts(user: string | null, host: string, p: string, url: string): void {
  const sshHost = user !== null ? `${user}@${host}` : host;
  if (sshHost.startsWith('-')) throw new GitError('transport', 'bad-url', `strange hostname '${sshHost}' blocked`);
  if (p.startsWith('-')) throw new GitError('transport', 'bad-url', `strange pathname '${p}' blocked`);
  if (p === '') throw noPath();
}

/** `/~user/repo` in an ssh:// or git:// URL means `~user/repo` on the server. */
function tildePath(p: string): string {
  return p.startsWith('/~') ? p.slice(1) : p;
}

/** Parses a remote address; relative local paths are resolved against `cwd`. */
export function parseRemoteUrl(url: string, cwd = process.cwd()): RemoteUrl {
  // git's connect.c words an empty URL as one without a path.
  if (url === '') throw noPath();
  if (/[\0\n]/.test(url)) throw urlError(JSON.stringify(url).slice(1, -1), 'URL contains a newline or NUL');
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) throw new GitError('transport', 'unsupported', `remote helpers are not supported ('${helper[1]}::' in '${url}')`);
  const scheme = schemeOf(url);
  if (scheme === 'http' || scheme === 'https') {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw urlError(url, 'invalid URL');
    }
    return { kind: 'http', url: parsed, display: redact(parsed) };
  }
  if (scheme !== null) {
    const rest = url.slice(scheme.length + 3);
    const slash = rest.indexOf('/');
    if (scheme === 'file') {
      // git's parse_connect_url takes a file URL's path from the first '/' after the scheme and
      // passes the host by, whatever it is: file://localhost/x, file://elsewhere/x and file:///x
      // all name /x (file://../x names /x too, and fails there as git's does).
      const p = percentDecode(slash < 0 ? '' : rest.slice(slash), url);
      if (p === '') throw noPath();
      return { kind: 'file', path: p, given: p, cwd, display: url };
    }
    if (slash < 0) throw noPath();
    const authority = percentDecode(rest.slice(0, slash), url);
    const p = tildePath(percentDecode(rest.slice(slash), url));
    const { user, host, port } = splitAuthority(authority, url);
    if (scheme === 'git') {
      if (user !== null) throw urlError(url, 'git:// URLs take no user name');
      if (host.startsWith('-')) throw new GitError('transport', 'bad-url', `strange hostname '${host}' blocked`);
      return { kind: 'git', host, port, path: p, display: url };
    }
    if (scheme === 'ssh' || scheme === 'git+ssh' || scheme === 'ssh+git') {
      checkSshParts(user, host, p, url);
      return { kind: 'ssh', user, host, port, path: p, display: url };
    }
    throw new GitError('transport', 'unsupported', `unsupported URL scheme '${scheme}' in '${url}'`);
  }
  if (isLocalNotSsh(url)) return { kind: 'file', path: path.resolve(cwd, url), given: url, cwd, display: url };
  // scp-like: [user@]host:path, or [user@][host:port]:path where brackets protect the colon.
  let hostPart: string;
  let p: string;
  let port: number | null = null;
  let user: string | null = null;
  const at = url.indexOf('@');
  const bracket = url.indexOf('[');
  if (bracket >= 0 && (bracket === 0 || bracket === at + 1)) {
    const close = url.indexOf(']', bracket);
    if (close < 0 || url[close + 1] !== ':') throw urlError(url, 'malformed [host]: address');
    if (bracket > 0) user = url.slice(0, at);
    const inner = url.slice(bracket + 1, close);
    const colon = inner.lastIndexOf(':');
    // [host:port] is git's way to give a port in scp syntax; [::1] is an IPv6 address.
    if (colon >= 0 && inner.indexOf(':') === colon) {
      hostPart = inner.slice(0, colon);
      port = parsePort(inner.slice(colon + 1), url);
    } else {
      hostPart = inner;
    }
    p = url.slice(close + 2);
  } else {
    const colon = url.indexOf(':');
    const authority = url.slice(0, colon);
    const a = authority.lastIndexOf('@');
    if (a >= 0) { user = authority.slice(0, a); hostPart = authority.slice(a + 1); } else hostPart = authority;
    p = url.slice(colon + 1);
  }
  if (p.startsWith('/~')) p = p.slice(1);
  if (hostPart === '') throw urlError(url, 'no host in address');
  checkSshParts(user, hostPart, p, url);
  return { kind: 'ssh', user, host: hostPart, port, path: p, display: url };
}

/** The URL as it may be shown: without a password. */
export function redact(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = '';
  return copy.href;
}

/**
 * `url` without the user name and password git strips before it shows or stores a URL (git's
 * transport_anonymize_url): FETCH_HEAD, fetch's "From" line and its errors. A local path, a URL
 * whose '@' comes after the path starts, or a scheme git would not take is kept as it is.
 */
export function anonymizeUrl(url: string): string {
  const at = url.indexOf('@');
  if (isLocalNotSsh(url) || at < 0) return url;
  const rest = url.slice(at + 1);
  const scheme = url.indexOf('://');
  if (scheme < 0) {
    // Only "user@host:path" has a user to strip.
    return rest.includes(':') ? rest : url;
  }
  if (!/^[A-Za-z0-9+.-]*$/.test(url.slice(0, scheme))) return url;
  const slash = url.indexOf('/', scheme + 3);
  if (slash >= 0 && slash < at) return url;
  return url.slice(0, scheme + 3) + rest;
}
